import type { RecordedEvent } from '../../infra/ports/event-store.ts';
import type { Collection, ReadModelStore } from '../../infra/ports/read-models.ts';
import type { TenancyEvent } from '../../domain/tenancy/tenancy.ts';
import type { CreditEvent } from '../../domain/credits/credits.ts';
import type { Projection } from '../projection.ts';
import { PRIVACY_TENANT_PROFILE_ERASED, type PrivacyTenantProfileErased } from '../../domain/privacy/offboarding.ts';

/** A tenant with its plan, limit overrides and credit totals (for operators and usage reports). */
export interface TenantRecord extends Record<string, unknown> {
  id: string;
  name: string;
  plan: string;
  created_at: string;
  requests_per_minute: number | null | 'plan';
  concurrent_requests: number | null | 'plan';
  total_purchased: number;
  total_used: number;
}

export const TENANTS_COLLECTION = 'tenants';
export const tenantsCollection = (store: ReadModelStore): Promise<Collection<TenantRecord>> => store.collection<TenantRecord>(TENANTS_COLLECTION);

export const tenantsProjection: Projection = {
  name: 'tenants',
  collections: [TENANTS_COLLECTION],
  eventTypes: ['TenantCreated', 'TenantPlanChanged', 'TenantLimitsSet', 'CreditsPurchased', 'CreditsCommitted', PRIVACY_TENANT_PROFILE_ERASED],
  async apply(events: readonly RecordedEvent[], { store }) {
    const c = await tenantsCollection(store);
    for (const raw of events) {
      if (raw.type === PRIVACY_TENANT_PROFILE_ERASED) {
        // Off-boarding destroyed the tenant's profile key: its name reads as erased (as `TenantCreated` on replay).
        const id = (raw.data as PrivacyTenantProfileErased['data']).tenant_id;
        const t = await c.get(id);
        if (t) await c.put(id, { ...t, name: '[erased]' });
        continue;
      }
      const e = raw as unknown as TenancyEvent | CreditEvent;
      if (e.type === 'TenantCreated') {
        await c.put(e.data.tenant_id, {
          id: e.data.tenant_id,
          name: e.data.name,
          plan: e.data.plan,
          created_at: e.data.created_at,
          requests_per_minute: 'plan',
          concurrent_requests: 'plan',
          total_purchased: 0,
          total_used: 0,
        });
        continue;
      }
      if (e.type === 'ApiKeyCreated' || e.type === 'ApiKeyRevoked') continue;
      const t = await c.get(e.data.tenant_id);
      if (!t) continue;
      switch (e.type) {
        case 'TenantPlanChanged':
          t.plan = e.data.plan;
          break;
        case 'TenantLimitsSet':
          t.requests_per_minute = e.data.requests_per_minute === undefined ? 'plan' : e.data.requests_per_minute;
          t.concurrent_requests = e.data.concurrent_requests === undefined ? 'plan' : e.data.concurrent_requests;
          break;
        case 'CreditsPurchased':
          t.total_purchased += e.data.amount;
          break;
        case 'CreditsCommitted':
          t.total_used += e.data.amount;
          break;
        default:
          continue;
      }
      await c.put(t.id, t);
    }
  },
};

