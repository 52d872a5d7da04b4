import { createHash } from 'node:crypto';
import type { ContrastCheck } from './contrast.ts';
import type { StepFailureCode } from './errors.ts';
import type { PlanName } from '../plans/plans.ts';

/**
 * The deployment aggregate: a white-label client deployment owned by the tenant that created it.
 * Stream `deployment-<id>`. Events past tense; every event carries `metadata.tenant_id` = the owner.
 *
 * Status: `pending` (created, provisioning not begun) -> `provisioning` (a step has started) ->
 * `active` | `failed` (with the failing step and reason); a retry or a branding change starts a new run
 * (`provisioning` again, resuming at the failed step); `deactivated` is final. A deployment once
 * `active` stays `active` during and after a later run (e.g. a new logo); a failure of that run is shown
 * in `failure` and the previous branding stays in use.
 */
export const deploymentStream = (id: string) => `deployment-${id}`;

/**
 * Provisioning steps, in order. Each is idempotent (see workflows/deployments/activities.ts). The keys come
 * last (issue 31): a provisioning that fails (a logo that cannot be fetched) leaves no key anyone holds.
 */
export const STEPS = ['tenant', 'branding', 'api_keys'] as const;
export type Step = (typeof STEPS)[number];

export type DeploymentStatus = 'pending' | 'provisioning' | 'active' | 'failed' | 'deactivated';

export interface DeploymentConfig {
  /** `#RRGGBB` as requested (normalised). */
  primaryColor: string;
  /** https URL of the logo as given. */
  logo: string;
  companyName: string;
}

export interface DeploymentCreatedData {
  deployment_id: string;
  /** The owning tenant (the creator). */
  tenant_id: string;
  client_id: string;
  client_name: string;
  /** ASCII (Punycode) form. */
  domain: string;
  domain_unicode: string;
  platform: string;
  environment: string;
  plan: PlanName;
  config: DeploymentConfig;
  /** Credits per UTC month the client may spend of the owner's credits; null or absent = no cap. */
  monthly_credit_cap?: number | null;
  created_at: string;
}

/** Result of a completed step, kept on the record. */
export type StepResult =
  | { step: 'tenant'; provisioned_tenant_id: string; plan: PlanName }
  | { step: 'api_keys'; keys: DeploymentKeyRef[] }
  | { step: 'branding'; branding: BrandingRecord };

/** A key the deployment issued (never the secret). */
export interface DeploymentKeyRef {
  key_id: string;
  hint: string;
  test: boolean;
  permissions: string[];
}

/** What the branding step produced: the colour after the contrast check and the stored logo. */
export interface BrandingRecord {
  company_name: string;
  primary_color: string;
  text_color: string;
  contrast: ContrastCheck;
  /** Blob-store key of the re-encoded PNG logo. */
  logo_blob: string;
  logo_sha256: string;
  logo_width: number;
  logo_height: number;
  /** Content type detected from the fetched bytes (before re-encoding). */
  logo_source_type: string;
  logo_source_url: string;
  logo_bytes: number;
}

export type DeploymentEvent =
  | { type: 'deployment.created'; data: DeploymentCreatedData }
  | { type: 'deployment.provisioning.requested'; data: { deployment_id: string; tenant_id: string; run: number; reason: 'created' | 'retry' | 'updated'; from_step: Step; at: string } }
  | { type: 'deployment.step.started'; data: { deployment_id: string; tenant_id: string; run: number; step: Step; at: string } }
  | { type: 'deployment.step.completed'; data: { deployment_id: string; tenant_id: string; run: number; step: Step; at: string; result: StepResult } }
  | { type: 'deployment.step.failed'; data: { deployment_id: string; tenant_id: string; run: number; step: Step; at: string; code: StepFailureCode; reason: string } }
  | { type: 'deployment.activated'; data: { deployment_id: string; tenant_id: string; run: number; at: string } }
  | {
      type: 'deployment.updated';
      data: {
        deployment_id: string;
        tenant_id: string;
        at: string;
        changes: Partial<Pick<DeploymentCreatedData, 'client_name' | 'domain' | 'domain_unicode' | 'platform' | 'environment' | 'monthly_credit_cap'>> & { config?: DeploymentConfig };
      };
    }
  | { type: 'deployment.keys.revealed'; data: { deployment_id: string; tenant_id: string; key_ids: string[]; at: string } }
  | { type: 'deployment.deactivated'; data: { deployment_id: string; tenant_id: string; at: string } }
  | { type: 'deployment.keys.revoked'; data: { deployment_id: string; tenant_id: string; key_ids: string[]; at: string } };

export const DEPLOYMENT_EVENT_TYPES = [
  'deployment.created',
  'deployment.provisioning.requested',
  'deployment.step.started',
  'deployment.step.completed',
  'deployment.step.failed',
  'deployment.activated',
  'deployment.updated',
  'deployment.keys.revealed',
  'deployment.deactivated',
  'deployment.keys.revoked',
] as const satisfies readonly DeploymentEvent['type'][];

/** One step of one run, as shown in the record's `steps` history. */
export interface StepHistoryEntry {
  run: number;
  step: Step;
  /** `interrupted`: the service stopped while the step ran; the step was tried again (see the next entry). */
  outcome: 'running' | 'completed' | 'failed' | 'interrupted';
  started_at: string | null;
  finished_at: string | null;
  /** Failure code and reason (null unless failed). */
  code: StepFailureCode | null;
  reason: string | null;
}

export interface DeploymentState {
  id: string;
  ownerTenantId: string;
  clientId: string;
  clientName: string;
  domain: string;
  domainUnicode: string;
  platform: string;
  environment: string;
  plan: PlanName;
  config: DeploymentConfig;
  /** Credits per UTC month the client may spend of the owner's credits (null = no cap). */
  monthlyCreditCap: number | null;
  status: DeploymentStatus;
  createdAt: string;
  updatedAt: string;
  activatedAt: string | null;
  deactivatedAt: string | null;
  run: number;
  /** First step of the current run. */
  runFromStep: Step;
  completed: Partial<Record<Step, StepResult>>;
  history: StepHistoryEntry[];
  failure: { step: Step; code: StepFailureCode; reason: string; at: string } | null;
  provisionedTenantId: string | null;
  keys: DeploymentKeyRef[];
  keysRevealedAt: string | null;
  keysRevoked: boolean;
  /** Branding in use (the last one a run completed); null before the first. */
  branding: BrandingRecord | null;
  /** Revision of the stream after the last event (optimistic appends). */
  revision: number;
}

/** Folds one event into the state (`undefined` before `deployment.created`). */
export function evolve(state: DeploymentState | undefined, event: DeploymentEvent, revision: number): DeploymentState | undefined {
  if (event.type === 'deployment.created') {
    const d = event.data;
    return {
      id: d.deployment_id,
      ownerTenantId: d.tenant_id,
      clientId: d.client_id,
      clientName: d.client_name,
      domain: d.domain,
      domainUnicode: d.domain_unicode,
      platform: d.platform,
      environment: d.environment,
      plan: d.plan,
      config: d.config,
      monthlyCreditCap: d.monthly_credit_cap ?? null,
      status: 'pending',
      createdAt: d.created_at,
      updatedAt: d.created_at,
      activatedAt: null,
      deactivatedAt: null,
      run: 0,
      runFromStep: 'tenant',
      completed: {},
      history: [],
      failure: null,
      provisionedTenantId: null,
      keys: [],
      keysRevealedAt: null,
      keysRevoked: false,
      branding: null,
      revision,
    };
  }
  if (!state) return state;
  const s: DeploymentState = { ...state, revision };
  switch (event.type) {
    case 'deployment.provisioning.requested': {
      const d = event.data;
      s.run = d.run;
      s.runFromStep = d.from_step;
      s.failure = null;
      if (s.status !== 'deactivated') s.status = s.activatedAt !== null ? 'active' : 'pending';
      // A run re-does `from_step` and what follows: forget those results (keys and tenant stay known). Keys,
      // once issued, are never issued again: a new branding run does not touch them.
      const from = STEPS.indexOf(d.from_step);
      s.completed = Object.fromEntries(Object.entries(s.completed).filter(([k]) => STEPS.indexOf(k as Step) < from || k === 'api_keys'));
      s.updatedAt = d.at;
      return s;
    }
    case 'deployment.step.started': {
      const d = event.data;
      if (s.status !== 'deactivated' && s.status !== 'active') s.status = 'provisioning';
      const earlier = s.history.map((h) => (h.run === d.run && h.step === d.step && h.outcome === 'running' ? { ...h, outcome: 'interrupted' as const, finished_at: d.at } : h));
      s.history = [...earlier, { run: d.run, step: d.step, outcome: 'running', started_at: d.at, finished_at: null, code: null, reason: null }];
      s.updatedAt = d.at;
      return s;
    }
    case 'deployment.step.completed': {
      const d = event.data;
      s.completed = { ...s.completed, [d.step]: d.result };
      s.history = finish(s.history, d.run, d.step, { outcome: 'completed', finished_at: d.at, code: null, reason: null });
      const r = d.result;
      if (r.step === 'tenant') s.provisionedTenantId = r.provisioned_tenant_id;
      if (r.step === 'api_keys') s.keys = r.keys;
      if (r.step === 'branding') s.branding = r.branding;
      s.updatedAt = d.at;
      return s;
    }
    case 'deployment.step.failed': {
      const d = event.data;
      s.history = finish(s.history, d.run, d.step, { outcome: 'failed', finished_at: d.at, code: d.code, reason: d.reason });
      if (s.status !== 'deactivated' && d.run === s.run) {
        // An active deployment whose branding change failed stays active (its previous branding is kept).
        if (s.activatedAt === null) s.status = 'failed';
        s.failure = { step: d.step, code: d.code, reason: d.reason, at: d.at };
      }
      s.updatedAt = d.at;
      return s;
    }
    case 'deployment.activated':
      if (s.status !== 'deactivated' && event.data.run === s.run) {
        s.status = 'active';
        s.activatedAt ??= event.data.at;
        s.failure = null;
      }
      s.updatedAt = event.data.at;
      return s;
    case 'deployment.updated': {
      const c = event.data.changes;
      if (c.client_name !== undefined) s.clientName = c.client_name;
      if (c.domain !== undefined) s.domain = c.domain;
      if (c.domain_unicode !== undefined) s.domainUnicode = c.domain_unicode;
      if (c.platform !== undefined) s.platform = c.platform;
      if (c.environment !== undefined) s.environment = c.environment;
      if (c.config !== undefined) s.config = c.config;
      if (c.monthly_credit_cap !== undefined) s.monthlyCreditCap = c.monthly_credit_cap;
      s.updatedAt = event.data.at;
      return s;
    }
    case 'deployment.keys.revealed':
      s.keysRevealedAt = event.data.at;
      return s;
    case 'deployment.deactivated':
      s.status = 'deactivated';
      s.deactivatedAt = event.data.at;
      s.updatedAt = event.data.at;
      return s;
    case 'deployment.keys.revoked':
      s.keysRevoked = true;
      return s;
    default: {
      const never: never = event;
      return never;
    }
  }
}

function finish(history: StepHistoryEntry[], run: number, step: Step, patch: Partial<StepHistoryEntry>): StepHistoryEntry[] {
  let i = history.length - 1;
  while (i >= 0 && !(history[i]!.run === run && history[i]!.step === step && history[i]!.outcome === 'running')) i--;
  if (i < 0) return [...history, { run, step, outcome: 'running', started_at: null, finished_at: null, code: null, reason: null, ...patch }];
  const out = history.slice();
  out[i] = { ...out[i]!, ...patch };
  return out;
}

/** The first step of {@link STEPS} without a result, or null when all are done. */
export function nextStep(state: DeploymentState): Step | null {
  return STEPS.find((s) => !state.completed[s]) ?? null;
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 32);

/**
 * Ids derived from the deployment id, so a step that runs again (retry, restart) finds what it created
 * before instead of creating a second tenant or key: the tenant is `ten_<hash>`, the keys `key_<hash>`.
 */
export const provisionedIds = (deploymentId: string) => ({
  tenantId: `ten_${digest(`deployment-tenant\u0000${deploymentId}`)}`,
  liveKeyId: `key_${digest(`deployment-key\u0000${deploymentId}\u0000live`)}`,
  testKeyId: `key_${digest(`deployment-key\u0000${deploymentId}\u0000test`)}`,
});

/**
 * Stream reserving a `clientId` within its owning tenant (append with `no_stream`, or after a release,
 * with the expected revision): the uniqueness rule holds under concurrent creates.
 */
export const clientIdClaimStream = (ownerTenantId: string, clientId: string) => `deployment-client-${digest(`${ownerTenantId}\u0000${clientId}`)}`;
/**
 * Stream of an owner's deployment slots (`deployment.slot.taken` / `.released`), appended with the expected
 * revision after counting the live ones: the per-plan cap holds under concurrent creates.
 */
export const slotStream = (ownerTenantId: string) => `deployment-slots-${digest(ownerTenantId)}`;
/** Stream reserving a domain across all tenants (one domain selects one branding). */
export const domainClaimStream = (asciiDomain: string) => `deployment-domain-${digest(asciiDomain)}`;
