/**
 * Retention of personal data (issue 28, item 5; docs/privacy.md, "Retention"): per-tenant periods, each
 * defaulting to the plan's ({@link PLAN_RETENTION}), and the sweep that erases what outlived its period.
 *
 * Events, stream `privacy-retention-<tenantId>` (metadata `tenant_id`), none with personal data:
 * - `PrivacyRetentionSet`: the tenant's admin set some periods (`null` = until deleted, `"plan"` = back to
 *   the plan's default).
 * - `UsageIpsTruncated`: the client IP addresses of the tenant's usage rows created in `[from, before)`
 *   are truncated (`domain/privacy/ip-truncation.ts`); the usage-events projection applies it, so a replay
 *   truncates them again. The log's own copies (sealed per tenant and UTC day) go with their day's data
 *   key ({@link destroyUsageDayKeys}).
 * - `PrivacyRetentionSwept`: what one sweep erased (counts per kind).
 *
 * The sweep ({@link sweepTenant}) runs daily for every tenant from the `privacy-retention` workflow
 * (`workflows/privacy-retention`). Each step is idempotent: a sweep repeated after a crash redoes nothing
 * already done.
 */
import type { EventStore } from '../../infra/ports/event-store.ts';
import type { BlobStore } from '../../infra/ports/blob-store.ts';
import type { ReadModelStore } from '../../infra/ports/read-models.ts';
import { PLAN_RETENTION, type PlanName, type PlanRetention } from '../plans/plans.ts';
import { EMBEDDINGS_COLLECTION, EMBEDDING_INDEXES } from '../face-matching/deps.ts';
import { TEMPLATES_COLLECTION, TEMPLATE_INDEXES } from '../fingerprint/deps.ts';
import { PRIVACY_SIGNING_DOCUMENT_ERASED, erasureStream, eraseSubject, foldErasures, type ErasureDeps, type PrivacySigningDocumentErased } from './erasure.ts';
import { subjectKeyId } from './classification.ts';
import { IPV4_PREFIX, IPV6_PREFIX } from './ip-truncation.ts';
import { USAGE_DAY_MS, usageDayKeyId } from '../usage/usage.ts';
import { exportStream } from '../usage/exports.ts';

export const PRIVACY_RETENTION_SET = 'PrivacyRetentionSet';
export const USAGE_IPS_TRUNCATED = 'UsageIpsTruncated';
export const PRIVACY_RETENTION_SWEPT = 'PrivacyRetentionSwept';

const DAY_MS = 86_400_000;
/** Longest period accepted, in days (100 years). */
export const MAX_RETENTION_DAYS = 36_500;

/** The API's names of the periods, in days (`null`: kept until deleted). */
export interface RetentionSettings {
  biometric_templates_days: number | null;
  documents_days: number | null;
  signed_documents_days: number | null;
  usage_ip_days: number | null;
}
export type RetentionField = keyof RetentionSettings;
export const RETENTION_FIELDS: readonly RetentionField[] = ['biometric_templates_days', 'documents_days', 'signed_documents_days', 'usage_ip_days'];

/** A change: a field not named keeps its value; `"plan"` returns it to the plan's default. */
export type RetentionChange = Partial<Record<RetentionField, number | null | 'plan'>>;

export type PrivacyRetentionSet = { type: typeof PRIVACY_RETENTION_SET; data: { tenant_id: string; settings: RetentionChange; set_at: string } };
export type UsageIpsTruncated = {
  type: typeof USAGE_IPS_TRUNCATED;
  /** `from`: ISO 8601 start (inclusive) or null (every earlier row); `before`: ISO 8601 end (exclusive). */
  data: { tenant_id: string; from: string | null; before: string; ipv4_prefix: number; ipv6_prefix: number; truncated_at: string };
};
/** One line of a sweep's report: what kind, how many items erased. */
export interface SweepItem {
  /**
   * `usage_ip_days`: UTC days whose usage data key (the log's sealed IP addresses and user agents) was
   * destroyed; `usage_exports`: export files with details of calls past `usage_ip_days`, deleted.
   */
  kind: 'biometric_subjects' | 'document_files' | 'signed_documents' | 'usage_ip_rows' | 'usage_ip_days' | 'usage_exports';
  count: number;
}
export type PrivacyRetentionSwept = { type: typeof PRIVACY_RETENTION_SWEPT; data: { tenant_id: string; swept_at: string; items: SweepItem[] } };

/** Stream of a tenant's retention settings, truncations and sweeps. */
export const retentionStream = (tenantId: string): string => `privacy-retention-${tenantId}`;

/** The plan's defaults in the API's names. */
export function planDefaults(plan: PlanName): RetentionSettings {
  const p: PlanRetention = PLAN_RETENTION[plan];
  return { biometric_templates_days: p.biometricTemplatesDays, documents_days: p.documentsDays, signed_documents_days: p.signedDocumentsDays, usage_ip_days: p.usageIpDays };
}

/** A tenant's retention as the API shows it. */
export interface RetentionView {
  plan: PlanName;
  /** The periods in force. */
  settings: RetentionSettings;
  /** The plan's defaults. */
  defaults: RetentionSettings;
  /** Which periods the tenant set itself (the others follow the plan). */
  overridden: RetentionField[];
  /** The latest sweep that erased something, or null. */
  last_sweep: { swept_at: string; items: SweepItem[] } | null;
  /** End (exclusive, ISO 8601) of the usage rows whose IP addresses are truncated, or null. */
  usage_ips_truncated_before: string | null;
}

/** Folds a tenant's retention stream (see the module comment). */
export function foldRetention(plan: PlanName, events: readonly { type: string; data: unknown }[]): RetentionView {
  const overrides: Partial<Record<RetentionField, number | null>> = {};
  let lastSweep: RetentionView['last_sweep'] = null;
  let truncatedBefore: string | null = null;
  for (const e of events) {
    if (e.type === PRIVACY_RETENTION_SET) {
      for (const [k, v] of Object.entries((e.data as PrivacyRetentionSet['data']).settings)) {
        if (v === 'plan') delete overrides[k as RetentionField];
        else overrides[k as RetentionField] = v;
      }
    } else if (e.type === PRIVACY_RETENTION_SWEPT) {
      const d = e.data as PrivacyRetentionSwept['data'];
      lastSweep = { swept_at: d.swept_at, items: d.items };
    } else if (e.type === USAGE_IPS_TRUNCATED) {
      const d = e.data as UsageIpsTruncated['data'];
      if (!truncatedBefore || d.before > truncatedBefore) truncatedBefore = d.before;
    }
  }
  const defaults = planDefaults(plan);
  return { plan, settings: { ...defaults, ...overrides }, defaults, overridden: RETENTION_FIELDS.filter((f) => f in overrides), last_sweep: lastSweep, usage_ips_truncated_before: truncatedBefore };
}

/** Invalid retention input. `field` names the offending field. */
export class RetentionError extends Error {
  override readonly name = 'RetentionError';
  constructor(message: string, readonly field: string | null) {
    super(message);
  }
}

/**
 * Checks a change: each named field is an integer of days from 1 to {@link MAX_RETENTION_DAYS}, `null`
 * (until deleted) or `"plan"`; unknown fields are refused.
 * @throws RetentionError on the first bad field, or when nothing is named.
 */
export function validateRetentionChange(input: Record<string, unknown>): RetentionChange {
  const out: RetentionChange = {};
  for (const [k, v] of Object.entries(input)) {
    if (!RETENTION_FIELDS.includes(k as RetentionField)) throw new RetentionError(`unknown retention setting ${k}; known: ${RETENTION_FIELDS.join(', ')}`, k);
    if (v === null || v === 'plan') out[k as RetentionField] = v;
    else if (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= MAX_RETENTION_DAYS) out[k as RetentionField] = v;
    else throw new RetentionError(`${k} must be an integer number of days from 1 to ${MAX_RETENTION_DAYS}, null (kept until deleted) or "plan"`, k);
  }
  if (!Object.keys(out).length) throw new RetentionError(`name at least one of ${RETENTION_FIELDS.join(', ')}`, null);
  return out;
}

/** A tenant's retention view. */
export async function getRetention(events: EventStore, tenantId: string, plan: PlanName): Promise<RetentionView> {
  return foldRetention(plan, (await events.readStream(retentionStream(tenantId))).events);
}

/** Records a change (validated by {@link validateRetentionChange}) and returns the new view. */
export async function setRetention(events: EventStore, input: { tenantId: string; plan: PlanName; change: RetentionChange; now: number; requestId?: string }): Promise<RetentionView> {
  const e: PrivacyRetentionSet = { type: PRIVACY_RETENTION_SET, data: { tenant_id: input.tenantId, settings: input.change, set_at: new Date(input.now).toISOString() } };
  await events.append(retentionStream(input.tenantId), [{ ...e, metadata: { tenant_id: input.tenantId, ...(input.requestId ? { request_id: input.requestId } : {}) } }]);
  return getRetention(events, input.tenantId, input.plan);
}

/** The signing documents' part of a sweep: the signing capability's files and deletion. */
export interface SigningRetentionPort {
  /**
   * The tenant's documents that are over (finalized, expired or cancelled) and not deleted: id, when they
   * ended (ISO 8601) and whether they were finalized.
   */
  endedDocuments(tenantId: string): Promise<Array<{ documentId: string; endedAt: string; finalized: boolean }>>;
  /** Deletes a document's uploads, page images and signature images (its final PDFs stay); returns how many files. */
  deleteWorkingFiles(tenantId: string, documentId: string): Promise<number>;
  /** Deletes a finalized document and all its files (as `DELETE /v1/signing/documents/{id}`). */
  deleteDocument(tenantId: string, documentId: string): Promise<void>;
}

/** What a sweep needs. */
export interface RetentionDeps {
  erasure: ErasureDeps;
  blobs: BlobStore;
  readModels: ReadModelStore;
  signing: SigningRetentionPort;
}

/**
 * Subjects of the tenant whose latest face or fingerprint enrolment is before `cutoffIso` and that were
 * not erased since (a subject's templates share one data key, so a subject expires as a whole). Subjects
 * whose templates were all deleted count too: the log still holds their sealed templates until the key is
 * destroyed.
 */
export async function expiredSubjects(readModels: ReadModelStore, events: EventStore, tenantId: string, cutoffIso: string): Promise<string[]> {
  const latest = new Map<string, { at: string }>();
  for (const [name, indexes] of [[EMBEDDINGS_COLLECTION, EMBEDDING_INDEXES], [TEMPLATES_COLLECTION, TEMPLATE_INDEXES]] as const) {
    const c = await readModels.collection(name, { indexes });
    for (const d of await c.find({ tenant_id: tenantId })) {
      const s = String(d.subject_id);
      const at = String(d.created_at);
      const x = latest.get(s) ?? { at: '' };
      latest.set(s, { at: at > x.at ? at : x.at });
    }
  }
  const erasedAt = new Map<string, string>();
  for (const e of foldErasures((await events.readStream(erasureStream(tenantId))).events).values()) {
    if (e.status !== 'completed' || !e.subjectId || !e.completed_at) continue;
    if (e.completed_at > (erasedAt.get(e.subjectId) ?? '')) erasedAt.set(e.subjectId, e.completed_at);
  }
  return [...latest].filter(([s, x]) => x.at < cutoffIso && !((erasedAt.get(s) ?? '') >= x.at)).map(([s]) => s).sort();
}

/**
 * Shreds a finalized signing document whose retention period ended (a blocked one included: this is the
 * end of its blocking, docs/privacy.md "Blocking"): its data key is destroyed (every personal field of its
 * events reads as erased; the hashes of its files stay in clear, so `/v1/signing/verify` still recognises
 * a copy), `PrivacySigningDocumentErased` scrubs its read-model row, then it is deleted with its files as
 * `DELETE /v1/signing/documents/{id}` does, and the read-model files forget the former rows. Idempotent: a
 * sweep that died mid-way finds the document again (not yet deleted) and redoes the steps.
 */
async function shredSignedDocument(deps: RetentionDeps, tenantId: string, documentId: string, now: number): Promise<void> {
  const at = new Date(now).toISOString();
  await deps.erasure.destroyKeys(subjectKeyId('signing', tenantId, documentId), at);
  const e: PrivacySigningDocumentErased = { type: PRIVACY_SIGNING_DOCUMENT_ERASED, data: { erasure_id: `retention:${at}`, tenant_id: tenantId, document_id: documentId, erased_at: at } };
  await deps.erasure.events.append(erasureStream(tenantId), [{ ...e, metadata: { tenant_id: tenantId } }]);
  await deps.erasure.catchUp();
  await deps.signing.deleteDocument(tenantId, documentId);
  await deps.erasure.catchUp();
  await deps.readModels.forget(['signing_documents']);
}

/**
 * Destroys the tenant's usage data keys (`usageDayKeyId`: the log's sealed client IP addresses and user
 * agents of one UTC day) of every day that ends at or before `before` and may hold calls not erased yet:
 * the day of `from` (the previous cutoff, whose day was not whole then; every earlier day was destroyed
 * by an earlier sweep) and the days from the tenant's first usage row at or after `from` (or its first
 * row at all when `from` is null) up to `before`. The log's addresses thus outlive the read model's
 * truncation by less than a day. Idempotent (a destroyed key stays destroyed).
 * @returns how many days had a live key destroyed now.
 */
export async function destroyUsageDayKeys(erasure: Pick<ErasureDeps, 'destroyKeys'>, readModels: ReadModelStore, tenantId: string, from: string | null, before: string, at: string): Promise<number> {
  const end = Math.floor(Date.parse(before) / USAGE_DAY_MS); // first day not wholly before `before`
  const rows = await readModels.collection('usage_events', { indexes: [['tenant_id', 'created_at']] });
  const first = await rows.find({ tenant_id: tenantId, created_at: from ? { $gte: from, $lt: before } : { $lt: before } }, { sort: [{ field: 'created_at', order: 'asc' }], limit: 1 });
  const days = new Set<number>();
  if (from) days.add(Math.floor(Date.parse(from) / USAGE_DAY_MS));
  if (first[0]) for (let d = Math.floor(Date.parse(String(first[0].created_at)) / USAGE_DAY_MS); d < end; d++) days.add(d);
  let destroyed = 0;
  for (const d of [...days].sort((a, b) => a - b)) {
    if (d >= end) continue;
    if ((await erasure.destroyKeys(usageDayKeyId(tenantId, d * USAGE_DAY_MS), at)).length) destroyed += 1;
  }
  return destroyed;
}

/** Days before the cutoff whose anonymous usage keys each sweep destroys again (a daily sweep needs 1). */
export const ANONYMOUS_USAGE_LOOKBACK_DAYS = 35;

/**
 * Destroys the usage data keys of calls without a tenant (`usage:-:<day>`: failed authentications and
 * unknown keys; sealed like a tenant's) of the days wholly before the Free plan's `usage_ip_days` cutoff at
 * `now`, looking back {@link ANONYMOUS_USAGE_LOOKBACK_DAYS} days (no read model says which days have calls;
 * a destroyed or absent key costs one indexed look-up). A sweep gap longer than that leaves the older days'
 * keys live. Idempotent.
 * @returns how many days had a live key destroyed now.
 */
export async function destroyAnonymousUsageDayKeys(erasure: Pick<ErasureDeps, 'destroyKeys'>, now: number): Promise<number> {
  const days = PLAN_RETENTION.free.usageIpDays ?? 90;
  const end = Math.floor((now - days * DAY_MS) / USAGE_DAY_MS);
  const at = new Date(now).toISOString();
  let destroyed = 0;
  for (let d = end - ANONYMOUS_USAGE_LOOKBACK_DAYS; d < end; d++) {
    if ((await erasure.destroyKeys(usageDayKeyId(null, d * USAGE_DAY_MS), at)).length) destroyed += 1;
  }
  return destroyed;
}

/**
 * Deletes the tenant's completed usage export files made with `include_details` whose range starts before
 * `before` (they hold full IP addresses and user agents of calls past `usage_ip_days`, while the plan's
 * export history may keep them up to 365 days): blob deleted, `UsageExportExpired` appended (the export
 * reads `expired`; a new export of the range has truncated addresses). Idempotent.
 * @returns how many files were deleted.
 */
async function expireDetailedExports(deps: RetentionDeps, tenantId: string, before: string, now: number): Promise<number> {
  const docs = await (await deps.readModels.collection('usage_exports', { indexes: [['tenant_id', 'requested_at']] })).find({ tenant_id: tenantId });
  let n = 0;
  for (const d of docs) {
    if (d.status !== 'completed' || d.include_details !== true || typeof d.blob_key !== 'string' || !(String(d.start) < before)) continue;
    await deps.blobs.delete(d.blob_key);
    const expired = { type: 'UsageExportExpired', data: { export_id: String(d.export_id), tenant_id: tenantId, expired_at: new Date(now).toISOString() } };
    await deps.erasure.events.append(exportStream(String(d.export_id)), [{ ...expired, metadata: { tenant_id: tenantId } }]);
    n += 1;
  }
  if (n) await deps.erasure.catchUp();
  return n;
}

/**
 * Erases what outlived the tenant's periods at `now` (epoch ms): biometric subjects through
 * {@link eraseSubject} (the same path as `POST /v1/privacy/erasures`), signing working files and finalized
 * documents, and the IP addresses of older usage rows (an `UsageIpsTruncated` over the rows not yet
 * truncated). Records `PrivacyRetentionSwept` when something was erased.
 * @returns the items erased (empty when nothing was due).
 */
export async function sweepTenant(deps: RetentionDeps, tenantId: string, plan: PlanName, now: number): Promise<SweepItem[]> {
  const view = await getRetention(deps.erasure.events, tenantId, plan);
  const s = view.settings;
  const cutoff = (days: number) => new Date(now - days * DAY_MS).toISOString();
  const meta = { tenant_id: tenantId };
  const items: SweepItem[] = [];

  if (s.biometric_templates_days !== null) {
    const subjects = await expiredSubjects(deps.readModels, deps.erasure.events, tenantId, cutoff(s.biometric_templates_days));
    for (const subjectId of subjects) await eraseSubject(deps.erasure, { tenantId, subjectId });
    if (subjects.length) items.push({ kind: 'biometric_subjects', count: subjects.length });
  }

  if (s.documents_days !== null || s.signed_documents_days !== null) {
    let files = 0;
    let removed = 0;
    for (const d of await deps.signing.endedDocuments(tenantId)) {
      if (d.finalized && s.signed_documents_days !== null && d.endedAt < cutoff(s.signed_documents_days)) {
        await shredSignedDocument(deps, tenantId, d.documentId, now);
        removed += 1;
      } else if (s.documents_days !== null && d.endedAt < cutoff(s.documents_days)) {
        files += await deps.signing.deleteWorkingFiles(tenantId, d.documentId);
      }
    }
    if (files) items.push({ kind: 'document_files', count: files });
    if (removed) items.push({ kind: 'signed_documents', count: removed });
  }

  if (s.usage_ip_days !== null) {
    const before = cutoff(s.usage_ip_days);
    const from = view.usage_ips_truncated_before;
    if (!from || from < before) {
      const rows = await deps.readModels.collection('usage_events', { indexes: [['tenant_id', 'created_at']] });
      const count = await rows.count({ tenant_id: tenantId, created_at: from ? { $gte: from, $lt: before } : { $lt: before } });
      if (count) {
        const t: UsageIpsTruncated = { type: USAGE_IPS_TRUNCATED, data: { tenant_id: tenantId, from, before, ipv4_prefix: IPV4_PREFIX, ipv6_prefix: IPV6_PREFIX, truncated_at: new Date(now).toISOString() } };
        await deps.erasure.events.append(retentionStream(tenantId), [{ ...t, metadata: meta }]);
        await deps.erasure.catchUp();
        items.push({ kind: 'usage_ip_rows', count });
      }
    }
    // The log's copies: the usage data keys of the days wholly before the cutoff are destroyed.
    const days = await destroyUsageDayKeys(deps.erasure, deps.readModels, tenantId, from, before, new Date(now).toISOString());
    if (days) items.push({ kind: 'usage_ip_days', count: days });
    // Export files with details (full addresses) of calls before the cutoff: deleted, the export reads expired.
    const files = await expireDetailedExports(deps, tenantId, before, now);
    if (files) items.push({ kind: 'usage_exports', count: files });
  }

  if (items.length) {
    const e: PrivacyRetentionSwept = { type: PRIVACY_RETENTION_SWEPT, data: { tenant_id: tenantId, swept_at: new Date(now).toISOString(), items } };
    await deps.erasure.events.append(retentionStream(tenantId), [{ ...e, metadata: meta }]);
  }
  return items;
}
