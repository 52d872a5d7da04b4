/**
 * Retention and off-boarding use cases bound to the platform's ports (docs/privacy.md, "Retention" and
 * "Tenant off-boarding"): the daily sweep's activity, the signing documents' part of a sweep, and the
 * off-boarding's dependencies.
 */
import { randomUUID } from 'node:crypto';
import type { BlobStore } from '../../infra/ports/blob-store.ts';
import type { EventStore } from '../../infra/ports/event-store.ts';
import type { ReadModelStore } from '../../infra/ports/read-models.ts';
import { bindProcessManager, type RegisteredProcessManager, type WorkflowEngine } from '../../infra/ports/workflows.ts';
import type { ErasureDeps } from '../../domain/privacy/erasure.ts';
import { destroyAnonymousUsageDayKeys, sweepTenant, type RetentionDeps, type SigningRetentionPort, type SweepItem } from '../../domain/privacy/retention.ts';
import type { OffboardingDeps } from '../../domain/privacy/offboarding.ts';
import { PLANS, type PlanName } from '../../domain/plans/plans.ts';
import { revokeApiKey, TenancyError } from '../../domain/tenancy/operations.ts';
import { tenantsCollection } from '../../projections/tenants/tenants.ts';
import { apiKeysCollection } from '../../projections/api-keys/api-keys.ts';
import { signingDocuments } from '../../projections/signing/index.ts';
import { RETENTION_ACTIVITIES, RETENTION_WORKFLOW, retentionProcess } from './process.ts';

/** What the retention runtime is built from. */
export interface PrivacyRetentionPorts {
  erasure: ErasureDeps;
  events: EventStore;
  readModels: ReadModelStore;
  blobs: BlobStore;
  /** The workflow engine, asked for only when the sweep starts (a CLI process off-boarding a tenant never opens it). */
  engine: () => WorkflowEngine;
  /** The sweep's workflow id (`retentionWorkflowId`). */
  workflowId: string;
  /** Deletes a signing document and its files (the signing service's `remove`). */
  removeSigningDocument(tenantId: string, documentId: string): Promise<void>;
  log: { error(obj: unknown, msg: string): void };
}

/** The retention runtime: sweep, off-boarding deps and the workflow registration. */
export interface PrivacyRetention {
  retention: RetentionDeps;
  offboarding: OffboardingDeps;
  /** Sweeps every tenant now; a tenant whose sweep fails is logged and retried next time. */
  sweepAll(): Promise<{ tenants: number; items: SweepItem[] }>;
  processManagers: RegisteredProcessManager[];
  /** The sweep's workflow id. */
  workflowId: string;
  /** Starts the daily sweep workflow (idempotent). */
  start(): Promise<void>;
}

const planOf = (p: unknown): PlanName => (typeof p === 'string' && p in PLANS ? (p as PlanName) : 'free');

/** Builds the runtime (see {@link PrivacyRetention}). */
export function createPrivacyRetention(ports: PrivacyRetentionPorts): PrivacyRetention {
  const docs = () => signingDocuments(ports.readModels);
  const signing: SigningRetentionPort = {
    async endedDocuments(tenantId) {
      const out: Array<{ documentId: string; endedAt: string; finalized: boolean }> = [];
      for (const d of await (await docs()).find({ tenant_id: tenantId, deleted: false })) {
        const st = d.state as unknown as { status: string; finalized_at: string | null };
        if (st.finalized_at) out.push({ documentId: d.id, endedAt: st.finalized_at, finalized: true });
        else if (st.status === 'expired' || st.status === 'cancelled') out.push({ documentId: d.id, endedAt: d.updated_at, finalized: false });
      }
      return out;
    },
    async deleteWorkingFiles(tenantId, documentId) {
      let n = 0;
      for (const key of await ports.blobs.list(`signing/${tenantId}/${documentId}/`)) {
        if (key.slice(key.lastIndexOf('/') + 1).startsWith('final-')) continue;
        if (await ports.blobs.delete(key)) n += 1;
      }
      return n;
    },
    deleteDocument: (tenantId, documentId) => ports.removeSigningDocument(tenantId, documentId),
  };
  const retention: RetentionDeps = { erasure: ports.erasure, blobs: ports.blobs, readModels: ports.readModels, signing };
  const offboarding: OffboardingDeps = {
    erasure: ports.erasure,
    blobs: ports.blobs,
    readModels: ports.readModels,
    async signingDocuments(tenantId) {
      return (await (await docs()).find({ tenant_id: tenantId, deleted: false })).map((d) => d.id);
    },
    deleteSigningDocument: (tenantId, documentId) => ports.removeSigningDocument(tenantId, documentId),
    async activeKeys(tenantId) {
      return (await (await apiKeysCollection(ports.readModels)).find({ tenant_id: tenantId, status: 'active' })).map((k) => k.id);
    },
    async revokeKey(tenantId, keyId) {
      try {
        await revokeApiKey({ store: ports.events, keyId, tenantId, now: () => ports.erasure.now() });
      } catch (error) {
        if (!(error instanceof TenancyError && error.code === 'already_revoked')) throw error;
      }
    },
    newId: () => `off_${randomUUID().replace(/-/g, '')}`,
  };

  async function sweepAll() {
    const tenants = await (await tenantsCollection(ports.readModels)).find({});
    const items: SweepItem[] = [];
    for (const t of tenants) {
      try {
        items.push(...(await sweepTenant(retention, t.id, planOf(t.plan), ports.erasure.now())));
      } catch (error) {
        ports.log.error({ err: error, tenant_id: t.id }, 'retention sweep of a tenant failed; retried at the next sweep');
      }
    }
    try {
      // Calls without a tenant: their usage keys, on the Free plan's period.
      const days = await destroyAnonymousUsageDayKeys(retention.erasure, ports.erasure.now());
      if (days) items.push({ kind: 'usage_ip_days', count: days });
    } catch (error) {
      ports.log.error({ err: error }, 'retention sweep of calls without a tenant failed; retried at the next sweep');
    }
    return { tenants: tenants.length, items };
  }

  return {
    retention,
    offboarding,
    sweepAll,
    processManagers: [bindProcessManager(retentionProcess, { [RETENTION_ACTIVITIES.sweep]: () => sweepAll() })],
    workflowId: ports.workflowId,
    async start() {
      await ports.engine().start(RETENTION_WORKFLOW, ports.workflowId, {}, { summary: 'Daily sweep of every tenant\'s personal-data retention periods' });
    },
  };
}
