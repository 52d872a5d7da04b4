import type { RecordedEvent } from '../../infra/ports/event-store.ts';
import type { Collection, ReadModelStore } from '../../infra/ports/read-models.ts';
import type { ApiKeyCreated, ApiKeyRevoked } from '../../domain/tenancy/tenancy.ts';
import type { Projection } from '../projection.ts';
import type { Permission } from '../../domain/tenancy/api-key.ts';
import { PRIVACY_TENANT_PROFILE_ERASED, type PrivacyTenantProfileErased } from '../../domain/privacy/offboarding.ts';

/** A key as listed by `GET /v1/api-keys`: never the secret nor its hash. */
export interface ApiKeyRecord extends Record<string, unknown> {
  id: string;
  tenant_id: string;
  name: string | null;
  hint: string;
  mode: 'live' | 'test';
  permissions: Permission[];
  status: 'active' | 'revoked';
  created_at: string;
  revoked_at: string | null;
}

export const API_KEYS_COLLECTION = 'api_keys';
export const apiKeysCollection = (store: ReadModelStore): Promise<Collection<ApiKeyRecord>> =>
  store.collection<ApiKeyRecord>(API_KEYS_COLLECTION, { indexes: ['tenant_id'] });

export const apiKeysProjection: Projection = {
  name: 'api-keys',
  collections: [API_KEYS_COLLECTION],
  eventTypes: ['ApiKeyCreated', 'ApiKeyRevoked', PRIVACY_TENANT_PROFILE_ERASED],
  async apply(events: readonly RecordedEvent[], { store }) {
    const c = await apiKeysCollection(store);
    for (const raw of events) {
      if (raw.type === PRIVACY_TENANT_PROFILE_ERASED) {
        // Off-boarding destroyed the tenant's profile key: its keys' names read as erased (null).
        const changed = (await c.find({ tenant_id: (raw.data as PrivacyTenantProfileErased['data']).tenant_id })).filter((k) => k.name !== null);
        if (changed.length) await c.putMany(changed.map((k) => [k.id, { ...k, name: null }] as const));
        continue;
      }
      const e = raw as unknown as ApiKeyCreated | ApiKeyRevoked;
      if (e.type === 'ApiKeyCreated') {
        await c.put(e.data.key_id, {
          id: e.data.key_id,
          tenant_id: e.data.tenant_id,
          name: e.data.name,
          hint: e.data.hint,
          mode: e.data.test ? 'test' : 'live',
          permissions: e.data.permissions,
          status: 'active',
          created_at: e.data.created_at,
          revoked_at: null,
        });
      } else {
        const current = await c.get(e.data.key_id);
        if (current) await c.put(e.data.key_id, { ...current, status: 'revoked', revoked_at: e.data.revoked_at });
      }
    }
  },
};
