/**
 * Fingerprint-matching events. Every enrollment, verification and deletion is an event; the listing read
 * model (`fingerprint_templates`) is their projection (`projections/fingerprint-templates/`), so
 * `npm run cli -- replay` rebuilds it.
 *
 * Streams:
 * - `fingerprint-template-<templateId>`: `FingerprintTemplateEnrolled` (revision 0), then at most one
 *   `FingerprintTemplateDeleted` (appended at the expected revision).
 * - `fingerprint-matching-<tenantId>`: `FingerprintTemplatesPurged` (by subject, or all of a tenant's).
 * - `fingerprint-verifications-<tenantId>`: `FingerprintVerified` (successful 1:1 verifications).
 *
 * Every event carries `metadata.tenant_id` (and `metadata.request_id` when a request caused it).
 */

/** A template was enrolled. Minutiae as `encodeMinutiae` (template.ts): 6 bytes each, base64. */
export type FingerprintTemplateEnrolled = {
  type: 'FingerprintTemplateEnrolled';
  data: {
    template_id: string;
    tenant_id: string;
    subject_id: string;
    /** ANSI/NIST-ITL 1-2011 finger position code 0-10 (0 = unknown, 1 = right thumb ... 10 = left little). */
    finger_position: number;
    width: number;
    height: number;
    minutiae_b64: string;
    minutiae_count: number;
    /**
     * Coarse ridge-orientation field as `encodeFieldFromBlocks` (field.ts), base64, about 1 KB; fused with the
     * minutiae score. Absent on ISO imports and on templates enrolled before it existed (matched on minutiae alone).
     */
    field_b64?: string;
    quality_score: number;
    template_version: string;
    /** `image` (extracted by us) or `iso` (imported ISO/IEC 19794-2 record). */
    source: 'image' | 'iso';
    metadata: Record<string, unknown>;
    created_at: string;
  };
};

export type FingerprintTemplateDeleted = {
  type: 'FingerprintTemplateDeleted';
  data: { template_id: string; tenant_id: string; subject_id: string; deleted_at: string };
};

/** Every template of a subject (`subject_id` set) or of the tenant (null) enrolled before this event was deleted. */
export type FingerprintTemplatesPurged = {
  type: 'FingerprintTemplatesPurged';
  data: { tenant_id: string; subject_id: string | null; purged_at: string };
};

export type FingerprintVerified = {
  type: 'FingerprintVerified';
  data: { template_id: string; tenant_id: string; subject_id: string; score: number; threshold: number; verified_at: string };
};

export type FingerprintEvent = FingerprintTemplateEnrolled | FingerprintTemplateDeleted | FingerprintTemplatesPurged | FingerprintVerified;

export const FINGERPRINT_EVENT_TYPES = ['FingerprintTemplateEnrolled', 'FingerprintTemplateDeleted', 'FingerprintTemplatesPurged', 'FingerprintVerified'] as const;

export const templateStream = (templateId: string): string => `fingerprint-template-${templateId}`;
export const tenantFingerprintStream = (tenantId: string): string => `fingerprint-matching-${tenantId}`;
export const fingerprintVerificationStream = (tenantId: string): string => `fingerprint-verifications-${tenantId}`;
