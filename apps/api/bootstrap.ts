import type { EventStore } from '../../infra/ports/event-store.ts';
import { createApiKey, createTenant } from '../../domain/tenancy/operations.ts';

/**
 * First start with an empty event log: create a Free-plan tenant and a `sk_test_` key with read,write,
 * so a newcomer can call the API at once. Returns the key (shown once) or null when the log was not empty.
 */
export async function bootstrapIfEmpty(store: EventStore): Promise<{ tenantId: string; key: string; keyId: string } | null> {
  if ((await store.headPosition()) > 0) return null;
  const { tenantId } = await createTenant({ store, name: 'Default tenant', plan: 'free' });
  const { key, keyId } = await createApiKey({ store, tenantId, permissions: ['read', 'write'], test: true, name: 'bootstrap' });
  return { tenantId, key, keyId };
}
