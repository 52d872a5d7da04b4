/**
 * The personal-data classification of every event type the service appends: for each event type, every
 * top-level field of its `data` is `personal` (with the value it reads as once erased) or `not personal`,
 * and, when the type's personal fields are encrypted, the data subject whose key encrypts them.
 *
 * This map is the single source of `docs/privacy.md`'s event inventory and of the event store's
 * crypto-shredding layer (`infra/privacy/sealing-event-store.ts`): personal fields of a type with a
 * `subject` are sealed with AES-256-GCM under that subject's data key before they reach the log, and read
 * as their `erased` replacement once the key is destroyed. Everything else (ids, event types, times,
 * tenant, credits, hashes) stays in clear: routing, billing and the signing audit need it.
 *
 * `test/unit/privacy-classification.test.ts` discovers the event types and their fields from the code and
 * fails when one is missing here; the sealing layer refuses unclassified types and fields when
 * `SELLO_PRIVACY_STRICT=1` (set for the test suite), so every test that appends an event checks it too.
 *
 * Source of the rule: issue 28 (LFPDPPP 2025 right of cancellation; crypto-shredding as in Axon's Data
 * Protection module: per-subject keys and replacement values).
 */
import { entryHash, eventName } from '../signing/document.ts';
import { usageDayKeyId } from '../usage/usage.ts';

/** A field that identifies or describes a person; `erased` is what it reads as after crypto-shredding (`undefined`: the field is absent). */
export interface PersonalField {
  readonly personal: true;
  readonly erased: unknown;
}

/** Classification of one top-level data field. */
export type FieldClass = PersonalField | 'not_personal';

/** Shorthand for a personal field and its replacement value once erased. */
export const personal = (erased: unknown): PersonalField => ({ personal: true, erased });
const N = 'not_personal' as const;

/** What the sealing layer knows of a stored event when it derives the subject key. */
export interface SubjectSource {
  type: string;
  streamName: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

/** Classification of one event type. */
export interface EventClassification {
  /** Bounded context that appends it. */
  readonly context: string;
  /** Every top-level field of `data` the type may carry (optional ones included). */
  readonly fields: Readonly<Record<string, FieldClass>>;
  /**
   * The data-subject key id its personal fields are sealed under (see {@link subjectKeyId}), or null when
   * the event carries none. Absent: the personal fields stay in clear for now (listed as pending in
   * `docs/privacy.md`).
   */
  readonly subject?: (e: SubjectSource) => string | null;
  /**
   * Set for the entries of a hash chain (the signing audit trail): the hash of a stored entry, the next
   * entry's `prev_hash`. The privacy layer then keeps a commitment of each sealed field in clear
   * (`$commitments`, see `entryHash` in `domain/signing/document.ts`), so the chain verifies before and
   * after erasure, and re-links the entries of one append to the stored form of their predecessor.
   */
  readonly chainHash?: (type: string, data: Record<string, unknown>) => string;
}

/**
 * Key id of a data subject: `<kind>:<tenant id>:<id>`. Kinds: `subject` (a face/fingerprint subject id
 * chosen by the tenant: all its templates share one key), `signing` (one signing document, its signers
 * included), `tenant` (id `profile`: the tenant's and its API keys' names, destroyed by off-boarding). Usage
 * IP addresses have keys per tenant and UTC day: `domain/usage/usage.ts` `usageDayKeyId`.
 */
export function subjectKeyId(kind: 'subject' | 'signing' | 'tenant', tenantId: string, id: string): string {
  return `${kind}:${tenantId}:${id}`;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);
const tenantOf = (e: SubjectSource): string | null => str(e.data.tenant_id) ?? str(e.metadata.tenant_id);

/** Face and fingerprint templates: one key per (tenant, subject_id). */
const biometricSubject = (e: SubjectSource): string | null => {
  const t = tenantOf(e);
  const s = str(e.data.subject_id);
  return t && s ? subjectKeyId('subject', t, s) : null;
};

/** Signing events: one key per document (stream `signing-<document id>`), signers included. */
const signingSubject = (e: SubjectSource): string | null => {
  const t = tenantOf(e);
  const id = str(e.data.document_id) ?? (e.streamName.startsWith('signing-') ? e.streamName.slice('signing-'.length) : null);
  return t && id ? subjectKeyId('signing', t, id) : null;
};

/** Hash of a stored signing event, as the audit chain computes it. */
const signingChain = (type: string, data: Record<string, unknown>): string => entryHash(eventName(type), data);
/** Signing events without personal fields: entries of the audit chain, nothing to seal. */
const chainedSigning = { context: 'signing', chainHash: signingChain } as const;
/** Signing events with personal fields: sealed per document, entries of the audit chain. */
const sealedSigning = { ...chainedSigning, subject: signingSubject } as const;

const base = { at: N, prev_hash: N } as const;

/**
 * The tenant's and its keys' names, its usage exports' and alerts' e-mail addresses (and alert webhook
 * URL): one key per tenant (`tenant:<tenant>:profile`), destroyed by off-boarding.
 */
const tenantProfileSubject = (e: SubjectSource): string | null => {
  const t = tenantOf(e);
  return t ? subjectKeyId('tenant', t, 'profile') : null;
};

/**
 * Usage batches (`ApiCallsRecorded` with `personal_strings`): one key per tenant and UTC day of the calls
 * (`usage:<tenant>:<YYYY-MM-DD>`, destroyed by the retention sweep past `usage_ip_days` and by
 * off-boarding). Events written before issue 28 have no `personal_strings`: nothing to seal.
 */
const usageDaySubject = (e: SubjectSource): string | null => {
  if (!Array.isArray(e.data.personal_strings)) return null;
  const first = Array.isArray(e.data.created_at) ? e.data.created_at[0] : undefined;
  return typeof first === 'number' ? usageDayKeyId(str(e.data.tenant_id), first) : null;
};

/** Every event type the service appends, by type. */
export const EVENT_CLASSIFICATION: Readonly<Record<string, EventClassification>> = {
  // --- face matching (domain/face-matching/events.ts)
  FaceEmbeddingEnrolled: {
    context: 'face-matching',
    subject: biometricSubject,
    fields: {
      embedding_id: N,
      tenant_id: N,
      subject_id: N,
      template_f32le_b64: personal(''),
      template_version: N,
      quality_score: N,
      liveness_score: N,
      liveness_computed: N,
      enrollment_source: personal(null),
      metadata: personal({}),
      created_at: N,
    },
  },
  FaceEmbeddingDeleted: { context: 'face-matching', fields: { embedding_id: N, tenant_id: N, subject_id: N, deleted_at: N } },
  FaceEmbeddingsPurged: { context: 'face-matching', fields: { tenant_id: N, subject_id: N, purged_at: N } },
  FaceEmbeddingVerified: { context: 'face-matching', fields: { embedding_id: N, tenant_id: N, subject_id: N, similarity: N, threshold: N, verified_at: N } },

  // --- fingerprint matching (domain/fingerprint/events.ts)
  FingerprintTemplateEnrolled: {
    context: 'fingerprint',
    subject: biometricSubject,
    fields: {
      template_id: N,
      tenant_id: N,
      subject_id: N,
      finger_position: N,
      width: N,
      height: N,
      minutiae_b64: personal(''),
      minutiae_count: N,
      field_b64: personal(undefined),
      quality_score: N,
      template_version: N,
      source: N,
      metadata: personal({}),
      created_at: N,
    },
  },
  FingerprintTemplateDeleted: { context: 'fingerprint', fields: { template_id: N, tenant_id: N, subject_id: N, deleted_at: N } },
  FingerprintTemplatesPurged: { context: 'fingerprint', fields: { tenant_id: N, subject_id: N, purged_at: N } },
  FingerprintVerified: { context: 'fingerprint', fields: { template_id: N, tenant_id: N, subject_id: N, score: N, threshold: N, verified_at: N } },

  // --- signing (domain/signing/document.ts): sealed under the document's key (signers included), the audit
  // chain kept over hash commitments of the sealed fields (docs/privacy.md, "Signing audit chain").
  'signing.document_created': {
    ...sealedSigning,
    fields: {
      ...base,
      document_id: N,
      tenant_id: N,
      title: personal('[erased]'),
      description: personal(null),
      message: personal(null),
      notify_email: personal(null),
      expiry_date: N,
      file: personal({ name: '[erased]', size: 0, pages: 0 }),
      document_sha256: N,
      blob_key: N,
      link_base: N,
      signers: personal([]),
      user: N,
      language: N,
      time_zone: N,
    },
  },
  'signing.invitations_sent': {
    ...sealedSigning,
    fields: { ...base, signer_ids: N, recipients: personal([]), reminder_days: N, custom_message: personal(null), user: N },
  },
  'signing.link_issued': { ...chainedSigning, fields: { ...base, signer_id: N, token_hash: N, expires_at: N, purpose: N } },
  'signing.document_viewed': { ...sealedSigning, fields: { ...base, signer_id: N, ip_address: personal(''), user_agent: personal('') } },
  'signing.document_signed': {
    ...sealedSigning,
    fields: {
      ...base,
      signer_id: N,
      ip_address: personal(''),
      user_agent: personal(''),
      signature_id: N,
      method: N,
      typed_name: personal(null),
      image_blob: N,
      image_sha256: N,
      consent: N,
      // e.firma signatures (issue 29): the certificate's holder (names, RFC, CURP, serial and hash of the
      // certificate) is personal; the issuer (the SAT's CA), the OCSP result, its times and the blob keys are not.
      efirma: personal(null),
      efirma_validation: N,
    },
  },
  'signing.document_declined': { ...sealedSigning, fields: { ...base, signer_id: N, reason: personal(''), ip_address: personal(''), user_agent: personal('') } },
  'signing.reminder_sent': { ...sealedSigning, fields: { ...base, signer_ids: N, recipients: personal([]) } },
  'signing.document_completed': { ...chainedSigning, fields: { ...base } },
  'signing.document_finalized': {
    ...chainedSigning,
    fields: { ...base, final_sha256: N, audit_sha256: N, certificate_sha256: N, chain_head: N, timestamped: N, user: N, conservation: N },
  },
  'signing.document_expired': { ...chainedSigning, fields: { ...base, expired_at: N } },
  'signing.document_cancelled': { ...sealedSigning, fields: { ...base, reason: personal(null), user: N } },
  'signing.document_deleted': { ...chainedSigning, fields: { ...base, user: N } },
  // Finalize claims (stream of their own per document): a lease, no personal data.
  'signing_finalize.claimed': { context: 'signing', fields: { claim_id: N, at: N, expires_at: N } },
  'signing_finalize.released': { context: 'signing', fields: { claim_id: N, at: N, expires_at: N } },

  // --- privacy (domain/privacy/erasure.ts): erasure requests and receipts, no personal data
  PrivacyErasureRequested: {
    context: 'privacy',
    // email_digest: HMAC-SHA-256 of the address under a tenant data key (`erasure-email:<tenant>`): pseudonymised.
    fields: { erasure_id: N, tenant_id: N, subject_id: N, email_digest: personal(null), requested_at: N },
  },
  PrivacySigningDocumentErased: { context: 'privacy', fields: { erasure_id: N, tenant_id: N, document_id: N, erased_at: N } },
  PrivacySubjectErased: { context: 'privacy', fields: { erasure_id: N, tenant_id: N, subject_id: N, erased_at: N } },
  // Blocking of a finalized signing document under its retention period (issue 28 item 6): ids and times;
  // a blocked file's download records the API key id (not personal: the tenant's own credential).
  PrivacySigningDocumentBlocked: { context: 'privacy', fields: { erasure_id: N, tenant_id: N, document_id: N, blocked_at: N, blocked_until: N } },
  PrivacyBlockedDocumentDownloaded: { context: 'privacy', fields: { tenant_id: N, document_id: N, file: N, key_id: N, downloaded_at: N } },
  PrivacyErasureCompleted: { context: 'privacy', fields: { erasure_id: N, tenant_id: N, completed_at: N, items: N } },
  // --- privacy retention and off-boarding (domain/privacy/retention.ts, domain/privacy/offboarding.ts)
  PrivacyRetentionSet: { context: 'privacy', fields: { tenant_id: N, settings: N, set_at: N } },
  PrivacyRetentionSwept: { context: 'privacy', fields: { tenant_id: N, swept_at: N, items: N } },
  UsageIpsTruncated: { context: 'privacy', fields: { tenant_id: N, from: N, before: N, ipv4_prefix: N, ipv6_prefix: N, truncated_at: N } },
  PrivacyOffboardingRequested: { context: 'privacy', fields: { offboarding_id: N, tenant_id: N, requested_at: N } },
  PrivacyOffboardingCompleted: { context: 'privacy', fields: { offboarding_id: N, tenant_id: N, completed_at: N, items: N } },
  PrivacyTenantProfileErased: { context: 'privacy', fields: { offboarding_id: N, tenant_id: N, erased_at: N } },

  // --- tenancy (domain/tenancy/tenancy.ts)
  TenantCreated: { context: 'tenancy', subject: tenantProfileSubject, fields: { tenant_id: N, name: personal('[erased]'), plan: N, created_at: N } },
  TenantPlanChanged: { context: 'tenancy', fields: { tenant_id: N, plan: N, changed_at: N } },
  TenantLocaleSet: { context: 'tenancy', fields: { tenant_id: N, language: N, time_zone: N, set_at: N } },
  TenantLimitsSet: { context: 'tenancy', fields: { tenant_id: N, requests_per_minute: N, concurrent_requests: N, set_at: N } },
  ApiKeyCreated: {
    context: 'tenancy',
    subject: tenantProfileSubject,
    fields: { key_id: N, tenant_id: N, key_hash: N, hint: N, permissions: N, test: N, name: personal(null), created_at: N },
  },
  ApiKeyRevoked: { context: 'tenancy', fields: { key_id: N, tenant_id: N, revoked_at: N } },

  // --- credits (domain/credits/credits.ts): billing, no personal data
  CreditsPurchased: { context: 'credits', fields: { tenant_id: N, amount: N, reason: N, granted_at: N } },
  CreditsReserved: {
    context: 'credits',
    fields: { tenant_id: N, reservation_id: N, amount: N, from_monthly: N, from_purchased: N, period: N, endpoint: N, reserved_at: N, holder: N, lease_expires_at: N, client_tenant_id: N },
  },
  CreditAccountLinked: { context: 'credits', fields: { tenant_id: N, billed_to: N, monthly_cap: N, deployment_id: N, linked_at: N } },
  CreditCapSet: { context: 'credits', fields: { tenant_id: N, monthly_cap: N, set_at: N } },
  CreditsCommitted: { context: 'credits', fields: { tenant_id: N, reservation_id: N, amount: N, endpoint: N, committed_at: N } },
  CreditsReleased: { context: 'credits', fields: { tenant_id: N, reservation_id: N, reason: N, released_at: N } },

  // --- usage (domain/usage/usage.ts): the caller's IP address and user agent
  ApiCallRecorded: {
    context: 'usage',
    fields: {
      request_id: N,
      tenant_id: N,
      key_id: N,
      endpoint: N,
      method: N,
      status_code: N,
      response_time: N,
      request_size: N,
      response_size: N,
      ip_address: personal(''),
      user_agent: personal(null),
      credits_charged: N,
      created_at: N,
      subject_id: N,
    },
  },
  ApiCallsRecorded: {
    context: 'usage',
    subject: usageDaySubject,
    fields: {
      tenant_id: N,
      // The batch's distinct key ids, endpoints and methods (and, in events written before issue 28 without
      // `personal_strings`, every IP address and user agent, in clear: docs/privacy.md).
      strings: N,
      // The batch's distinct IP addresses and user agents, sealed per tenant and UTC day.
      personal_strings: personal([]),
      // Index into strings of the face/fingerprint subject_id the call named (an id the tenant chose, as in
      // the biometric events), so an erasure of the subject clears the rows' address and user agent.
      subject_id: N,
      request_id: N,
      key_id: N,
      endpoint: N,
      method: N,
      ip_address: N,
      user_agent: N,
      status_code: N,
      response_time: N,
      request_size: N,
      response_size: N,
      credits_charged: N,
      created_at: N,
    },
  },

  // --- usage exports, alerts, dashboard links (domain/usage/)
  UsageExportRequested: {
    context: 'usage',
    subject: tenantProfileSubject,
    fields: { export_id: N, tenant_id: N, format: N, start: N, end: N, include_details: N, email_to: personal(null), requested_at: N, estimated_rows: N },
  },
  UsageExportProgressed: { context: 'usage', fields: { export_id: N, tenant_id: N, rows: N, percent: N, at: N } },
  UsageExportCompleted: { context: 'usage', fields: { export_id: N, tenant_id: N, rows: N, bytes: N, blob_key: N, completed_at: N, expires_at: N } },
  UsageExportFailed: { context: 'usage', fields: { export_id: N, tenant_id: N, reason: N, failed_at: N } },
  UsageExportExpired: { context: 'usage', fields: { export_id: N, tenant_id: N, expired_at: N } },
  UsageAlertCreated: {
    context: 'usage',
    subject: tenantProfileSubject,
    fields: { alert_id: N, tenant_id: N, name: N, type: N, condition: N, notification: personal({}), enabled: N, secret_sealed: N, created_at: N },
  },
  UsageAlertUpdated: {
    context: 'usage',
    subject: tenantProfileSubject,
    fields: { alert_id: N, tenant_id: N, name: N, condition: N, notification: personal({}), enabled: N, updated_at: N },
  },
  UsageAlertDeleted: { context: 'usage', fields: { alert_id: N, tenant_id: N, deleted_at: N } },
  UsageAlertNotified: { context: 'usage', fields: { alert_id: N, tenant_id: N, fire_id: N, webhook: N, email: N, notified_at: N } },
  DashboardLinkIssued: { context: 'usage', fields: { link_id: N, tenant_id: N, token_hash: N, expires_at: N, issued_at: N } },
  DashboardLinkUsed: { context: 'usage', fields: { link_id: N, tenant_id: N, used_at: N } },

  // --- webhooks (domain/webhooks/): endpoints are the tenant's infrastructure
  'webhook.endpoint.created': {
    context: 'webhooks',
    fields: { endpoint_id: N, tenant_id: N, url: N, events: N, description: N, active: N, secret_sealed: N, created_at: N },
  },
  'webhook.endpoint.updated': { context: 'webhooks', fields: { endpoint_id: N, tenant_id: N, url: N, events: N, description: N, active: N, updated_at: N } },
  'webhook.endpoint.disabled': { context: 'webhooks', fields: { endpoint_id: N, tenant_id: N, reason: N, delivery_id: N, updated_at: N } },
  'webhook.endpoint.deleted': { context: 'webhooks', fields: { endpoint_id: N, tenant_id: N, deleted_at: N } },
  'webhook.delivery.attempted': {
    context: 'webhooks',
    fields: {
      delivery_id: N,
      endpoint_id: N,
      tenant_id: N,
      event_id: N,
      event_type: N,
      attempt: N,
      outcome: N,
      status: N,
      response_status: N,
      response_time: N,
      error_message: N,
      created_at: N,
      attempted_at: N,
      next_attempt_at: N,
    },
  },

  // --- webhook catalog events (stream webhook-events-<tenant>, domain/webhooks/catalog.ts)
  'document.signed': {
    context: 'signing',
    subject: signingSubject,
    fields: { document_id: N, signer: personal({}), signed_at: N, ip_address: personal('') },
  },
  'document.completed': { context: 'signing', subject: signingSubject, fields: { document_id: N, title: personal('[erased]'), completed_at: N, signers: personal([]) } },
  'document.expired': { context: 'signing', subject: signingSubject, fields: { document_id: N, title: personal('[erased]'), expired_at: N } },
  'document.declined': {
    context: 'signing',
    subject: signingSubject,
    fields: { document_id: N, title: personal('[erased]'), signer: personal({}), reason: personal(''), declined_at: N },
  },
  'face.verified': {
    context: 'face',
    fields: { verified: N, confidence: N, distance: N, threshold: N, face1_detected: N, face2_detected: N, request_id: N },
  },
  'face.liveness.detected': { context: 'face', fields: { is_live: N, confidence: N, anti_spoofing_score: N, threshold: N, checks: N, request_id: N } },
  'ocr.completed': {
    context: 'ocr',
    fields: { operation: N, document_type: N, success: N, fields_found: N, validation: N, is_authentic: N, confidence: N, processing_time: N },
  },
  'ocr.id.extracted': {
    context: 'ocr',
    // Nothing of the holder (issue 28): the masked CURP (its first 4 letters, the name's initials) is no
    // longer written; events appended before keep it in clear (docs/privacy.md).
    fields: { document_type: N, document_version: N, validation: N, has_back: N, is_authentic: N },
  },
  'user.credits.low': { context: 'credits', fields: { credit_balance: N, threshold: N, monthly_allowance: N, plan: N } },
  'api.rate.limited': { context: 'platform', fields: { limit: N, rate_class: N, endpoint: N, retry_after: N } },

  // --- registry lookups (domain/registry/events.ts): a keyed fingerprint of the person looked up
  'registry.lookup.completed': {
    context: 'registry',
    fields: {
      operation: N,
      // HMAC-SHA-256 under REGISTRY_FINGERPRINT_KEY of the query (names, dates, CURP): pseudonymised.
      fingerprint: personal(null),
      outcome: N,
      provider: N,
      sandbox: N,
      provider_latency_ms: N,
      http_status: N,
      reason: N,
      parameter: N,
      registry_status: N,
    },
  },

  // --- deployments (domain/deployments/deployment.ts): the tenant's clients are businesses
  'deployment.created': {
    context: 'deployments',
    fields: { deployment_id: N, tenant_id: N, client_id: N, client_name: N, domain: N, domain_unicode: N, platform: N, environment: N, plan: N, config: N, created_at: N, monthly_credit_cap: N },
  },
  'deployment.provisioning.requested': { context: 'deployments', fields: { deployment_id: N, tenant_id: N, run: N, reason: N, from_step: N, at: N } },
  'deployment.step.started': { context: 'deployments', fields: { deployment_id: N, tenant_id: N, run: N, step: N, at: N } },
  'deployment.step.completed': { context: 'deployments', fields: { deployment_id: N, tenant_id: N, run: N, step: N, at: N, result: N } },
  'deployment.step.failed': { context: 'deployments', fields: { deployment_id: N, tenant_id: N, run: N, step: N, at: N, code: N, reason: N } },
  'deployment.activated': { context: 'deployments', fields: { deployment_id: N, tenant_id: N, run: N, at: N } },
  'deployment.updated': { context: 'deployments', fields: { deployment_id: N, tenant_id: N, at: N, changes: N } },
  'deployment.keys.revealed': { context: 'deployments', fields: { deployment_id: N, tenant_id: N, key_ids: N, at: N } },
  'deployment.deactivated': { context: 'deployments', fields: { deployment_id: N, tenant_id: N, at: N } },
  'deployment.keys.revoked': { context: 'deployments', fields: { deployment_id: N, tenant_id: N, key_ids: N, at: N } },
  'deployment.slot.taken': { context: 'deployments', fields: { deployment_id: N } },
  'deployment.slot.released': { context: 'deployments', fields: { deployment_id: N } },
  'deployment.claim.taken': { context: 'deployments', fields: { deployment_id: N } },
  'deployment.claim.released': { context: 'deployments', fields: { deployment_id: N } },
};

/** True when `f` is a personal field. */
export function isPersonal(f: FieldClass | undefined): f is PersonalField {
  return typeof f === 'object' && f !== null && f.personal === true;
}

/** Names of the personal fields of `type` (empty for an unclassified type). */
export function personalFields(type: string): string[] {
  const c = EVENT_CLASSIFICATION[type];
  return c ? Object.entries(c.fields).filter(([, f]) => isPersonal(f)).map(([k]) => k) : [];
}

/**
 * True when an event read from the store had its personal fields erased (its subject's key destroyed):
 * the store's privacy layer then sets `metadata.erased_at` and the fields read as their replacement values.
 * Projections skip what such an event would add (an erased template is neither listed nor indexed).
 */
export function isErasedEvent(e: { metadata: Record<string, unknown> }): boolean {
  return e.metadata.erased_at !== undefined;
}

/** Field of a stored chained event with the commitments of its sealed fields (see `entryHash`, `domain/signing/document.ts`). */
export const COMMITMENTS = '$commitments';

/**
 * `data` of an event of `type` as it reads once its subject is erased: each personal field set to its
 * `erased` replacement (removed when that is `undefined`). For an entry of a hash chain (one carrying
 * `$commitments`) only the committed fields are replaced, so the entry hashes as it did before.
 */
export function erasedData(type: string, data: Record<string, unknown>): Record<string, unknown> {
  const c = EVENT_CLASSIFICATION[type];
  const out = { ...data };
  if (!c) return out;
  const commitments = data[COMMITMENTS];
  const only = commitments !== null && typeof commitments === 'object' ? new Set(Object.keys(commitments)) : null;
  for (const [f, cls] of Object.entries(c.fields)) {
    if (!isPersonal(cls) || (only && !only.has(f))) continue;
    if (cls.erased === undefined) delete out[f];
    else out[f] = structuredClone(cls.erased);
  }
  return out;
}
