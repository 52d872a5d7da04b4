import { randomUUID } from 'node:crypto';
import type { BlobStore } from '../../infra/ports/blob-store.ts';
import { WrongExpectedRevisionError, type EventStore } from '../../infra/ports/event-store.ts';
import type { ReadModelStore } from '../../infra/ports/read-models.ts';
import type { Clock } from '../../infra/ports/workflows.ts';
import {
  STEPS,
  clientIdClaimStream,
  deploymentStream,
  domainClaimStream,
  provisionedIds,
  slotStream,
  type DeploymentConfig,
  type DeploymentCreatedData,
  type DeploymentEvent,
  type DeploymentState,
  type DeploymentStatus,
  type StepHistoryEntry,
} from '../../domain/deployments/deployment.ts';
import { DeploymentError } from '../../domain/deployments/errors.ts';
import { checkClientId, checkLogoUrl, checkText, normalizeDomain, normalizeHexColor } from '../../domain/deployments/validate.ts';
import type { ContrastCheck } from '../../domain/deployments/contrast.ts';
import { PLANS, planAbove, type PlanName } from '../../domain/plans/plans.ts';
import type { SecretBox } from '../../domain/webhooks/secret-box.ts';
import { deploymentsCollection } from '../../projections/deployments/index.ts';
import { loadDeployment, sealedKeyBlob } from './activities.ts';

/** Body of `POST /api/deployments/create` after schema validation (spec "Deployment request fields"). */
export interface CreateDeploymentInput {
  clientId: string;
  clientName: string;
  domain: string;
  platform: string;
  environment: string;
  plan?: PlanName;
  /** Credits per UTC month the client may spend of the owner's credits (null or absent = no cap). */
  monthlyCreditCap?: number | null;
  config: { primaryColor: string; logo: string; companyName: string };
}

/** Body of `PUT /api/deployments/{id}`: every field optional; `config` fields merge into the current config. */
export interface UpdateDeploymentInput {
  clientName?: string;
  domain?: string;
  platform?: string;
  environment?: string;
  /** A new monthly cap (null removes it); applies to the client's next call. */
  monthlyCreditCap?: number | null;
  config?: Partial<DeploymentConfig>;
}

/**
 * The credit ledger as the deployments context uses it (`CreditLedger` in domain/credits): a client tenant
 * is linked to its owner's credits with a monthly cap, and the cap changed; `snapshot` tells a client
 * tenant (it has `billedTo`) from one that pays its own.
 */
export interface ClientCreditAccounts {
  link(clientTenantId: string, payerTenantId: string, monthlyCap: number | null, deploymentId: string): Promise<boolean>;
  setCap(clientTenantId: string, monthlyCap: number | null): Promise<boolean>;
  snapshot(tenantId: string): Promise<{ billedTo: string | null }>;
}

/** A key in the record; `key` is the secret, present once (the first status read after it was issued). */
export interface ApiKeyView {
  key_id: string;
  hint: string;
  test: boolean;
  permissions: string[];
  key?: string;
}

/** The deployment record answered by every endpoint (docs/deployments.md). */
export interface DeploymentRecord {
  id: string;
  clientId: string;
  clientName: string;
  domain: string;
  domain_unicode: string;
  platform: string;
  environment: string;
  plan: PlanName;
  config: DeploymentConfig;
  monthlyCreditCap: number | null;
  status: DeploymentStatus;
  created_at: string;
  updated_at: string;
  activated_at: string | null;
  deactivated_at: string | null;
  provisioned_tenant_id: string | null;
  api_keys: ApiKeyView[];
  api_keys_revealed_at: string | null;
  run: number;
  steps: StepHistoryEntry[];
  failure: { step: string; code: string; reason: string; at: string } | null;
  branding: {
    company_name: string;
    primary_color: string;
    text_color: string;
    logo_url: string;
    logo_width: number;
    logo_height: number;
    contrast: ContrastCheck;
  } | null;
}

/** The public path of a deployment's logo (served by `GET /api/deployments/{id}/logo`). */
export const logoPath = (deploymentId: string) => `/api/deployments/${deploymentId}/logo`;

export function toRecord(s: DeploymentState, revealed?: Map<string, string>): DeploymentRecord {
  return {
    id: s.id,
    clientId: s.clientId,
    clientName: s.clientName,
    domain: s.domain,
    domain_unicode: s.domainUnicode,
    platform: s.platform,
    environment: s.environment,
    plan: s.plan,
    config: s.config,
    monthlyCreditCap: s.monthlyCreditCap,
    status: s.status,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
    activated_at: s.activatedAt,
    deactivated_at: s.deactivatedAt,
    provisioned_tenant_id: s.provisionedTenantId,
    api_keys: s.keys.map((k) => ({ ...k, ...(revealed?.has(k.key_id) ? { key: revealed.get(k.key_id)! } : {}) })),
    api_keys_revealed_at: s.keysRevealedAt,
    run: s.run,
    steps: s.history,
    failure: s.failure,
    branding: s.branding
      ? {
          company_name: s.branding.company_name,
          primary_color: s.branding.primary_color,
          text_color: s.branding.text_color,
          logo_url: logoPath(s.id),
          logo_width: s.branding.logo_width,
          logo_height: s.branding.logo_height,
          contrast: s.branding.contrast,
        }
      : null,
  };
}

export interface DeploymentService {
  /**
   * Records a deployment of `ownerTenantId`, whose own plan is `ownerPlan`: the client's plan is `input.plan`,
   * else `basic` (or the owner's plan when that is lower); never above the owner's.
   * @throws DeploymentError `plan_not_allowed` (a plan above the owner's), the validation codes, `client_id_taken`, `domain_taken`
   */
  create(ownerTenantId: string, input: CreateDeploymentInput, ownerPlan: PlanName): Promise<DeploymentRecord>;
  list(ownerTenantId: string, q: { page: number; per_page: number; status?: DeploymentStatus }): Promise<{ data: DeploymentRecord[]; pagination: { page: number; per_page: number; total: number; total_pages: number } }>;
  /** The record; the first read after the keys were issued carries their secrets (then never again). @throws `deployment_not_found`. */
  status(ownerTenantId: string, id: string): Promise<DeploymentRecord>;
  /** @throws `deployment_not_found`, `invalid_state`, validation codes, `domain_taken`. */
  update(ownerTenantId: string, id: string, input: UpdateDeploymentInput): Promise<DeploymentRecord>;
  /** @throws `deployment_not_found`, `invalid_state` (nothing failed). */
  retry(ownerTenantId: string, id: string): Promise<DeploymentRecord>;
  /** Idempotent. @throws `deployment_not_found`. */
  deactivate(ownerTenantId: string, id: string): Promise<DeploymentRecord>;
  /** The stored PNG logo of a live deployment with branding, or null. */
  logo(id: string): Promise<Buffer | null>;
}

export interface DeploymentServiceDeps {
  eventStore: EventStore;
  readModels: ReadModelStore;
  blobs: BlobStore;
  secrets: SecretBox;
  clock: Clock;
  catchUp: () => Promise<void>;
  credits: ClientCreditAccounts;
}

type SlotEvent = { type: 'deployment.slot.taken' | 'deployment.slot.released'; data: { deployment_id: string }; recordedAt: string };

type ClaimEvent = { type: 'deployment.claim.taken' | 'deployment.claim.released'; data: { deployment_id: string } };

export function createDeploymentService(deps: DeploymentServiceDeps): DeploymentService {
  const { eventStore, blobs, secrets, clock } = deps;
  const iso = () => new Date(clock.now()).toISOString();

  async function owned(ownerTenantId: string, id: string): Promise<DeploymentState> {
    const s = /^dep_[0-9a-f]{32}$/.test(id) ? await loadDeployment(eventStore, id) : undefined;
    // Another tenant's deployment answers exactly like a missing one.
    if (!s || s.ownerTenantId !== ownerTenantId) throw new DeploymentError('deployment_not_found', `no deployment ${id}`, { deployment_id: id });
    return s;
  }

  /**
   * Takes a uniqueness claim (clientId per owner, domain overall) for `deploymentId`. A claim held by a
   * deployment that is deactivated, or was never written (a crash between claim and creation), is free.
   */
  async function claim(stream: string, deploymentId: string, onTaken: (holder: string) => DeploymentError): Promise<void> {
    for (let i = 0; i < 5; i++) {
      const { events, currentRevision } = await eventStore.readStream(stream);
      const last = events.at(-1) as unknown as ClaimEvent | undefined;
      if (last?.type === 'deployment.claim.taken' && last.data.deployment_id !== deploymentId) {
        const holder = await loadDeployment(eventStore, last.data.deployment_id);
        if (holder && holder.status !== 'deactivated') throw onTaken(holder.id);
        // A fresh claim whose deployment is not written yet belongs to a create still in flight.
        const claimedAt = Date.parse((events.at(-1) as { recordedAt: string }).recordedAt);
        if (!holder && clock.now() - claimedAt < 60_000) throw onTaken(last.data.deployment_id);
      }
      if (last?.type === 'deployment.claim.taken' && last.data.deployment_id === deploymentId) return;
      try {
        await eventStore.append(stream, [{ type: 'deployment.claim.taken', data: { deployment_id: deploymentId } }], { expectedRevision: currentRevision ?? 'no_stream' });
        return;
      } catch (err) {
        if (!(err instanceof WrongExpectedRevisionError)) throw err;
      }
    }
    throw new Error(`deployments: claim ${stream} kept changing`);
  }

  async function release(stream: string, deploymentId: string): Promise<void> {
    const { events, currentRevision } = await eventStore.readStream(stream);
    const last = events.at(-1) as unknown as ClaimEvent | undefined;
    if (last?.type !== 'deployment.claim.taken' || last.data.deployment_id !== deploymentId) return;
    try {
      await eventStore.append(stream, [{ type: 'deployment.claim.released', data: { deployment_id: deploymentId } }], { expectedRevision: currentRevision! });
    } catch (err) {
      if (!(err instanceof WrongExpectedRevisionError)) throw err; // someone else took it meanwhile: fine
    }
  }


  /**
   * Takes one of the owner's deployment slots for `deploymentId`, refused past the plan's cap
   * (`PLANS[plan].deployments`, live deployments: not deactivated; a slot whose deployment was never written
   * is live for 60 s, the time a create takes at most). The slot stream is appended with the revision the
   * count was made at, so concurrent creates cannot exceed the cap.
   * @throws DeploymentError `deployment_limit_reached`
   */
  async function takeSlot(ownerTenantId: string, plan: PlanName, deploymentId: string): Promise<void> {
    const limit = PLANS[plan].deployments;
    for (let i = 0; i < 20; i++) {
      const { events, currentRevision } = await eventStore.readStream(slotStream(ownerTenantId));
      const held = new Map<string, string>();
      for (const e of events as unknown as SlotEvent[]) {
        if (e.type === 'deployment.slot.taken') held.set(e.data.deployment_id, e.recordedAt);
        else held.delete(e.data.deployment_id);
      }
      if (limit !== null) {
        let live = 0;
        for (const [id, at] of held) {
          const d = await loadDeployment(eventStore, id);
          if (d ? d.status !== 'deactivated' : clock.now() - Date.parse(at) < 60_000) live++;
        }
        if (live >= limit) {
          throw new DeploymentError('deployment_limit_reached', `Your plan (${plan}) allows ${limit} live deployment${limit === 1 ? '' : 's'}; deactivate one or upgrade your plan`, { limit, live, plan });
        }
      }
      try {
        await eventStore.append(slotStream(ownerTenantId), [{ type: 'deployment.slot.taken', data: { deployment_id: deploymentId }, metadata: { tenant_id: ownerTenantId } }], {
          expectedRevision: currentRevision ?? 'no_stream',
        });
        return;
      } catch (err) {
        if (!(err instanceof WrongExpectedRevisionError)) throw err;
        await new Promise((r) => setTimeout(r, Math.random() * 10));
      }
    }
    throw new Error('deployments: the slot stream kept changing');
  }

  async function releaseSlot(ownerTenantId: string, deploymentId: string): Promise<void> {
    await eventStore.append(slotStream(ownerTenantId), [{ type: 'deployment.slot.released', data: { deployment_id: deploymentId }, metadata: { tenant_id: ownerTenantId } }]);
  }

  async function append(s: DeploymentState, events: DeploymentEvent[]): Promise<void> {
    await eventStore.append(deploymentStream(s.id), events.map((e) => ({ ...e, metadata: { tenant_id: s.ownerTenantId } })), { expectedRevision: s.revision });
  }

  function validateConfig(c: { primaryColor: string; logo: string; companyName: string }): DeploymentConfig {
    return { primaryColor: normalizeHexColor(c.primaryColor), logo: checkLogoUrl(c.logo), companyName: checkText(c.companyName, 'config.companyName', 100) };
  }

  return {
    async create(ownerTenantId, input, ownerPlan) {
      // A client tenant on a plan above its owner's would be credits and limits for nothing (an Enterprise
      // client is unlimited): refused before anything is claimed.
      const plan = input.plan ?? (planAbove('basic', ownerPlan) ? ownerPlan : 'basic');
      if (planAbove(plan, ownerPlan)) {
        throw new DeploymentError('plan_not_allowed', `A deployment's plan cannot be above your own plan (${ownerPlan})`, { field: 'plan', plan, your_plan: ownerPlan });
      }
      const clientId = checkClientId(input.clientId);
      const clientName = checkText(input.clientName, 'clientName', 200);
      const domain = normalizeDomain(input.domain);
      const config = validateConfig(input.config);
      const monthlyCreditCap = input.monthlyCreditCap ?? null;
      // A client tenant spends its owner's credits; its own clients would spend them too, unseen: refused.
      if ((await deps.credits.snapshot(ownerTenantId)).billedTo) {
        throw new DeploymentError('deployment_limit_reached', 'A white-label client cannot create deployments of its own', { limit: 0, live: 0, plan: ownerPlan });
      }
      const id = `dep_${randomUUID().replace(/-/g, '')}`;
      await takeSlot(ownerTenantId, ownerPlan, id);
      try {
        await claim(clientIdClaimStream(ownerTenantId, clientId), id, (holder) =>
          new DeploymentError('client_id_taken', `clientId ${clientId} is already used by deployment ${holder}`, { field: 'clientId', deployment_id: holder }),
        );
        await claim(domainClaimStream(domain.ascii), id, (holder) => {
          void holder; // another tenant's deployment id is not disclosed
          return new DeploymentError('domain_taken', `domain ${domain.ascii} is already served by another deployment`, { field: 'domain', domain: domain.ascii });
        }).catch(async (err) => {
          await release(clientIdClaimStream(ownerTenantId, clientId), id);
          throw err;
        });
      } catch (err) {
        await releaseSlot(ownerTenantId, id);
        throw err;
      }
      const at = iso();
      const data: DeploymentCreatedData = {
        deployment_id: id,
        tenant_id: ownerTenantId,
        client_id: clientId,
        client_name: clientName,
        domain: domain.ascii,
        domain_unicode: domain.unicode,
        platform: input.platform,
        environment: input.environment,
        plan,
        config,
        monthly_credit_cap: monthlyCreditCap,
        created_at: at,
      };
      await eventStore.append(
        deploymentStream(id),
        [
          { type: 'deployment.created', data, metadata: { tenant_id: ownerTenantId } },
          {
            type: 'deployment.provisioning.requested',
            data: { deployment_id: id, tenant_id: ownerTenantId, run: 1, reason: 'created', from_step: STEPS[0], at },
            metadata: { tenant_id: ownerTenantId },
          },
        ],
        { expectedRevision: 'no_stream' },
      );
      return toRecord((await loadDeployment(eventStore, id))!);
    },

    async list(ownerTenantId, q) {
      await deps.catchUp();
      const docs = await deploymentsCollection(deps.readModels);
      const filter = { tenant_id: ownerTenantId, ...(q.status ? { status: q.status } : {}) };
      const [total, page] = await Promise.all([
        docs.count(filter),
        docs.find(filter, { sort: [{ field: 'created_at', order: 'desc' }, { field: 'id', order: 'asc' }], limit: q.per_page, offset: (q.page - 1) * q.per_page }),
      ]);
      return {
        data: page.map((d) => toRecord(d.state)),
        pagination: { page: q.page, per_page: q.per_page, total, total_pages: Math.ceil(total / q.per_page) },
      };
    },

    async status(ownerTenantId, id) {
      for (let i = 0; i < 5; i++) {
        const s = await owned(ownerTenantId, id);
        if (s.keys.length === 0 || s.keysRevealedAt !== null || s.keysRevoked) return toRecord(s);
        const revealed = new Map<string, string>();
        for (const k of s.keys) {
          const sealed = await blobs.get(sealedKeyBlob(s.id, k.key_id));
          if (sealed) revealed.set(k.key_id, secrets.open(sealed.toString('utf8'), k.key_id));
        }
        if (revealed.size === 0) return toRecord(s);
        // Exactly one reader reveals: the append expects the revision it read.
        try {
          await append(s, [{ type: 'deployment.keys.revealed', data: { deployment_id: s.id, tenant_id: s.ownerTenantId, key_ids: [...revealed.keys()], at: iso() } }]);
        } catch (err) {
          if (err instanceof WrongExpectedRevisionError) continue;
          throw err;
        }
        for (const keyId of revealed.keys()) await blobs.delete(sealedKeyBlob(s.id, keyId));
        return toRecord((await loadDeployment(eventStore, id))!, revealed);
      }
      return toRecord(await owned(ownerTenantId, id));
    },

    async update(ownerTenantId, id, input) {
      const s = await owned(ownerTenantId, id);
      if (s.status === 'deactivated') throw new DeploymentError('invalid_state', 'a deactivated deployment cannot be changed', { status: s.status });
      const changes: Extract<DeploymentEvent, { type: 'deployment.updated' }>['data']['changes'] = {};
      if (input.clientName !== undefined) changes.client_name = checkText(input.clientName, 'clientName', 200);
      if (input.platform !== undefined) changes.platform = input.platform;
      if (input.environment !== undefined) changes.environment = input.environment;
      if (input.monthlyCreditCap !== undefined && input.monthlyCreditCap !== s.monthlyCreditCap) changes.monthly_credit_cap = input.monthlyCreditCap;
      let newDomain: string | null = null;
      if (input.domain !== undefined) {
        const d = normalizeDomain(input.domain);
        if (d.ascii !== s.domain) {
          newDomain = d.ascii;
          changes.domain = d.ascii;
          changes.domain_unicode = d.unicode;
        }
      }
      let rebrand = false;
      if (input.config !== undefined) {
        const merged = validateConfig({ ...s.config, ...input.config });
        if (JSON.stringify(merged) !== JSON.stringify(s.config)) {
          changes.config = merged;
          rebrand = true;
        }
      }
      if (rebrand && (s.status === 'pending' || s.status === 'provisioning')) {
        throw new DeploymentError('invalid_state', 'branding cannot change while provisioning runs; change it once the deployment is active or failed', { status: s.status });
      }
      if (Object.keys(changes).length === 0) return toRecord(s);
      if (newDomain) {
        await claim(domainClaimStream(newDomain), s.id, () => new DeploymentError('domain_taken', `domain ${newDomain} is already served by another deployment`, { field: 'domain', domain: newDomain }));
      }
      const at = iso();
      const events: DeploymentEvent[] = [{ type: 'deployment.updated', data: { deployment_id: s.id, tenant_id: s.ownerTenantId, at, changes } }];
      if (rebrand) {
        // A new run from the branding step (or from the failed step, when an earlier one failed).
        const from = s.failure && STEPS.indexOf(s.failure.step as (typeof STEPS)[number]) < STEPS.indexOf('branding') ? s.failure.step : 'branding';
        events.push({ type: 'deployment.provisioning.requested', data: { deployment_id: s.id, tenant_id: s.ownerTenantId, run: s.run + 1, reason: 'updated', from_step: from as (typeof STEPS)[number], at } });
      }
      try {
        await append(s, events);
      } catch (err) {
        if (newDomain) await release(domainClaimStream(newDomain), s.id);
        if (err instanceof WrongExpectedRevisionError) throw new DeploymentError('invalid_state', 'the deployment changed meanwhile; read it again and retry', { status: s.status });
        throw err;
      }
      if (newDomain) await release(domainClaimStream(s.domain), s.id);
      // The client's next call sees the new cap (not linked yet: the tenant step links with the latest cap).
      if (changes.monthly_credit_cap !== undefined) await deps.credits.setCap(provisionedIds(s.id).tenantId, changes.monthly_credit_cap);
      return toRecord((await loadDeployment(eventStore, id))!);
    },

    async retry(ownerTenantId, id) {
      const s = await owned(ownerTenantId, id);
      if (s.status === 'deactivated' || !s.failure) {
        throw new DeploymentError('invalid_state', 'only a deployment whose provisioning failed can be retried', { status: s.status });
      }
      const at = iso();
      try {
        await append(s, [
          { type: 'deployment.provisioning.requested', data: { deployment_id: s.id, tenant_id: s.ownerTenantId, run: s.run + 1, reason: 'retry', from_step: s.failure.step as (typeof STEPS)[number], at } },
        ]);
      } catch (err) {
        if (err instanceof WrongExpectedRevisionError) throw new DeploymentError('invalid_state', 'the deployment changed meanwhile; read it again', { status: s.status });
        throw err;
      }
      return toRecord((await loadDeployment(eventStore, id))!);
    },

    async deactivate(ownerTenantId, id) {
      for (let i = 0; i < 5; i++) {
        const s = await owned(ownerTenantId, id);
        if (s.status === 'deactivated') return toRecord(s);
        try {
          await append(s, [{ type: 'deployment.deactivated', data: { deployment_id: s.id, tenant_id: s.ownerTenantId, at: iso() } }]);
        } catch (err) {
          if (err instanceof WrongExpectedRevisionError) continue;
          throw err;
        }
        await release(clientIdClaimStream(s.ownerTenantId, s.clientId), s.id);
        await release(domainClaimStream(s.domain), s.id);
        await releaseSlot(s.ownerTenantId, s.id);
        return toRecord((await loadDeployment(eventStore, id))!);
      }
      throw new Error('deployments: deactivation kept conflicting');
    },

    async logo(id) {
      if (!/^dep_[0-9a-f]{32}$/.test(id)) return null;
      await deps.catchUp();
      const doc = await (await deploymentsCollection(deps.readModels)).get(id);
      if (!doc || doc.status === 'deactivated' || !doc.state.branding) return null;
      return blobs.get(doc.state.branding.logo_blob);
    },
  };
}
