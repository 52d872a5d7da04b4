/**
 * Fingerprint-matching use cases: enroll, search (1:N), verify (1:1), list, delete, purge, read one
 * template. Pure orchestration over the ports in {@link FingerprintDeps}; templates come from the
 * inference workers' `fingerprint.extract` job or from an ISO/IEC 19794-2 record.
 */
import { WrongExpectedRevisionError } from '../../infra/ports/event-store.ts';
import type { Filter } from '../../infra/ports/read-models.ts';
import { TEMPLATES_COLLECTION, TEMPLATE_INDEXES, type FingerprintDeps, type TemplateDoc } from './deps.ts';
import { FingerprintError } from './errors.ts';
import {
  fingerprintVerificationStream, templateStream, tenantFingerprintStream,
  type FingerprintTemplateDeleted, type FingerprintTemplateEnrolled, type FingerprintTemplatesPurged, type FingerprintVerified,
} from './events.ts';
import { decodeField, matchTemplates } from './field.ts';
import { buildCylindersFast } from './cylinders-fast.ts';
import { candidateCount } from './index-lsh.ts';
import { calibratedScore, DEFAULT_THRESHOLD } from './score.ts';
import { decodeMinutiae, encodeMinutiae, TEMPLATE_VERSION, type FingerprintTemplate } from './template.ts';
import { MAX_METADATA_DEPTH, nestedDeeperThan } from '../shared/json-depth.ts';

export const LIMITS = { subjectId: 256, metadataBytes: 16_384, maxSearchLimit: 100, defaultSearchLimit: 10, listing: 1000 } as const;
/** Galleries up to this size are scored exhaustively (no index pre-selection). */
export const EXHAUSTIVE_BELOW = 2000;
/** Minimum valid cylinders for a template to be enrolled or matched. */
export const MIN_CYLINDERS = 6;

const meta = (tenantId: string, requestId?: string) => (requestId ? { tenant_id: tenantId, request_id: requestId } : { tenant_id: tenantId });

/** `subject_id`: 1-256 characters, no control characters. @throws FingerprintError `invalid_request`. */
export function validateSubjectId(subjectId: unknown, field = 'subject_id'): asserts subjectId is string {
  // eslint-disable-next-line no-control-regex
  if (typeof subjectId !== 'string' || subjectId.length === 0 || subjectId.length > LIMITS.subjectId || /[\u0000-\u001f\u007f]/.test(subjectId)) {
    throw new FingerprintError('invalid_request', `${field} must be 1-${LIMITS.subjectId} characters without control characters`, { field });
  }
}

/** `finger_position`: ANSI/NIST-ITL 1-2011 Table 8 codes 0 (unknown) to 10. @throws FingerprintError `invalid_request`. */
export function parseFingerPosition(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 0;
  const n = Number(raw);
  if (!/^\d{1,2}$/.test(raw.trim()) || !Number.isInteger(n) || n < 0 || n > 10) throw new FingerprintError('invalid_request', 'finger_position must be an integer from 0 (unknown) to 10 (ANSI/NIST-ITL finger codes)', { field: 'finger_position' });
  return n;
}

/** Parses the `metadata` field (a JSON object string, at most 16 KiB, nested at most {@link MAX_METADATA_DEPTH} levels). @throws FingerprintError `invalid_request`. */
export function parseMetadata(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined || raw === '') return {};
  if (Buffer.byteLength(raw, 'utf8') > LIMITS.metadataBytes) throw new FingerprintError('invalid_request', `metadata must be at most ${LIMITS.metadataBytes} bytes`, { field: 'metadata' });
  let v: unknown;
  try { v = JSON.parse(raw); } catch { throw new FingerprintError('invalid_request', 'metadata must be a JSON object string', { field: 'metadata' }); }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new FingerprintError('invalid_request', 'metadata must be a JSON object', { field: 'metadata' });
  if (nestedDeeperThan(v, MAX_METADATA_DEPTH)) throw new FingerprintError('invalid_request', `metadata may nest at most ${MAX_METADATA_DEPTH} levels`, { field: 'metadata', max_depth: MAX_METADATA_DEPTH });
  return v as Record<string, unknown>;
}

/** Threshold 0-100 on the calibrated score (default {@link DEFAULT_THRESHOLD}). @throws FingerprintError `invalid_request`. */
export function checkThreshold(t: number | undefined): number {
  const v = t ?? DEFAULT_THRESHOLD;
  if (!Number.isFinite(v) || v < 0 || v > 100) throw new FingerprintError('invalid_request', 'threshold must be a number from 0 to 100', { field: 'threshold' });
  return v;
}

/**
 * Refuses a template with too few usable minutiae (`usable`: its valid cylinders, when the caller has built
 * them already). @throws FingerprintError `insufficient_quality`.
 */
export function checkUsable(t: FingerprintTemplate, usable?: number): void {
  const n = usable ?? buildCylindersFast(t).n;
  if (n < MIN_CYLINDERS) throw new FingerprintError('insufficient_quality', `Only ${t.minutiae.length} minutiae (${n} usable) were found; at least ${MIN_CYLINDERS} usable minutiae are required`, { minutiae_count: t.minutiae.length, usable: n, min_usable: MIN_CYLINDERS });
}

export interface EnrollInput {
  tenantId: string;
  subjectId: string;
  fingerPosition: number;
  template: FingerprintTemplate;
  source: 'image' | 'iso';
  metadata: Record<string, unknown>;
  requestId?: string;
}

/** Enrolls a template: appends `FingerprintTemplateEnrolled`, waits for the projection. */
export async function enrollFingerprint(deps: FingerprintDeps, input: EnrollInput): Promise<{ templateId: string; createdAt: string }> {
  validateSubjectId(input.subjectId);
  checkUsable(input.template);
  const templateId = deps.newId();
  const createdAt = new Date(deps.now()).toISOString();
  const event: FingerprintTemplateEnrolled = {
    type: 'FingerprintTemplateEnrolled',
    data: {
      template_id: templateId,
      tenant_id: input.tenantId,
      subject_id: input.subjectId,
      finger_position: input.fingerPosition,
      width: input.template.width,
      height: input.template.height,
      minutiae_b64: encodeMinutiae(input.template.minutiae),
      ...(input.template.field !== undefined ? { field_b64: input.template.field } : {}),
      minutiae_count: input.template.minutiae.length,
      quality_score: input.template.quality,
      template_version: TEMPLATE_VERSION,
      source: input.source,
      metadata: input.metadata,
      created_at: createdAt,
    },
  };
  await deps.events.append(templateStream(templateId), [{ ...event, metadata: meta(input.tenantId, input.requestId) }], { expectedRevision: 'no_stream' });
  await deps.catchUp();
  return { templateId, createdAt };
}

export interface Candidate {
  template_id: string;
  subject_id: string;
  finger_position: number;
  score: number;
  metadata: Record<string, unknown>;
  created_at: string;
}

/**
 * 1:N search among the tenant's active templates: the candidate index picks the best-voted
 * `candidateCount(gallery size)` (200-400; every template when the gallery is under {@link EXHAUSTIVE_BELOW}), the
 * matcher scores them; candidates with `score >= threshold`, best first, at most `limit`. @throws FingerprintError
 * `invalid_request` (threshold, limit), `insufficient_quality` (a probe under {@link MIN_CYLINDERS} usable minutiae).
 */
export async function searchFingerprints(deps: FingerprintDeps, input: { tenantId: string; template: FingerprintTemplate; threshold?: number; limit?: number }): Promise<{ candidates: Candidate[]; threshold: number; gallerySize: number; scored: number }> {
  const threshold = checkThreshold(input.threshold);
  const limit = input.limit ?? LIMITS.defaultSearchLimit;
  if (!Number.isInteger(limit) || limit < 1 || limit > LIMITS.maxSearchLimit) throw new FingerprintError('invalid_request', `limit must be an integer from 1 to ${LIMITS.maxSearchLimit}`, { field: 'limit' });
  // A probe is held to the enrolment rule: an ISO record with no minutiae (which skips the image checks) was
  // answered 200 with nothing found, and charged.
  const probe = buildCylindersFast(input.template);
  checkUsable(input.template, probe.n);
  const probeField = input.template.field !== undefined ? decodeField(input.template.field) : undefined;
  const g = await deps.gallery.sync(input.tenantId);
  const ids = g.entries.size < EXHAUSTIVE_BELOW ? [...g.entries.keys()] : g.index.candidates(probe, candidateCount(g.entries.size));
  const scored: Array<{ id: string; score: number }> = [];
  for (const id of ids) {
    const e = g.entries.get(id);
    if (!e) continue;
    const s = calibratedScore(matchTemplates(probe, e.cylinders, probeField, e.field), probeField !== undefined && e.field !== undefined);
    if (s >= threshold) scored.push({ id, score: s });
  }
  scored.sort((a, b) => b.score - a.score);
  const col = await deps.readModels.collection<TemplateDoc>(TEMPLATES_COLLECTION, { indexes: TEMPLATE_INDEXES });
  const candidates: Candidate[] = [];
  for (const s of scored) {
    if (candidates.length >= limit) break;
    const d = await col.get(s.id);
    if (!d || !d.is_active || d.tenant_id !== input.tenantId) continue;
    candidates.push({ template_id: d.id, subject_id: d.subject_id, finger_position: d.finger_position, score: s.score, metadata: d.metadata, created_at: d.created_at });
  }
  return { candidates, threshold, gallerySize: g.entries.size, scored: ids.length };
}

/**
 * 1:1 verification against the subject's active templates (best score). A success appends
 * `FingerprintVerified`. @throws FingerprintError `subject_not_found`, `invalid_request`, `insufficient_quality` (a probe
 * under {@link MIN_CYLINDERS} usable minutiae).
 */
export async function verifyFingerprint(deps: FingerprintDeps, input: { tenantId: string; subjectId: string; template: FingerprintTemplate; threshold?: number; requestId?: string }): Promise<{ verified: boolean; score: number; threshold: number; templateId: string; fingerPosition: number }> {
  validateSubjectId(input.subjectId, 'subjectId');
  const threshold = checkThreshold(input.threshold);
  const probe = buildCylindersFast(input.template);
  checkUsable(input.template, probe.n);
  const g = await deps.gallery.sync(input.tenantId);
  const probeField = input.template.field !== undefined ? decodeField(input.template.field) : undefined;
  let best: { id: string; score: number; finger: number } | null = null;
  for (const e of g.entries.values()) {
    if (e.subjectId !== input.subjectId) continue;
    const s = calibratedScore(matchTemplates(probe, e.cylinders, probeField, e.field), probeField !== undefined && e.field !== undefined);
    if (!best || s > best.score) best = { id: e.id, score: s, finger: e.fingerPosition };
  }
  if (!best) throw new FingerprintError('subject_not_found', `No active fingerprint template of subject ${JSON.stringify(input.subjectId)} in this account`, { subject_id: input.subjectId });
  const verified = best.score >= threshold;
  if (verified) {
    const event: FingerprintVerified = { type: 'FingerprintVerified', data: { template_id: best.id, tenant_id: input.tenantId, subject_id: input.subjectId, score: best.score, threshold, verified_at: new Date(deps.now()).toISOString() } };
    await deps.events.append(fingerprintVerificationStream(input.tenantId), [{ ...event, metadata: meta(input.tenantId, input.requestId) }]);
    await deps.catchUp();
  }
  return { verified, score: best.score, threshold, templateId: best.id, fingerPosition: best.finger };
}

/** A listed template (no minutiae). */
export interface ListedTemplate {
  id: string; subject_id: string; finger_position: number; minutiae_count: number; quality_score: number; source: 'image' | 'iso';
  template_version: string; metadata: Record<string, unknown>; created_at: string; verification_count: number; last_verified_at: string | null;
  is_active: boolean; deleted_at: string | null;
}

export async function listTemplates(deps: Pick<FingerprintDeps, 'readModels'>, input: { tenantId: string; subjectId?: string; activeOnly?: boolean }): Promise<ListedTemplate[]> {
  const filter: Filter = { tenant_id: input.tenantId };
  if (input.subjectId !== undefined) { validateSubjectId(input.subjectId); filter.subject_id = input.subjectId; }
  if (input.activeOnly !== false) filter.is_active = true;
  const col = await deps.readModels.collection<TemplateDoc>(TEMPLATES_COLLECTION, { indexes: TEMPLATE_INDEXES });
  const docs = await col.find(filter, { sort: [{ field: 'created_at', order: 'desc' }, { field: 'id', order: 'asc' }], limit: LIMITS.listing });
  return docs.map((d) => ({
    id: d.id, subject_id: d.subject_id, finger_position: d.finger_position, minutiae_count: d.minutiae_count, quality_score: d.quality_score, source: d.source,
    template_version: d.template_version, metadata: d.metadata, created_at: d.created_at, verification_count: d.verification_count, last_verified_at: d.last_verified_at,
    is_active: d.is_active, deleted_at: d.deleted_at,
  }));
}

/** One active template of the tenant with its minutiae. @throws FingerprintError `template_not_found`. */
export async function getTemplate(deps: Pick<FingerprintDeps, 'readModels'>, input: { tenantId: string; templateId: string }): Promise<{ doc: TemplateDoc; template: FingerprintTemplate }> {
  const col = await deps.readModels.collection<TemplateDoc>(TEMPLATES_COLLECTION, { indexes: TEMPLATE_INDEXES });
  const d = /^[A-Za-z0-9_-]{1,128}$/.test(input.templateId) ? await col.get(input.templateId) : null;
  if (!d || !d.is_active || d.tenant_id !== input.tenantId) throw new FingerprintError('template_not_found', 'No such template in this account', { template_id: input.templateId });
  return { doc: d, template: { width: d.width, height: d.height, minutiae: decodeMinutiae(d.minutiae_b64), quality: d.quality_score } };
}

/** Deletes one template (expected revision 0, so two concurrent deletions cannot both win). */
export async function deleteTemplate(deps: FingerprintDeps, input: { tenantId: string; templateId: string; requestId?: string }): Promise<void> {
  const { doc } = await getTemplate(deps, input);
  const event: FingerprintTemplateDeleted = { type: 'FingerprintTemplateDeleted', data: { template_id: doc.id, tenant_id: input.tenantId, subject_id: doc.subject_id, deleted_at: new Date(deps.now()).toISOString() } };
  try {
    await deps.events.append(templateStream(doc.id), [{ ...event, metadata: meta(input.tenantId, input.requestId) }], { expectedRevision: 0 });
  } catch (error) {
    if (error instanceof WrongExpectedRevisionError) throw new FingerprintError('template_not_found', 'No such template in this account', { template_id: input.templateId });
    throw error;
  }
  await deps.catchUp();
}

/** Deletes every template of a subject, or of the tenant; returns how many active ones there were. */
export async function purgeTemplates(deps: FingerprintDeps, input: { tenantId: string; subjectId?: string; requestId?: string }): Promise<number> {
  if (input.subjectId !== undefined) validateSubjectId(input.subjectId);
  const col = await deps.readModels.collection<TemplateDoc>(TEMPLATES_COLLECTION, { indexes: TEMPLATE_INDEXES });
  const scope: Filter = { tenant_id: input.tenantId, is_active: true };
  if (input.subjectId !== undefined) scope.subject_id = input.subjectId;
  const n = await col.count(scope);
  const event: FingerprintTemplatesPurged = { type: 'FingerprintTemplatesPurged', data: { tenant_id: input.tenantId, subject_id: input.subjectId ?? null, purged_at: new Date(deps.now()).toISOString() } };
  await deps.events.append(tenantFingerprintStream(input.tenantId), [{ ...event, metadata: meta(input.tenantId, input.requestId) }]);
  await deps.catchUp();
  return n;
}
