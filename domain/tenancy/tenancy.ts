import type { PlanName } from '../plans/plans.ts';
import type { Permission } from './api-key.ts';
import type { Language, Locale } from '../shared/locale.ts';

/**
 * Tenancy events. A tenant's stream is `tenant-<tenantId>`; a key's stream is `api-key-<keyId>` (so a
 * key's history can be audited and revoked by id alone).
 */
export type TenantCreated = { type: 'TenantCreated'; data: { tenant_id: string; name: string; plan: PlanName; created_at: string } };
export type TenantPlanChanged = { type: 'TenantPlanChanged'; data: { tenant_id: string; plan: PlanName; changed_at: string } };
/** `null` lifts a limit; an absent field returns it to the plan's value. */
export type TenantLimitsSet = {
  type: 'TenantLimitsSet';
  data: { tenant_id: string; requests_per_minute?: number | null; concurrent_requests?: number | null; set_at: string };
};
/** The tenant's default language and time zone of what signers and dashboard readers see (`cli tenant locale`). */
export type TenantLocaleSet = { type: 'TenantLocaleSet'; data: { tenant_id: string; language: Language; time_zone: string; set_at: string } };
export type ApiKeyCreated = {
  type: 'ApiKeyCreated';
  data: { key_id: string; tenant_id: string; key_hash: string; hint: string; permissions: Permission[]; test: boolean; name: string | null; created_at: string };
};
export type ApiKeyRevoked = { type: 'ApiKeyRevoked'; data: { key_id: string; tenant_id: string; revoked_at: string } };

export type TenancyEvent = TenantCreated | TenantPlanChanged | TenantLimitsSet | TenantLocaleSet | ApiKeyCreated | ApiKeyRevoked;
export const TENANCY_EVENT_TYPES = ['TenantCreated', 'TenantPlanChanged', 'TenantLimitsSet', 'TenantLocaleSet', 'ApiKeyCreated', 'ApiKeyRevoked'] as const;

export const tenantStream = (tenantId: string) => `tenant-${tenantId}`;
export const apiKeyStream = (keyId: string) => `api-key-${keyId}`;

export interface Tenant {
  tenantId: string;
  name: string;
  plan: PlanName;
  createdAt: string;
  limits: { requestsPerMinute?: number | null; concurrentRequests?: number | null };
  /** Set by `TenantLocaleSet`; absent: Spanish, America/Mexico_City (domain/shared/locale.ts). */
  locale?: Locale;
}

export interface ApiKey {
  keyId: string;
  tenantId: string;
  keyHash: string;
  hint: string;
  permissions: Permission[];
  test: boolean;
  name: string | null;
  createdAt: string;
  revokedAt: string | null;
}

/** The whole tenancy view (all tenants and keys), folded from the log. Pure and idempotent per event. */
export interface TenancyState {
  tenants: Map<string, Tenant>;
  keys: Map<string, ApiKey>;
  keysByHash: Map<string, ApiKey>;
}

export const emptyTenancy = (): TenancyState => ({ tenants: new Map(), keys: new Map(), keysByHash: new Map() });

export function evolveTenancy(state: TenancyState, event: TenancyEvent): TenancyState {
  switch (event.type) {
    case 'TenantCreated':
      state.tenants.set(event.data.tenant_id, {
        tenantId: event.data.tenant_id,
        name: event.data.name,
        plan: event.data.plan,
        createdAt: event.data.created_at,
        limits: {},
      });
      return state;
    case 'TenantPlanChanged': {
      const t = state.tenants.get(event.data.tenant_id);
      if (t) t.plan = event.data.plan;
      return state;
    }
    case 'TenantLimitsSet': {
      const t = state.tenants.get(event.data.tenant_id);
      if (t) {
        t.limits = {};
        if (event.data.requests_per_minute !== undefined) t.limits.requestsPerMinute = event.data.requests_per_minute;
        if (event.data.concurrent_requests !== undefined) t.limits.concurrentRequests = event.data.concurrent_requests;
      }
      return state;
    }
    case 'TenantLocaleSet': {
      const t = state.tenants.get(event.data.tenant_id);
      if (t) t.locale = { language: event.data.language, timeZone: event.data.time_zone };
      return state;
    }
    case 'ApiKeyCreated': {
      const key: ApiKey = {
        keyId: event.data.key_id,
        tenantId: event.data.tenant_id,
        keyHash: event.data.key_hash,
        hint: event.data.hint,
        permissions: [...event.data.permissions],
        test: event.data.test,
        name: event.data.name,
        createdAt: event.data.created_at,
        revokedAt: null,
      };
      state.keys.set(key.keyId, key);
      state.keysByHash.set(key.keyHash, key);
      return state;
    }
    case 'ApiKeyRevoked': {
      const k = state.keys.get(event.data.key_id);
      if (k) k.revokedAt = event.data.revoked_at;
      return state;
    }
    default: {
      const never: never = event;
      return never;
    }
  }
}
