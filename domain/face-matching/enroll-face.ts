import type { FaceMatchingDeps } from './deps.ts';
import { embeddingStream, encodeTemplate, type FaceEmbeddingEnrolled } from './events.ts';
import { FaceMatchingError } from './errors.ts';
import { TEMPLATE_DIMENSION, TEMPLATE_VERSION } from './template.ts';
import { MAX_METADATA_DEPTH, nestedDeeperThan } from '../shared/json-depth.ts';

/** Longest accepted `subject_id` / `enrollment_source` (characters) and `metadata` (bytes of JSON). */
export const LIMITS = { subjectId: 256, enrollmentSource: 256, metadataBytes: 16_384 } as const;

export interface EnrollFaceInput {
  tenantId: string;
  subjectId: string;
  /** The 512-d `fuse-v1` template (template.ts `buildTemplate`). */
  template: Float32Array | readonly number[];
  qualityScore: number | null;
  livenessScore: number | null;
  livenessComputed: boolean;
  enrollmentSource: string | null;
  metadata: Record<string, unknown>;
  requestId?: string;
}

export interface EnrollFaceResult {
  embeddingId: string;
  subjectId: string;
  embeddingDimension: number;
  createdAt: string;
}

/**
 * Enrolls a template: appends `FaceEmbeddingEnrolled` to a new `face-embedding-<id>` stream and waits for
 * the projections, so the embedding is searchable and listed when this resolves.
 * @throws FaceMatchingError `invalid_request` on a bad subject id, score, source, metadata or template.
 */
export async function enrollFace(deps: FaceMatchingDeps, input: EnrollFaceInput): Promise<EnrollFaceResult> {
  validateSubjectId(input.subjectId);
  for (const [name, v] of [['quality_score', input.qualityScore], ['liveness_score', input.livenessScore]] as const) {
    if (v !== null && !(typeof v === 'number' && v >= 0 && v <= 1)) throw new FaceMatchingError('invalid_request', `${name} must be a number from 0 to 1`, { field: name });
  }
  if (input.enrollmentSource !== null && (typeof input.enrollmentSource !== 'string' || input.enrollmentSource.length > LIMITS.enrollmentSource)) {
    throw new FaceMatchingError('invalid_request', `enrollment_source must be a string of at most ${LIMITS.enrollmentSource} characters`, { field: 'enrollment_source' });
  }
  if (input.template.length !== TEMPLATE_DIMENSION || !Array.from(input.template).every(Number.isFinite)) {
    throw new FaceMatchingError('invalid_request', `template must have ${TEMPLATE_DIMENSION} finite components`, { field: 'template' });
  }
  const embeddingId = deps.newId();
  const createdAt = new Date(deps.now()).toISOString();
  const event: FaceEmbeddingEnrolled = {
    type: 'FaceEmbeddingEnrolled',
    data: {
      embedding_id: embeddingId,
      tenant_id: input.tenantId,
      subject_id: input.subjectId,
      template_f32le_b64: encodeTemplate(input.template),
      template_version: TEMPLATE_VERSION,
      quality_score: input.qualityScore,
      liveness_score: input.livenessScore,
      liveness_computed: input.livenessComputed,
      enrollment_source: input.enrollmentSource,
      metadata: input.metadata,
      created_at: createdAt,
    },
  };
  await deps.events.append(embeddingStream(embeddingId), [{ ...event, metadata: meta(input.tenantId, input.requestId) }], { expectedRevision: 'no_stream' });
  await deps.catchUp();
  return { embeddingId, subjectId: input.subjectId, embeddingDimension: TEMPLATE_DIMENSION, createdAt };
}

/** `subject_id`: 1-256 characters, no control characters. @throws FaceMatchingError `invalid_request`. */
export function validateSubjectId(subjectId: unknown, field = 'subject_id'): asserts subjectId is string {
  // eslint-disable-next-line no-control-regex
  if (typeof subjectId !== 'string' || subjectId.length === 0 || subjectId.length > LIMITS.subjectId || /[\u0000-\u001f\u007f]/.test(subjectId)) {
    throw new FaceMatchingError('invalid_request', `${field} must be 1-${LIMITS.subjectId} characters without control characters`, { field });
  }
}

/**
 * Parses the multipart `metadata` field: a JSON object string (spec, General rules 3).
 * @throws FaceMatchingError `invalid_request` when it is not a JSON object, exceeds 16 KiB or nests deeper than {@link MAX_METADATA_DEPTH} levels.
 */
export function parseMetadata(raw: string | undefined | null): Record<string, unknown> {
  if (raw === undefined || raw === null || raw === '') return {};
  if (Buffer.byteLength(raw, 'utf8') > LIMITS.metadataBytes) throw new FaceMatchingError('invalid_request', `metadata must be at most ${LIMITS.metadataBytes} bytes`, { field: 'metadata' });
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new FaceMatchingError('invalid_request', 'metadata must be a JSON object string', { field: 'metadata' });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new FaceMatchingError('invalid_request', 'metadata must be a JSON object, not an array or a scalar', { field: 'metadata' });
  if (nestedDeeperThan(value, MAX_METADATA_DEPTH)) throw new FaceMatchingError('invalid_request', `metadata may nest at most ${MAX_METADATA_DEPTH} levels`, { field: 'metadata', max_depth: MAX_METADATA_DEPTH });
  return value as Record<string, unknown>;
}

export function meta(tenantId: string, requestId?: string): Record<string, unknown> {
  return requestId ? { tenant_id: tenantId, request_id: requestId } : { tenant_id: tenantId };
}
