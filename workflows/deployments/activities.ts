import { randomBytes } from 'node:crypto';
import type { BlobStore } from '../../infra/ports/blob-store.ts';
import { WrongExpectedRevisionError, type EventStore } from '../../infra/ports/event-store.ts';
import type { Activity, Clock } from '../../infra/ports/workflows.ts';
import { checkBrandColor } from '../../domain/deployments/contrast.ts';
import {
  deploymentStream,
  evolve,
  provisionedIds,
  type BrandingRecord,
  type DeploymentEvent,
  type DeploymentKeyRef,
  type DeploymentState,
  type Step,
  type StepResult,
} from '../../domain/deployments/deployment.ts';
import { StepFailure } from '../../domain/deployments/errors.ts';
import { formatApiKey, keyHint } from '../../domain/tenancy/api-key.ts';
import { TenancyError, createApiKey, createTenant, revokeApiKey } from '../../domain/tenancy/operations.ts';
import { apiKeyStream } from '../../domain/tenancy/tenancy.ts';
import type { SecretBox } from '../../domain/webhooks/secret-box.ts';
import type { LogoFetcher } from './logo.ts';
import type { ClientCreditAccounts } from './service.ts';

/** Input of `deployments.step` (`step` set), `deployments.activate` (`step` null) and `deployments.recordFailure`. */
export interface StepInput {
  deploymentId: string;
  run: number;
  step: Step | null;
  /** recordFailure only: why the step could not finish. */
  reason?: string;
}

/** What a step activity reports to the process manager. */
export interface StepOutcome {
  /** `superseded`: the deployment moved to another run or was deactivated; this run stops. */
  outcome: 'completed' | 'failed' | 'superseded';
}

/** Permissions of the keys a deployment issues to its client's tenant. */
export const DEPLOYMENT_KEY_PERMISSIONS = ['read', 'write'] as const;

export interface DeploymentActivityDeps {
  eventStore: EventStore;
  blobs: BlobStore;
  /** Seals the issued keys until the admin has seen them (key: `platform.secrets.deploymentSecretKey()`). */
  secrets: SecretBox;
  /** The logo fetcher in use (a getter: tests swap in one that trusts a loopback server). */
  logoFetcher: () => LogoFetcher;
  clock: Clock;
  /** Links the client tenant to its owner's credits (before the tenant exists, so before any key). */
  credits: ClientCreditAccounts;
  /**
   * True once the process is stopping: a step that fails then (its fetch aborted by the shutdown) is not
   * recorded as failed; the activity raises instead, and the run tries the step again (after a restart).
   */
  stopping?: () => boolean;
  logger?: { warn(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
}

/** Loads a deployment's state from its stream (the log is the source of truth). */
export async function loadDeployment(eventStore: EventStore, id: string): Promise<DeploymentState | undefined> {
  const { events } = await eventStore.readStream(deploymentStream(id));
  let s: DeploymentState | undefined;
  for (const e of events) s = evolve(s, { type: e.type, data: e.data } as DeploymentEvent, e.streamRevision);
  return s;
}

/** Blob key of a sealed, not yet revealed key. */
export const sealedKeyBlob = (deploymentId: string, keyId: string) => `deployments/${deploymentId}/keys/${keyId}.sealed`;
/** Blob key of a deployment's logo (content-addressed). */
export const logoBlob = (deploymentId: string, sha256: string) => `deployments/${deploymentId}/logo/${sha256.slice(0, 32)}.png`;

const isDuplicate = (err: unknown) => err instanceof WrongExpectedRevisionError;

/**
 * The side effects of provisioning (Temporal-style `createActivities(deps)`), each idempotent:
 * - `deployments.step` `tenant`: creates the client's tenant on the deployment's plan under an id
 *   derived from the deployment id (`no_stream` append: a second run finds it instead of creating one);
 * - `api_keys`: a live and a test key (read, write) under derived ids. Each key is generated once,
 *   sealed (AES-256-GCM, deployment secret key) into the blob store BEFORE its hash is registered, so a
 *   crash in between re-registers the same key; the sealed copy is deleted once the admin has seen it;
 * - `branding`: fetches the logo once through the SSRF guard, checks and re-encodes it, stores it in the
 *   blob store (content-addressed), and runs the WCAG AA check of the colour;
 * - `deployments.activate`, `deployments.recordFailure`, `deployments.revokeKeys` (deactivation).
 * Every step appends `deployment.step.started` then `.completed` or `.failed`; a step whose result is
 * already recorded for the run is not run again.
 */
export function createDeploymentActivities(deps: DeploymentActivityDeps): Record<string, Activity> {
  const { eventStore, blobs, secrets, clock } = deps;
  const iso = () => new Date(clock.now()).toISOString();

  async function append(s: DeploymentState, event: DeploymentEvent): Promise<void> {
    await eventStore.append(deploymentStream(s.id), [{ ...event, metadata: { tenant_id: s.ownerTenantId } }]);
  }

  async function runTenant(s: DeploymentState): Promise<StepResult> {
    const { tenantId } = provisionedIds(s.id);
    // The client spends its owner's credits (issue 31: each client tenant used to get its own monthly
    // allowance). Linked before the tenant exists, so no call of the client is ever charged elsewhere.
    await deps.credits.link(tenantId, s.ownerTenantId, s.monthlyCreditCap, s.id);
    // A cap changed while this ran (the update found no link yet): the latest one wins.
    const latest = await loadDeployment(eventStore, s.id);
    if (latest) await deps.credits.setCap(tenantId, latest.monthlyCreditCap);
    try {
      await createTenant({ store: eventStore, name: s.clientName, plan: s.plan, tenantId, now: () => clock.now() });
    } catch (err) {
      if (!isDuplicate(err)) throw err; // already created by an earlier try: nothing to do
    }
    return { step: 'tenant', provisioned_tenant_id: tenantId, plan: s.plan };
  }

  async function issueKey(s: DeploymentState, tenantId: string, keyId: string, test: boolean): Promise<DeploymentKeyRef> {
    const permissions = [...DEPLOYMENT_KEY_PERMISSIONS];
    const existing = await eventStore.readStream(apiKeyStream(keyId), { maxCount: 1 });
    const created = existing.events[0]?.data as { hint?: string } | undefined;
    if (created?.hint) return { key_id: keyId, hint: created.hint, test, permissions };
    const blobKey = sealedKeyBlob(s.id, keyId);
    let key: string;
    const sealed = await blobs.get(blobKey);
    if (sealed) key = secrets.open(sealed.toString('utf8'), keyId);
    else {
      key = formatApiKey(randomBytes(32), test);
      await blobs.put(blobKey, Buffer.from(secrets.seal(key, keyId), 'utf8'), { contentType: 'application/octet-stream' });
    }
    try {
      await createApiKey({ store: eventStore, tenantId, permissions, test, key, keyId, name: `deployment ${s.clientId} (${test ? 'test' : 'live'})`, now: () => clock.now() });
    } catch (err) {
      if (!isDuplicate(err)) throw err;
    }
    return { key_id: keyId, hint: keyHint(key), test, permissions };
  }

  async function runKeys(s: DeploymentState): Promise<StepResult> {
    const ids = provisionedIds(s.id);
    const tenantId = s.provisionedTenantId ?? ids.tenantId;
    const keys = [await issueKey(s, tenantId, ids.liveKeyId, false), await issueKey(s, tenantId, ids.testKeyId, true)];
    return { step: 'api_keys', keys };
  }

  async function runBranding(s: DeploymentState): Promise<StepResult> {
    const logo = await deps.logoFetcher().fetch(s.config.logo);
    const blob = logoBlob(s.id, logo.sha256);
    await blobs.put(blob, logo.png, { contentType: 'image/png' });
    const contrast = checkBrandColor(s.config.primaryColor);
    const branding: BrandingRecord = {
      company_name: s.config.companyName,
      primary_color: contrast.effective,
      text_color: contrast.text,
      contrast,
      logo_blob: blob,
      logo_sha256: logo.sha256,
      logo_width: logo.width,
      logo_height: logo.height,
      logo_source_type: logo.sourceType,
      logo_source_url: s.config.logo,
      logo_bytes: logo.sourceBytes,
    };
    return { step: 'branding', branding };
  }

  const step: Activity = async (input: StepInput): Promise<StepOutcome> => {
    const s = await loadDeployment(eventStore, input.deploymentId);
    const stepName = input.step!;
    if (!s || s.run !== input.run || s.status === 'deactivated') return { outcome: 'superseded' };
    if (s.completed[stepName]) return { outcome: 'completed' };
    const base = { deployment_id: s.id, tenant_id: s.ownerTenantId, run: input.run, step: stepName };
    await append(s, { type: 'deployment.step.started', data: { ...base, at: iso() } });
    let result: StepResult;
    try {
      result = stepName === 'tenant' ? await runTenant(s) : stepName === 'api_keys' ? await runKeys(s) : await runBranding(s);
    } catch (err) {
      if (deps.stopping?.()) throw new Error(`the ${stepName} step was interrupted by a shutdown`);
      const failure =
        err instanceof StepFailure ? err : new StepFailure('internal', `the ${stepName} step failed unexpectedly; retry, or contact the operator if it persists`);
      if (!(err instanceof StepFailure)) deps.logger?.error({ err, deploymentId: s.id, step: stepName }, 'deployments: step failed unexpectedly');
      await append(s, { type: 'deployment.step.failed', data: { ...base, at: iso(), code: failure.code, reason: failure.message } });
      return { outcome: 'failed' };
    }
    await append(s, { type: 'deployment.step.completed', data: { ...base, at: iso(), result } });
    if (stepName === 'api_keys') {
      // Deactivated while the keys were being issued: the deactivation may have missed them.
      const after = await loadDeployment(eventStore, s.id);
      if (after?.status === 'deactivated') await revokeKeys({ deploymentId: s.id });
    }
    return { outcome: 'completed' };
  };

  const activate: Activity = async (input: StepInput): Promise<StepOutcome> => {
    const s = await loadDeployment(eventStore, input.deploymentId);
    if (!s || s.run !== input.run || s.status === 'deactivated') return { outcome: 'superseded' };
    await append(s, { type: 'deployment.activated', data: { deployment_id: s.id, tenant_id: s.ownerTenantId, run: input.run, at: iso() } });
    return { outcome: 'completed' };
  };

  const recordFailure: Activity = async (input: StepInput) => {
    const s = await loadDeployment(eventStore, input.deploymentId);
    if (!s || s.run !== input.run || s.status === 'deactivated') return null;
    await append(s, {
      type: 'deployment.step.failed',
      data: {
        deployment_id: s.id,
        tenant_id: s.ownerTenantId,
        run: input.run,
        step: input.step ?? 'branding',
        at: iso(),
        code: 'internal',
        reason: `the ${input.step} step could not finish after several tries; retry, or contact the operator if it persists`,
      },
    });
    return null;
  };

  async function revokeKeys(input: { deploymentId: string }): Promise<null> {
    const s = await loadDeployment(eventStore, input.deploymentId);
    if (!s) return null;
    const ids = provisionedIds(s.id);
    const revoked: string[] = [];
    for (const keyId of [ids.liveKeyId, ids.testKeyId]) {
      try {
        await revokeApiKey({ store: eventStore, keyId, now: () => clock.now() });
        revoked.push(keyId);
      } catch (err) {
        if (err instanceof TenancyError && (err.code === 'unknown_key' || err.code === 'already_revoked')) continue;
        throw err;
      }
      await blobs.delete(sealedKeyBlob(s.id, keyId));
    }
    if (!s.keysRevoked || revoked.length > 0) {
      await append(s, { type: 'deployment.keys.revoked', data: { deployment_id: s.id, tenant_id: s.ownerTenantId, key_ids: revoked, at: iso() } });
    }
    return null;
  }

  return {
    'deployments.step': step,
    'deployments.activate': activate,
    'deployments.recordFailure': recordFailure,
    'deployments.revokeKeys': revokeKeys,
  };
}
