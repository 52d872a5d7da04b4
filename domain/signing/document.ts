/**
 * The signing document aggregate: its events, its state and `evolve` (Emmett-style slice).
 *
 * Stream: `signing-<document_id>`. Every event's `data` carries `at` (ISO time of the fact, from the
 * injected clock) and `prev_hash`: the SHA-256 (hex) of the previous entry of the document's audit
 * chain, the first one chained to the SHA-256 of the uploaded PDF. The entry hash of an event is
 * {@link entryHash} of its type and data, so anyone holding the raw stream can recompute the chain
 * (`npm run cli -- signing audit --document ID`) and prove no entry was edited, removed or inserted.
 */
import { createHash } from 'node:crypto';
import { DEFAULT_LOCALE, type Language, type Locale } from '../shared/locale.ts';

/**
 * Longest life of one signer link in days: a link expires at the document's `expiry_date` or this many
 * days after it was issued, whichever comes first (a reminder issues a fresh link).
 */
export const LINK_MAX_DAYS = 30;

/** Prefix of every signing event type (the audit `event` name is the part after it). */
export const SIGNING_EVENT_PREFIX = 'signing.';

/** The audit event names (issue 13; spec "Signing document" > `audit_trail`). */
export const SIGNING_EVENT_NAMES = [
  'document_created',
  'invitations_sent',
  'link_issued',
  'document_viewed',
  'document_signed',
  'document_declined',
  'reminder_sent',
  'document_completed',
  'document_finalized',
  'document_expired',
  'document_cancelled',
  'document_deleted',
] as const;
export type SigningEventName = (typeof SIGNING_EVENT_NAMES)[number];
export const SIGNING_EVENT_TYPES: readonly string[] = SIGNING_EVENT_NAMES.map((n) => SIGNING_EVENT_PREFIX + n);

export type DocumentStatus = 'draft' | 'sent' | 'partially_signed' | 'signed' | 'completed' | 'expired' | 'cancelled';
export type SignerStatus = 'pending' | 'sent' | 'signed' | 'declined';

/** A signature box in PDF points, origin bottom-left of the page (PDF user space), page 1-based. */
export interface Placement {
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  /** True when found from a `{{signature:N}}` text tag (the tag is covered when stamping). */
  from_tag?: boolean;
}

/**
 * How a signer signs (issue 29): `simple` (typed or drawn on the page, Sello's seal backs it: today's
 * behaviour) or `efirma` (their own SAT e.firma certificate, a PAdES signature made in their browser).
 */
export type SignatureType = 'simple' | 'efirma';

export interface SignerSpec {
  id: string;
  email: string;
  name: string;
  role: string;
  order: number;
  fields: Placement[];
  /** Absent on documents made before issue 29: `simple`. */
  signature_type?: SignatureType;
  /** The RFC the e.firma certificate must carry (holder's or legal representative's), upper case; absent: any. */
  rfc?: string | null;
  /** The CURP the e.firma certificate must carry, upper case; absent: any. */
  curp?: string | null;
}

/**
 * The personal part of an e.firma signature as `signing.document_signed` records it (sealed under the
 * document's key, `domain/privacy/classification.ts`): who the certificate names and which certificate.
 */
export interface EfirmaSignedIdentity {
  /** Certificate serial number, lower-case hex. */
  certificate_serial: string;
  /** SHA-256 (hex) of the certificate's DER. */
  certificate_sha256: string;
  /** The holder's name as the certificate states it (SAT: the CN). */
  holder_name: string;
  rfc: string | null;
  representative_rfc: string | null;
  curp: string | null;
  representative_curp: string | null;
}

/**
 * The non-personal part of an e.firma signature (kept in clear): the issuer, the revocation check at
 * signing time and the document version the signature produced (the incremental "working PDF").
 */
export interface EfirmaValidation {
  /** Issuer DN of the certificate (RFC 4514): the SAT's CA, not the holder. */
  issuer: string;
  ocsp_status: 'good' | 'revoked' | 'unknown';
  /** ISO time the OCSP response was produced. */
  ocsp_produced_at: string;
  ocsp_responder: string;
  /** Blob key of the PDF after this signature (every earlier signature still valid in it). */
  working_pdf_blob: string;
  /** SHA-256 (hex) of that PDF. */
  working_pdf_sha256: string;
  /** Blob key of the DER OCSP response (for the document security store at finalize). */
  ocsp_blob: string;
}

/** A signer's e.firma signature as the state reads it (both parts; the interface of issue 29's split). */
export type EfirmaRecord = EfirmaSignedIdentity & EfirmaValidation;

interface Base {
  at: string;
  prev_hash: string;
}

export interface SigningEventData {
  document_created: Base & {
    document_id: string;
    tenant_id: string;
    title: string;
    description: string | null;
    message: string | null;
    notify_email: string | null;
    expiry_date: string;
    file: { name: string; size: number; pages: number };
    document_sha256: string;
    blob_key: string;
    /** Origin of every link of the document (PUBLIC_BASE_URL, or the creating request's origin). */
    link_base: string;
    signers: SignerSpec[];
    user: string;
    /** Language of the signing page, e-mails and certificate (absent on documents made before it existed: `es`). */
    language?: Language;
    /** IANA time zone the readers' dates are shown in (absent before it existed: `America/Mexico_City`). */
    time_zone?: string;
  };
  invitations_sent: Base & { signer_ids: string[]; recipients: string[]; reminder_days: number; custom_message: string | null; user: string };
  link_issued: Base & { signer_id: string; token_hash: string; expires_at: string; purpose: 'invitation' | 'reminder' };
  document_viewed: Base & { signer_id: string; ip_address: string; user_agent: string };
  document_signed: Base & {
    signer_id: string;
    ip_address: string;
    user_agent: string;
    signature_id: string;
    method: 'typed' | 'drawn' | 'efirma';
    typed_name: string | null;
    image_blob: string | null;
    image_sha256: string | null;
    consent: true;
    /** `method: 'efirma'` only: the certificate's holder (personal, sealed). */
    efirma?: EfirmaSignedIdentity;
    /** `method: 'efirma'` only: issuer, OCSP result and the working PDF it produced (not personal). */
    efirma_validation?: EfirmaValidation;
  };
  document_declined: Base & { signer_id: string; reason: string; ip_address: string; user_agent: string };
  reminder_sent: Base & { signer_ids: string[]; recipients: string[] };
  document_completed: Base;
  document_finalized: Base & { final_sha256: string; audit_sha256: string; certificate_sha256: string; chain_head: string; timestamped: boolean; user: string; conservation?: ConservationRecord };
  document_expired: Base & { expired_at: string };
  document_cancelled: Base & { reason: string | null; user: string };
  document_deleted: Base & { user: string };
}

export type SigningEvent = { [K in SigningEventName]: { type: `signing.${K}`; data: SigningEventData[K] } }[SigningEventName];

export interface SignerState extends SignerSpec {
  status: SignerStatus;
  sent_at: string | null;
  signed_at: string | null;
  ip_address: string | null;
  user_agent: string | null;
  signature_id: string | null;
  method: 'typed' | 'drawn' | 'efirma' | null;
  signature_type: SignatureType;
  rfc: string | null;
  curp: string | null;
  /** The e.firma signature (null before signing, for a simple signer, or once the personal part is erased and no validation exists). */
  efirma: EfirmaRecord | null;
  typed_name: string | null;
  image_blob: string | null;
  /** SHA-256 (hex) of the drawn image the `document_signed` entry logged (null for a typed signature). */
  image_sha256: string | null;
  reminder_sent_at: string | null;
  declined_at: string | null;
  decline_reason: string | null;
  viewed_at: string | null;
  /** SHA-256 (hex) of each link token issued to this signer, with its expiry. */
  links: { token_hash: string; expires_at: string }[];
}


/**
 * A NOM-151-SCFI-2016 conservation record (*constancia de conservación*, issue 29 item 5): an RFC 3161
 * TimeStampToken over the SHA-256 of the final PDF from the conservation provider (`CONSERVATION_TSA_URL`),
 * logged in `signing.document_finalized` (workflows/signing/conservation.ts).
 */
export interface ConservationRecord {
  /** Blob key of the token (DER of the CMS ContentInfo, RFC 3161 2.4.2 TimeStampToken). */
  token_blob: string;
  /** SHA-256 (hex) of the token's DER. */
  token_sha256: string;
  /** ISO time of the token's `genTime` (the provider's clock, never ours). */
  gen_time: string;
  /** The provider's RFC 3161 URL that issued it. */
  tsa_url: string;
}

export interface DocumentState {
  exists: boolean;
  deleted: boolean;
  document_id: string;
  tenant_id: string;
  title: string;
  description: string | null;
  message: string | null;
  notify_email: string | null;
  status: DocumentStatus;
  created_at: string;
  updated_at: string;
  expiry_date: string;
  file: { name: string; size: number; pages: number };
  document_sha256: string;
  blob_key: string;
  link_base: string;
  /** Language and time zone of what signers read (page, e-mails, certificate). */
  locale: Locale;
  signers: SignerState[];
  reminder_days: number;
  custom_message: string | null;
  sent_at: string | null;
  completed_at: string | null;
  finalized_at: string | null;
  final_sha256: string | null;
  /** SHA-256 of each finalized file (`pdf`, `pdf_with_audit`, `certificate`): also their blob names. */
  final_files: { pdf: string; pdf_with_audit: string; certificate: string } | null;
  /** The NOM-151 conservation record of the final PDF (`CONSERVATION_TSA_URL` set at finalize), else null. */
  conservation: ConservationRecord | null;
  /** Blob key of the latest e.firma-signed version of the PDF (incremental chain); null before the first. */
  working_pdf_blob: string | null;
  /** SHA-256 (hex) of that version; null before the first e.firma signature. */
  working_pdf_sha256: string | null;
  expired_at: string | null;
  cancellation: { by: 'owner' | 'signer'; signer_id: string | null; reason: string | null; at: string } | null;
  /** Hash of the last audit entry (the chain head); the next event's `prev_hash`. */
  last_hash: string;
  /** Stream revision of the last event (expected revision of the next append), -1 before any. */
  revision: number;
}

export const initialDocumentState: DocumentState = {
  exists: false,
  deleted: false,
  document_id: '',
  tenant_id: '',
  title: '',
  description: null,
  message: null,
  notify_email: null,
  status: 'draft',
  created_at: '',
  updated_at: '',
  expiry_date: '',
  file: { name: '', size: 0, pages: 0 },
  document_sha256: '',
  blob_key: '',
  link_base: '',
  locale: DEFAULT_LOCALE,
  signers: [],
  reminder_days: 3,
  custom_message: null,
  sent_at: null,
  completed_at: null,
  finalized_at: null,
  final_sha256: null,
  final_files: null,
  conservation: null,
  working_pdf_blob: null,
  working_pdf_sha256: null,
  expired_at: null,
  cancellation: null,
  last_hash: '',
  revision: -1,
};

/** Stream of a document. */
export function documentStream(documentId: string): string {
  return `signing-${documentId}`;
}

/** JSON with object keys sorted at every level: the byte form hashed by the audit chain. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return '[' + value.map((v) => canonicalJson(v ?? null)).join(',') + ']';
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return '{' + entries.map(([k, v]) => JSON.stringify(k) + ':' + canonicalJson(v)).join(',') + '}';
}

/**
 * Field of a stored signing event holding the hash commitments of its personal fields (added by the event
 * store's privacy layer, `infra/privacy/sealing-event-store.ts`): field name -> SHA-256 (hex) of
 * `salt || canonicalJson(value)`, the 16-byte salt sealed with the value under the document's data key.
 * Its presence is the chain rule's version marker (docs/privacy.md, "Signing audit chain").
 */
export const COMMITMENTS_FIELD = '$commitments';

/**
 * SHA-256 (hex) of an audit entry. Rule 1 (an event without {@link COMMITMENTS_FIELD}: documents written
 * before sealing): of `canonicalJson({event, data})`, where `data` includes `prev_hash`. Rule 2 (an event
 * with it): the same over `data` without the committed fields (and without `$sealed`, their ciphertext in
 * the stored form), the commitments kept in their place, so the hash is the same over the stored form,
 * the fields read in clear or, once the document's key is destroyed, erased.
 */
export function entryHash(event: string, data: unknown): string {
  const c = data !== null && typeof data === 'object' ? (data as Record<string, unknown>)[COMMITMENTS_FIELD] : undefined;
  let hashed = data;
  if (c !== null && typeof c === 'object' && !Array.isArray(c)) {
    const rest: Record<string, unknown> = { ...(data as Record<string, unknown>) };
    for (const f of Object.keys(c)) delete rest[f];
    delete rest.$sealed; // the ciphertext (raw stored form) is not hashed: the commitments stand for it
    hashed = rest;
  }
  return createHash('sha256').update(canonicalJson({ event, data: hashed })).digest('hex');
}

/** The audit name of an event type (`signing.document_signed` -> `document_signed`). */
export function eventName(type: string): string {
  return type.startsWith(SIGNING_EVENT_PREFIX) ? type.slice(SIGNING_EVENT_PREFIX.length) : type;
}

const TERMINAL: ReadonlySet<DocumentStatus> = new Set(['completed', 'expired', 'cancelled']);
/** True once nothing but reads (and delete) can happen to the document. */
export function isTerminal(status: DocumentStatus): boolean {
  return TERMINAL.has(status);
}

/**
 * The status as of `nowMs`: a document whose `expiry_date` passed before it was signed reads as `expired`
 * even before the lifecycle's timer appended `document_expired` (the timer may be a poll interval late).
 */
export function effectiveStatus(s: DocumentState, nowMs: number): DocumentStatus {
  if (!isTerminal(s.status) && s.status !== 'signed' && Date.parse(s.expiry_date) <= nowMs) return 'expired';
  return s.status;
}

function mapSigner(s: DocumentState, id: string, f: (x: SignerState) => SignerState): SignerState[] {
  return s.signers.map((x) => (x.id === id ? f(x) : x));
}

/** Applies one event (pure). `revision` is the event's stream revision. */
export function evolve(s: DocumentState, e: SigningEvent, revision = s.revision + 1): DocumentState {
  const base = { ...s, revision, last_hash: entryHash(eventName(e.type), e.data), updated_at: e.data.at };
  switch (e.type) {
    case 'signing.document_created': {
      const d = e.data;
      return {
        ...base,
        exists: true,
        document_id: d.document_id,
        tenant_id: d.tenant_id,
        title: d.title,
        description: d.description,
        message: d.message,
        notify_email: d.notify_email,
        status: 'draft',
        created_at: d.at,
        expiry_date: d.expiry_date,
        file: d.file,
        document_sha256: d.document_sha256,
        blob_key: d.blob_key,
        link_base: d.link_base,
        locale: { language: d.language ?? DEFAULT_LOCALE.language, timeZone: d.time_zone ?? DEFAULT_LOCALE.timeZone },
        signers: d.signers.map((x) => ({
          ...x,
          signature_type: x.signature_type ?? 'simple',
          rfc: x.rfc ?? null,
          curp: x.curp ?? null,
          efirma: null,
          status: 'pending',
          sent_at: null,
          signed_at: null,
          ip_address: null,
          user_agent: null,
          signature_id: null,
          method: null,
          typed_name: null,
          image_blob: null,
          image_sha256: null,
          reminder_sent_at: null,
          declined_at: null,
          decline_reason: null,
          viewed_at: null,
          links: [],
        })),
      };
    }
    case 'signing.invitations_sent': {
      const ids = new Set(e.data.signer_ids);
      return {
        ...base,
        status: s.status === 'draft' ? 'sent' : s.status,
        sent_at: s.sent_at ?? e.data.at,
        reminder_days: e.data.reminder_days,
        custom_message: e.data.custom_message,
        signers: s.signers.map((x) => (ids.has(x.id) && x.status === 'pending' ? { ...x, status: 'sent', sent_at: e.data.at } : x)),
      };
    }
    case 'signing.link_issued':
      return { ...base, signers: mapSigner(s, e.data.signer_id, (x) => ({ ...x, links: [...x.links, { token_hash: e.data.token_hash, expires_at: e.data.expires_at }] })) };
    case 'signing.document_viewed':
      return { ...base, updated_at: s.updated_at, signers: mapSigner(s, e.data.signer_id, (x) => ({ ...x, viewed_at: x.viewed_at ?? e.data.at })) };
    case 'signing.document_signed': {
      const d = e.data;
      const signers = mapSigner(s, d.signer_id, (x) => ({
        ...x,
        status: 'signed',
        signed_at: d.at,
        ip_address: d.ip_address,
        user_agent: d.user_agent,
        signature_id: d.signature_id,
        method: d.method,
        typed_name: d.typed_name,
        image_blob: d.image_blob,
        image_sha256: d.image_sha256,
        // The personal part reads as erased (absent) once the document's key is destroyed; the validation stays.
        efirma: d.efirma_validation
          ? ({ ...(d.efirma ?? { certificate_serial: '', certificate_sha256: '', holder_name: '', rfc: null, representative_rfc: null, curp: null, representative_curp: null }), ...d.efirma_validation } as EfirmaRecord)
          : null,
      }));
      const v = d.efirma_validation;
      return { ...base, signers, status: 'partially_signed', ...(v ? { working_pdf_blob: v.working_pdf_blob, working_pdf_sha256: v.working_pdf_sha256 } : {}) };
    }
    case 'signing.document_declined':
      return {
        ...base,
        status: 'cancelled',
        cancellation: { by: 'signer', signer_id: e.data.signer_id, reason: e.data.reason, at: e.data.at },
        signers: mapSigner(s, e.data.signer_id, (x) => ({ ...x, status: 'declined', declined_at: e.data.at, decline_reason: e.data.reason })),
      };
    case 'signing.reminder_sent': {
      const ids = new Set(e.data.signer_ids);
      return { ...base, signers: s.signers.map((x) => (ids.has(x.id) ? { ...x, reminder_sent_at: e.data.at } : x)) };
    }
    case 'signing.document_completed':
      return { ...base, status: 'signed', completed_at: e.data.at };
    case 'signing.document_finalized':
      return {
        ...base,
        status: 'completed',
        finalized_at: e.data.at,
        final_sha256: e.data.final_sha256,
        final_files: { pdf: e.data.final_sha256, pdf_with_audit: e.data.audit_sha256, certificate: e.data.certificate_sha256 },
        conservation: e.data.conservation ?? null,
      };
    case 'signing.document_expired':
      return { ...base, status: 'expired', expired_at: e.data.expired_at };
    case 'signing.document_cancelled':
      return { ...base, status: 'cancelled', cancellation: { by: 'owner', signer_id: null, reason: e.data.reason, at: e.data.at } };
    case 'signing.document_deleted':
      return { ...base, deleted: true };
    default: {
      const never: never = e;
      return never;
    }
  }
}

/** Folds a stream (events in revision order). */
export function foldDocument(events: readonly { type: string; data: unknown; streamRevision?: number }[]): DocumentState {
  let s = initialDocumentState;
  for (const e of events) s = evolve(s, e as SigningEvent, e.streamRevision ?? s.revision + 1);
  return s;
}

/** The lowest `order` among signers not yet signed (the group being signed now); null when all signed. */
export function currentOrder(s: DocumentState): number | null {
  const open = s.signers.filter((x) => x.status !== 'signed');
  return open.length === 0 ? null : Math.min(...open.map((x) => x.order));
}
