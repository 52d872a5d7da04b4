/**
 * Face-matching events. Every enrollment, verification and deletion is an event; the listing read model
 * and the vector index are projections of them (`projections/face-embeddings/`), so a replay rebuilds both.
 *
 * Streams:
 * - `face-embedding-<embeddingId>`: `FaceEmbeddingEnrolled` (revision 0), then at most one
 *   `FaceEmbeddingDeleted`. Appends use the expected revision, so two concurrent deletions cannot both win.
 * - `face-matching-<tenantId>`: `FaceEmbeddingsPurged` (delete by subject, or all of a tenant's embeddings).
 *   A purge deletes every embedding of the tenant (or of the subject) enrolled before it in the global log.
 * - `face-verifications-<tenantId>`: `FaceEmbeddingVerified` (successful 1:1 verifications).
 *
 * Every event carries `metadata.tenant_id` (and `metadata.request_id` when a request caused it).
 */

/** A face template was enrolled under a subject. `template` is the 512-d unit vector (see template.ts). */
export type FaceEmbeddingEnrolled = {
  type: 'FaceEmbeddingEnrolled';
  data: {
    embedding_id: string;
    tenant_id: string;
    subject_id: string;
    /** The 512 float32 components (L2-normalised), little-endian, base64 (2,732 characters; JSON numbers would take ~4x). */
    template_f32le_b64: string;
    template_version: string;
    quality_score: number | null;
    liveness_score: number | null;
    /** True when the service computed `liveness_score` because the client sent none. */
    liveness_computed: boolean;
    enrollment_source: string | null;
    metadata: Record<string, unknown>;
    created_at: string;
  };
};

/** One embedding was deleted by id. */
export type FaceEmbeddingDeleted = {
  type: 'FaceEmbeddingDeleted';
  data: { embedding_id: string; tenant_id: string; subject_id: string; deleted_at: string };
};

/** Every embedding of a subject (`subject_id` set) or of the whole tenant (`subject_id` null) was deleted. */
export type FaceEmbeddingsPurged = {
  type: 'FaceEmbeddingsPurged';
  data: { tenant_id: string; subject_id: string | null; purged_at: string };
};

/** A 1:1 verification against an embedding succeeded (similarity at or above the threshold). */
export type FaceEmbeddingVerified = {
  type: 'FaceEmbeddingVerified';
  data: { embedding_id: string; tenant_id: string; subject_id: string; similarity: number; threshold: number; verified_at: string };
};

export type FaceMatchingEvent = FaceEmbeddingEnrolled | FaceEmbeddingDeleted | FaceEmbeddingsPurged | FaceEmbeddingVerified;

export const FACE_MATCHING_EVENT_TYPES = ['FaceEmbeddingEnrolled', 'FaceEmbeddingDeleted', 'FaceEmbeddingsPurged', 'FaceEmbeddingVerified'] as const;

/** Encodes a template for {@link FaceEmbeddingEnrolled}: float32 little-endian, base64. */
export function encodeTemplate(v: Float32Array | readonly number[]): string {
  const buf = Buffer.alloc(v.length * 4);
  for (let i = 0; i < v.length; i++) buf.writeFloatLE(v[i] as number, i * 4);
  return buf.toString('base64');
}

/** Decodes {@link encodeTemplate}'s output. @throws Error when the length is not a multiple of 4 bytes. */
export function decodeTemplate(b64: string): Float32Array {
  const buf = Buffer.from(b64, 'base64');
  if (buf.length % 4 !== 0) throw new Error('template: byte length is not a multiple of 4');
  const out = new Float32Array(buf.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = buf.readFloatLE(i * 4);
  return out;
}

/** Stream of one embedding. */
export const embeddingStream = (embeddingId: string): string => `face-embedding-${embeddingId}`;
/** Stream of a tenant's purges (bulk deletions). */
export const tenantFaceStream = (tenantId: string): string => `face-matching-${tenantId}`;
/** Stream of a tenant's successful verifications. */
export const verificationStream = (tenantId: string): string => `face-verifications-${tenantId}`;
