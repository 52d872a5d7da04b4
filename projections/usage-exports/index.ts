/**
 * The `usage-exports` projection: one document per export (the record `GET /v1/usage/export/{id}`
 * answers), folded from the export events (`domain/usage/exports.ts`).
 */
import type { Collection, ReadModelStore } from '../../infra/ports/read-models.ts';
import type { Projection } from '../projection.ts';
import { EXPORT_EVENT_TYPES, type ExportFormat, type UsageExportEvent } from '../../domain/usage/exports.ts';
import { PRIVACY_TENANT_PROFILE_ERASED, type PrivacyTenantProfileErased } from '../../domain/privacy/offboarding.ts';

export interface ExportDoc extends Record<string, unknown> {
  export_id: string;
  tenant_id: string;
  status: 'processing' | 'completed' | 'failed' | 'expired';
  format: ExportFormat;
  start: string;
  end: string;
  include_details: boolean;
  email_to: string | null;
  /** 0-100. */
  progress: number;
  rows: number;
  bytes: number | null;
  estimated_rows: number;
  blob_key: string | null;
  requested_at: string;
  completed_at: string | null;
  expires_at: string | null;
  error: string | null;
}

export const EXPORTS_COLLECTION = 'usage_exports';
export const exportsCollection = (store: ReadModelStore): Promise<Collection<ExportDoc>> =>
  store.collection<ExportDoc>(EXPORTS_COLLECTION, { indexes: [['tenant_id', 'requested_at']] });

export const usageExportsProjection: Projection = {
  name: 'usage-exports',
  collections: [EXPORTS_COLLECTION],
  eventTypes: [...EXPORT_EVENT_TYPES, PRIVACY_TENANT_PROFILE_ERASED],
  async apply(events, { store }) {
    const c = await exportsCollection(store);
    const docs = await c.getMany(events.filter((e) => e.type !== PRIVACY_TENANT_PROFILE_ERASED).map((e) => (e.data as { export_id: string }).export_id));
    for (const raw of events) {
      if (raw.type === PRIVACY_TENANT_PROFILE_ERASED) {
        // Off-boarding destroyed the tenant's profile key: the exports' e-mail addresses read as erased.
        await c.putMany([...docs]);
        docs.clear();
        const tenantId = (raw.data as PrivacyTenantProfileErased['data']).tenant_id;
        const named = (await c.find({ tenant_id: tenantId })).filter((d) => d.email_to !== null);
        if (named.length) await c.putMany(named.map((d) => [d.export_id, { ...d, email_to: null }] as const));
        continue;
      }
      const e = raw as unknown as UsageExportEvent;
      const id = e.data.export_id;
      if (e.type === 'UsageExportRequested') {
        const d = e.data;
        docs.set(id, {
          export_id: id, tenant_id: d.tenant_id, status: 'processing', format: d.format, start: d.start, end: d.end, include_details: d.include_details, email_to: d.email_to,
          progress: 0, rows: 0, bytes: null, estimated_rows: d.estimated_rows, blob_key: null, requested_at: d.requested_at, completed_at: null, expires_at: null, error: null,
        });
        continue;
      }
      const doc = docs.get(id);
      if (!doc) continue;
      switch (e.type) {
        case 'UsageExportProgressed':
          if (doc.status === 'processing') Object.assign(doc, { progress: e.data.percent, rows: e.data.rows });
          break;
        case 'UsageExportCompleted':
          Object.assign(doc, { status: 'completed', progress: 100, rows: e.data.rows, bytes: e.data.bytes, blob_key: e.data.blob_key, completed_at: e.data.completed_at, expires_at: e.data.expires_at });
          break;
        case 'UsageExportFailed':
          Object.assign(doc, { status: 'failed', error: e.data.reason });
          break;
        case 'UsageExportExpired':
          Object.assign(doc, { status: 'expired', blob_key: null });
          break;
        default: {
          const never: never = e;
          void never;
        }
      }
    }
    await c.putMany([...docs]);
  },
};
