import { randomBytes, randomUUID } from 'node:crypto';
import type { EventStore } from '../../infra/ports/event-store.ts';
import { PLAN_NAMES, type PlanName } from '../plans/plans.ts';
import { LANGUAGES, isTimeZone, parseLanguage } from '../shared/locale.ts';
import { PERMISSIONS, formatApiKey, hashApiKey, keyHint, type Permission } from './api-key.ts';
import { apiKeyStream, emptyTenancy, evolveTenancy, tenantStream, type ApiKeyCreated, type ApiKeyRevoked, type Tenant, type TenancyEvent, type TenantCreated, type TenantLimitsSet, type TenantLocaleSet, type TenantPlanChanged } from './tenancy.ts';

/** A tenancy command was refused (unknown tenant/key, bad plan or permission). `code` is stable. */
export class TenancyError extends Error {
  override readonly name = 'TenancyError';
  constructor(
    readonly code: 'unknown_tenant' | 'unknown_key' | 'invalid_plan' | 'invalid_permissions' | 'already_revoked' | 'invalid_limits' | 'invalid_locale',
    message: string,
  ) {
    super(message);
  }
}

const nowIso = (now: () => number) => new Date(now()).toISOString();

async function requireTenant(store: EventStore, tenantId: string): Promise<void> {
  const { currentRevision } = await store.readStream(tenantStream(tenantId), { maxCount: 1 });
  if (currentRevision === null) throw new TenancyError('unknown_tenant', `tenant ${tenantId} does not exist`);
}

/**
 * Creates a tenant on a plan. @returns its id (`ten_<uuid without dashes>`, or `o.tenantId` when given:
 * a caller that must not create twice passes a derived id and treats `WrongExpectedRevisionError` as done).
 */
export async function createTenant(o: { store: EventStore; name: string; plan: string; now?: () => number; tenantId?: string }): Promise<{ tenantId: string }> {
  if (!(PLAN_NAMES as readonly string[]).includes(o.plan)) throw new TenancyError('invalid_plan', `plan must be one of ${PLAN_NAMES.join(', ')}`);
  const name = o.name.trim();
  if (!name || name.length > 200) throw new TenancyError('invalid_plan', 'name must be 1-200 characters');
  const tenantId = o.tenantId ?? `ten_${randomUUID().replace(/-/g, '')}`;
  const event: TenantCreated = { type: 'TenantCreated', data: { tenant_id: tenantId, name, plan: o.plan as PlanName, created_at: nowIso(o.now ?? Date.now) } };
  await o.store.append(tenantStream(tenantId), [{ ...event, metadata: { tenant_id: tenantId } }], { expectedRevision: 'no_stream' });
  return { tenantId };
}

/** Moves a tenant to another plan. */
export async function changePlan(o: { store: EventStore; tenantId: string; plan: string; now?: () => number }): Promise<void> {
  if (!(PLAN_NAMES as readonly string[]).includes(o.plan)) throw new TenancyError('invalid_plan', `plan must be one of ${PLAN_NAMES.join(', ')}`);
  await requireTenant(o.store, o.tenantId);
  const event: TenantPlanChanged = { type: 'TenantPlanChanged', data: { tenant_id: o.tenantId, plan: o.plan as PlanName, changed_at: nowIso(o.now ?? Date.now) } };
  await o.store.append(tenantStream(o.tenantId), [{ ...event, metadata: { tenant_id: o.tenantId } }], { expectedRevision: 'stream_exists' });
}

/** A tenant as its stream folds (`evolveTenancy`): plan, limit overrides, name. @throws TenancyError `unknown_tenant`. */
export async function loadTenant(store: EventStore, tenantId: string): Promise<Tenant> {
  const { events } = await store.readStream(tenantStream(tenantId));
  const tenant = events.reduce((state, e) => evolveTenancy(state, e as unknown as TenancyEvent), emptyTenancy()).tenants.get(tenantId);
  if (!tenant) throw new TenancyError('unknown_tenant', `tenant ${tenantId} does not exist`);
  return tenant;
}

/**
 * Overrides a tenant's per-minute and concurrency limits; `null` lifts a limit, `undefined` returns it
 * to the plan's value.
 */
export async function setTenantLimits(o: {
  store: EventStore;
  tenantId: string;
  requestsPerMinute?: number | null;
  concurrentRequests?: number | null;
  now?: () => number;
}): Promise<void> {
  for (const v of [o.requestsPerMinute, o.concurrentRequests]) {
    if (v !== undefined && v !== null && (!Number.isInteger(v) || v < 1)) throw new TenancyError('invalid_limits', 'limits must be positive integers or unlimited');
  }
  await requireTenant(o.store, o.tenantId);
  const data: TenantLimitsSet['data'] = { tenant_id: o.tenantId, set_at: nowIso(o.now ?? Date.now) };
  if (o.requestsPerMinute !== undefined) data.requests_per_minute = o.requestsPerMinute;
  if (o.concurrentRequests !== undefined) data.concurrent_requests = o.concurrentRequests;
  await o.store.append(tenantStream(o.tenantId), [{ type: 'TenantLimitsSet', data, metadata: { tenant_id: o.tenantId } }], {
    expectedRevision: 'stream_exists',
  });
}

/**
 * Sets a tenant's default language (`es`/`es-MX` or `en`) and IANA time zone, used by its signing
 * documents created without their own `language`/`time_zone`, and by its usage page.
 * @throws TenancyError `invalid_locale` for an unknown language or time zone; `tenant_not_found`.
 */
export async function setTenantLocale(o: { store: EventStore; tenantId: string; language: string; timeZone: string; now?: () => number }): Promise<TenantLocaleSet['data']> {
  const language = parseLanguage(o.language);
  if (!language) throw new TenancyError('invalid_locale', `language must be one of ${LANGUAGES.join(', ')}: ${o.language}`);
  if (!isTimeZone(o.timeZone)) throw new TenancyError('invalid_locale', `time zone must be an IANA name such as America/Mexico_City: ${o.timeZone}`);
  await requireTenant(o.store, o.tenantId);
  const data: TenantLocaleSet['data'] = { tenant_id: o.tenantId, language, time_zone: o.timeZone, set_at: nowIso(o.now ?? Date.now) };
  await o.store.append(tenantStream(o.tenantId), [{ type: 'TenantLocaleSet', data, metadata: { tenant_id: o.tenantId } }], { expectedRevision: 'stream_exists' });
  return data;
}

/**
 * Issues an API key for a tenant. The key (`sk_live_…`/`sk_test_…`, 32 random bytes in base62) is
 * returned once; only its SHA-256 is stored.
 */
export async function createApiKey(o: {
  store: EventStore;
  tenantId: string;
  permissions: readonly string[];
  test?: boolean;
  name?: string | null;
  now?: () => number;
  /** A key made by the caller (`formatApiKey`) and its id, to issue it idempotently; default: new ones. */
  key?: string;
  keyId?: string;
}): Promise<{ key: string; keyId: string }> {
  const permissions = [...new Set(o.permissions)];
  if (permissions.length === 0 || !permissions.every((p) => (PERMISSIONS as readonly string[]).includes(p))) {
    throw new TenancyError('invalid_permissions', `permissions must be a non-empty subset of ${PERMISSIONS.join(', ')}`);
  }
  await requireTenant(o.store, o.tenantId);
  const key = o.key ?? formatApiKey(randomBytes(32), o.test ?? false);
  const keyId = o.keyId ?? `key_${randomUUID().replace(/-/g, '')}`;
  const event: ApiKeyCreated = {
    type: 'ApiKeyCreated',
    data: {
      key_id: keyId,
      tenant_id: o.tenantId,
      key_hash: hashApiKey(key),
      hint: keyHint(key),
      permissions: permissions as Permission[],
      test: o.test ?? false,
      name: o.name ?? null,
      created_at: nowIso(o.now ?? Date.now),
    },
  };
  await o.store.append(apiKeyStream(keyId), [{ ...event, metadata: { tenant_id: o.tenantId } }], { expectedRevision: 'no_stream' });
  return { key, keyId };
}

/** Revokes a key by id; `tenantId`, when given, must own it (API path: a tenant revokes only its keys). */
export async function revokeApiKey(o: { store: EventStore; keyId: string; tenantId?: string; now?: () => number }): Promise<{ tenantId: string }> {
  const { events, currentRevision } = await o.store.readStream(apiKeyStream(o.keyId));
  const created = events.find((e) => e.type === 'ApiKeyCreated') as unknown as ApiKeyCreated | undefined;
  if (!created || currentRevision === null || (o.tenantId && created.data.tenant_id !== o.tenantId)) {
    throw new TenancyError('unknown_key', `API key ${o.keyId} does not exist`);
  }
  if (events.some((e) => e.type === 'ApiKeyRevoked')) throw new TenancyError('already_revoked', `API key ${o.keyId} is already revoked`);
  const event: ApiKeyRevoked = { type: 'ApiKeyRevoked', data: { key_id: o.keyId, tenant_id: created.data.tenant_id, revoked_at: nowIso(o.now ?? Date.now) } };
  await o.store.append(apiKeyStream(o.keyId), [{ ...event, metadata: { tenant_id: created.data.tenant_id } }], { expectedRevision: currentRevision });
  return { tenantId: created.data.tenant_id };
}
