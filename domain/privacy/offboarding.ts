/**
 * Tenant off-boarding (issue 28, item 4; docs/privacy.md, "Tenant off-boarding"): erases all of a
 * tenant's personal data and closes its access.
 *
 * Steps, each idempotent (a repeated off-boarding resumes or redoes harmlessly):
 * 1. `PrivacyOffboardingRequested` (stream `privacy-offboarding-<tenantId>`);
 * 2. every face/fingerprint subject of the tenant is erased through {@link eraseSubject} (the path of
 *    `POST /v1/privacy/erasures`: templates purged from read models and every vector-index replica, data
 *    key destroyed);
 * 3. every signing document is deleted with its files, then every remaining blob under the tenant's
 *    prefixes (`signing/<tenant>/`, `<tenant>/usage-exports/`) is deleted;
 * 4. the client IP addresses of all its usage rows are truncated (`UsageIpsTruncated` up to now), and
 *    every usage data key of the tenant destroyed (the log's sealed addresses and user agents);
 * 5. every active API key is revoked, then every stored `Idempotency-Key` record of the tenant is removed;
 * 6. `PrivacyOffboardingCompleted`: the receipt (counts per kind; no personal data).
 */
import type { EventStore } from '../../infra/ports/event-store.ts';
import type { BlobStore } from '../../infra/ports/blob-store.ts';
import type { ReadModelStore } from '../../infra/ports/read-models.ts';
import { EMBEDDINGS_COLLECTION, EMBEDDING_INDEXES } from '../face-matching/deps.ts';
import { TEMPLATES_COLLECTION, TEMPLATE_INDEXES } from '../fingerprint/deps.ts';
import { eraseSubject, type ErasureDeps } from './erasure.ts';
import { IPV4_PREFIX, IPV6_PREFIX } from './ip-truncation.ts';
import { USAGE_IPS_TRUNCATED, destroyUsageDayKeys, getRetention, retentionStream, type UsageIpsTruncated } from './retention.ts';
import { USAGE_DAY_MS } from '../usage/usage.ts';
import { subjectKeyId } from './classification.ts';
import type { PlanName } from '../plans/plans.ts';

export const PRIVACY_OFFBOARDING_REQUESTED = 'PrivacyOffboardingRequested';
export const PRIVACY_OFFBOARDING_COMPLETED = 'PrivacyOffboardingCompleted';
/**
 * The tenant's profile key (`tenant:<tenant>:profile`: the tenant's name in `TenantCreated`, its keys' names
 * in `ApiKeyCreated`) was destroyed by an off-boarding: the `tenants` and `api_keys` projections scrub the
 * rows they copied (a replay reads the events as erased anyway).
 */
export const PRIVACY_TENANT_PROFILE_ERASED = 'PrivacyTenantProfileErased';
export type PrivacyTenantProfileErased = { type: typeof PRIVACY_TENANT_PROFILE_ERASED; data: { offboarding_id: string; tenant_id: string; erased_at: string } };

/** One line of an off-boarding receipt. */
export interface OffboardingItem {
  kind: 'biometric_subjects' | 'signing_documents' | 'blobs' | 'usage_ip_rows' | 'api_keys' | 'tenant_profile' | 'idempotency_answers';
  /** Where: `event_log`, `read_models`, `vector_index`, `key_store`, `blob_store`, `idempotency_store`. */
  stores: string[];
  count: number;
}

export type PrivacyOffboardingRequested = { type: typeof PRIVACY_OFFBOARDING_REQUESTED; data: { offboarding_id: string; tenant_id: string; requested_at: string } };
export type PrivacyOffboardingCompleted = { type: typeof PRIVACY_OFFBOARDING_COMPLETED; data: { offboarding_id: string; tenant_id: string; completed_at: string; items: OffboardingItem[] } };

/** Stream of a tenant's off-boardings. */
export const offboardingStream = (tenantId: string): string => `privacy-offboarding-${tenantId}`;

/** An off-boarding as the API and CLI show it. */
export interface Offboarding {
  offboarding_id: string;
  tenant_id: string;
  status: 'processing' | 'completed';
  requested_at: string;
  completed_at: string | null;
  erased: OffboardingItem[];
}

/** What an off-boarding needs besides the erasure's ports. */
export interface OffboardingDeps {
  erasure: ErasureDeps;
  blobs: BlobStore;
  readModels: ReadModelStore;
  /** The tenant's signing documents not deleted yet (ids). */
  signingDocuments(tenantId: string): Promise<string[]>;
  /** Deletes a signing document and its files (as `DELETE /v1/signing/documents/{id}`). */
  deleteSigningDocument(tenantId: string, documentId: string): Promise<void>;
  /** The tenant's active API key ids. */
  activeKeys(tenantId: string): Promise<string[]>;
  /** Revokes a key (ignores one revoked meanwhile). */
  revokeKey(tenantId: string, keyId: string): Promise<void>;
  /** A new off-boarding id. */
  newId(): string;
}

/** Every face/fingerprint subject id the tenant ever enrolled (active or not). */
export async function tenantSubjects(readModels: ReadModelStore, tenantId: string): Promise<string[]> {
  const out = new Set<string>();
  for (const [name, indexes] of [[EMBEDDINGS_COLLECTION, EMBEDDING_INDEXES], [TEMPLATES_COLLECTION, TEMPLATE_INDEXES]] as const) {
    const c = await readModels.collection(name, { indexes });
    for (const d of await c.find({ tenant_id: tenantId })) out.add(String(d.subject_id));
  }
  return [...out].sort();
}

/** The tenant's off-boardings, oldest first. */
export async function listOffboardings(events: EventStore, tenantId: string): Promise<Offboarding[]> {
  const out = new Map<string, Offboarding>();
  for (const e of (await events.readStream(offboardingStream(tenantId))).events) {
    if (e.type === PRIVACY_OFFBOARDING_REQUESTED) {
      const d = e.data as PrivacyOffboardingRequested['data'];
      out.set(d.offboarding_id, { offboarding_id: d.offboarding_id, tenant_id: d.tenant_id, status: 'processing', requested_at: d.requested_at, completed_at: null, erased: [] });
    } else if (e.type === PRIVACY_OFFBOARDING_COMPLETED) {
      const d = e.data as PrivacyOffboardingCompleted['data'];
      const x = out.get(d.offboarding_id);
      if (x) Object.assign(x, { status: 'completed', completed_at: d.completed_at, erased: d.items });
    }
  }
  return [...out.values()];
}

/**
 * Off-boards a tenant (see the module comment). A `processing` off-boarding (a process died mid-way) is
 * resumed under its id.
 * @returns the completed off-boarding with its receipt.
 */
export async function offboardTenant(deps: OffboardingDeps, input: { tenantId: string; plan: PlanName; requestId?: string }): Promise<Offboarding> {
  const { tenantId } = input;
  const events = deps.erasure.events;
  const iso = () => new Date(deps.erasure.now()).toISOString();
  const meta = { tenant_id: tenantId, ...(input.requestId ? { request_id: input.requestId } : {}) };
  const pending = (await listOffboardings(events, tenantId)).find((o) => o.status === 'processing');
  const id = pending?.offboarding_id ?? deps.newId();
  if (!pending) {
    const r: PrivacyOffboardingRequested = { type: PRIVACY_OFFBOARDING_REQUESTED, data: { offboarding_id: id, tenant_id: tenantId, requested_at: iso() } };
    await events.append(offboardingStream(tenantId), [{ ...r, metadata: meta }]);
  }

  const subjects = await tenantSubjects(deps.readModels, tenantId);
  for (const subjectId of subjects) await eraseSubject(deps.erasure, { tenantId, subjectId, requestId: input.requestId });

  const documents = await deps.signingDocuments(tenantId);
  for (const documentId of documents) await deps.deleteSigningDocument(tenantId, documentId);
  let blobs = 0;
  for (const prefix of [`signing/${tenantId}/`, `${tenantId}/usage-exports/`]) {
    for (const key of await deps.blobs.list(prefix)) if (await deps.blobs.delete(key)) blobs += 1;
  }

  const retention = await getRetention(events, tenantId, input.plan);
  const before = iso();
  const from = retention.usage_ips_truncated_before;
  const rows = await deps.readModels.collection('usage_events', { indexes: [['tenant_id', 'created_at']] });
  const ipRows = await rows.count({ tenant_id: tenantId, created_at: from ? { $gte: from, $lt: before } : { $lt: before } });
  if (ipRows) {
    const t: UsageIpsTruncated = { type: USAGE_IPS_TRUNCATED, data: { tenant_id: tenantId, from, before, ipv4_prefix: IPV4_PREFIX, ipv6_prefix: IPV6_PREFIX, truncated_at: before } };
    await events.append(retentionStream(tenantId), [{ ...t, metadata: meta }]);
  }

  // The log's copies of the addresses and user agents: every usage data key of the tenant, today's included.
  await destroyUsageDayKeys(deps.erasure, deps.readModels, tenantId, null, new Date((Math.floor(Date.parse(before) / USAGE_DAY_MS) + 1) * USAGE_DAY_MS).toISOString(), before);

  const keys = await deps.activeKeys(tenantId);
  for (const keyId of keys) await deps.revokeKey(tenantId, keyId);
  await deps.erasure.catchUp();
  // Stored Idempotency-Key answers (OCR extractions, searches, signers...): the revoked keys begin no new one.
  const answers = (await deps.erasure.forgetTenantResponses?.(tenantId)) ?? 0;

  // The tenant's and its keys' names: their key destroyed, the read models' copies scrubbed.
  const profileAt = iso();
  const profileKeys = await deps.erasure.destroyKeys(subjectKeyId('tenant', tenantId, 'profile'), profileAt);
  const p: PrivacyTenantProfileErased = { type: PRIVACY_TENANT_PROFILE_ERASED, data: { offboarding_id: id, tenant_id: tenantId, erased_at: profileAt } };
  await events.append(offboardingStream(tenantId), [{ ...p, metadata: meta }]);
  await deps.erasure.catchUp();
  await deps.readModels.forget(['tenants', 'api_keys']);

  const items: OffboardingItem[] = [
    { kind: 'biometric_subjects', stores: ['event_log', 'read_models', 'vector_index', 'key_store'], count: subjects.length },
    { kind: 'signing_documents', stores: ['read_models', 'blob_store'], count: documents.length },
    { kind: 'blobs', stores: ['blob_store'], count: blobs },
    { kind: 'usage_ip_rows', stores: ['event_log', 'read_models', 'key_store'], count: ipRows },
    { kind: 'api_keys', stores: ['read_models'], count: keys.length },
    { kind: 'tenant_profile', stores: ['event_log', 'read_models', 'key_store'], count: profileKeys.length },
    { kind: 'idempotency_answers', stores: answers ? ['idempotency_store'] : [], count: answers },
  ];
  const c: PrivacyOffboardingCompleted = { type: PRIVACY_OFFBOARDING_COMPLETED, data: { offboarding_id: id, tenant_id: tenantId, completed_at: iso(), items } };
  await events.append(offboardingStream(tenantId), [{ ...c, metadata: meta }]);
  return (await listOffboardings(events, tenantId)).find((o) => o.offboarding_id === id)!;
}
