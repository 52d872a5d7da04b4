/**
 * Commands of the signing document and `decide` functions, one per command (pure: time, ids and hashes
 * come in as arguments). Each returns the events to append (already chained: every `prev_hash` links to
 * the previous entry) or throws a {@link SigningError}.
 */
import type { Locale } from '../shared/locale.ts';
import { SigningError, MAX_SIGNERS } from './errors.ts';
import {
  currentOrder,
  effectiveStatus,
  entryHash,
  eventName,
  isTerminal,
  type ConservationRecord,
  type DocumentState,
  type EfirmaSignedIdentity,
  type EfirmaValidation,
  type Placement,
  type SignatureType,
  type SignerSpec,
  type SigningEvent,
  type SigningEventData,
  type SigningEventName,
} from './document.ts';

type Unchained<K extends SigningEventName> = Omit<SigningEventData[K], 'prev_hash'>;
type Draft = { [K in SigningEventName]: { type: `signing.${K}`; data: Unchained<K> } }[SigningEventName];

/** Adds `prev_hash` to each event, starting from `head` (the current chain head). */
export function chain(head: string, drafts: readonly Draft[]): SigningEvent[] {
  let prev = head;
  return drafts.map((d) => {
    const data = { ...d.data, prev_hash: prev } as SigningEventData[SigningEventName];
    prev = entryHash(eventName(d.type), data);
    return { type: d.type, data } as SigningEvent;
  });
}

// Pragmatic address check (RFC 5321 sizes, one @, a dotted domain, no spaces); invalid -> invalid_signer.
const EMAIL = /^[^\s@"<>()\[\],;:]{1,64}@(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** True when `email` is acceptable as a signer address. */
export function isValidEmail(email: string): boolean {
  return EMAIL.test(email);
}

export interface CreateDocument {
  documentId: string;
  tenantId: string;
  user: string;
  title: string;
  description: string | null;
  message: string | null;
  notifyEmail: string | null;
  /** ISO time the document expires. */
  expiryDate: string;
  file: { name: string; size: number; pages: number };
  /** Width and height (points) of each page's crop box, page 1 first. */
  pageSizes: { width: number; height: number }[];
  documentSha256: string;
  blobKey: string;
  linkBase: string;
  /** Language and time zone of what the signers read. */
  locale: Locale;
  signers: { id: string; email: string; name: string; role: string; order: number; fields: Placement[]; signature_type?: SignatureType; rfc?: string | null; curp?: string | null }[];
  /** Boxes of `{{signature:N}}` tags found in the PDF, keyed by N (the signer order). */
  tags: Map<number, Placement[]>;
}

/** Creates a document in `draft` (spec: "Signers start as `pending`"). */
export function decideCreate(cmd: CreateDocument, now: number): SigningEvent[] {
  if (cmd.signers.length === 0) throw new SigningError('invalid_signer', 'At least one signer is required', { field: 'signers' });
  if (cmd.signers.length > MAX_SIGNERS) throw new SigningError('invalid_signer', `At most ${MAX_SIGNERS} signers are allowed`, { field: 'signers' });
  const seen = new Set<string>();
  cmd.signers.forEach((s, i) => {
    if (!isValidEmail(s.email)) throw new SigningError('invalid_signer', `Signer ${i + 1}: '${s.email}' is not a valid e-mail address`, { index: i, email: s.email });
    const key = s.email.toLowerCase();
    if (seen.has(key)) throw new SigningError('invalid_signer', `Signer ${i + 1}: '${s.email}' appears twice`, { index: i, email: s.email });
    seen.add(key);
    s.fields.forEach((f, j) => {
      const size = cmd.pageSizes[f.page - 1];
      if (!Number.isInteger(f.page) || !size) {
        throw new SigningError('invalid_placement', `Signer ${i + 1}, field ${j + 1}: page ${f.page} is out of range (the document has ${cmd.pageSizes.length} pages)`, { index: i, field: j, page: f.page, pages: cmd.pageSizes.length });
      }
      if (!(f.width > 0 && f.height > 0 && f.x >= 0 && f.y >= 0 && f.x + f.width <= size.width + 0.01 && f.y + f.height <= size.height + 0.01)) {
        throw new SigningError('invalid_placement', `Signer ${i + 1}, field ${j + 1}: the box (${f.x}, ${f.y}, ${f.width} x ${f.height}) lies outside page ${f.page} (${size.width} x ${size.height} pt)`, {
          index: i,
          field: j,
          page: f.page,
          page_width: size.width,
          page_height: size.height,
        });
      }
    });
  });
  assertOneSignatureType(cmd.signers);
  const signers: SignerSpec[] = cmd.signers.map((s) => ({ ...s, fields: s.fields.length ? s.fields : (cmd.tags.get(s.order) ?? []) }));
  const at = new Date(now).toISOString();
  return chain(cmd.documentSha256, [
    {
      type: 'signing.document_created',
      data: {
        at,
        document_id: cmd.documentId,
        tenant_id: cmd.tenantId,
        title: cmd.title,
        description: cmd.description,
        message: cmd.message,
        notify_email: cmd.notifyEmail,
        expiry_date: cmd.expiryDate,
        file: cmd.file,
        document_sha256: cmd.documentSha256,
        blob_key: cmd.blobKey,
        link_base: cmd.linkBase,
        signers,
        user: cmd.user,
        language: cmd.locale.language,
        time_zone: cmd.locale.timeZone,
      },
    },
  ]);
}

/**
 * Documents do not mix signature types (docs/signing.md "e.firma"): every signer signs `simple` (typed or
 * drawn, sealed by Sello) or every signer signs with their own `efirma`. Why: e.firma signatures are
 * incremental PAdES revisions of the PDF, each covering what came before; a simple signature is a stamp
 * drawn into the page content at finalize, which would have to be appended after (and outside) the
 * signers' own signatures, so a reader of the PDF would see some signers' marks covered by no signer.
 * `rfc`/`curp` apply to e.firma signers only.
 * @throws SigningError `mixed_signature_types` (422) for a mixed list; `invalid_signer` for rfc/curp on a simple signer.
 */
export function assertOneSignatureType(signers: readonly { signature_type?: SignatureType; rfc?: string | null; curp?: string | null }[]): void {
  const types = new Set(signers.map((x) => x.signature_type ?? 'simple'));
  if (types.size > 1) {
    throw new SigningError('mixed_signature_types', 'A document\'s signers all sign with e.firma (`signature_type` efirma) or all sign simply (typed or drawn); split a mixed list into two documents', {
      field: 'signers',
      signature_types: signers.map((x) => x.signature_type ?? 'simple'),
    });
  }
  signers.forEach((x, i) => {
    if ((x.signature_type ?? 'simple') === 'simple' && (x.rfc || x.curp)) {
      throw new SigningError('invalid_signer', `Signer ${i + 1}: rfc and curp apply to e.firma signers (signature_type efirma) only`, { index: i, field: x.rfc ? 'rfc' : 'curp' });
    }
  });
}

/**
 * Guards every change: deleted/other tenant -> `document_not_found`; finalized -> `document_locked`;
 * expired (by event or by time) -> `document_expired`; cancelled/declined -> `document_cancelled`.
 */
export function assertOpen(s: DocumentState, now: number): void {
  if (!s.exists || s.deleted) throw new SigningError('document_not_found', 'Document not found', { document_id: s.document_id || undefined });
  const status = effectiveStatus(s, now);
  if (status === 'completed') throw new SigningError('document_locked', 'The document was finalized and is locked', { document_id: s.document_id, finalized_at: s.finalized_at });
  if (status === 'expired') throw expiredError(s);
  if (status === 'cancelled') throw new SigningError('document_cancelled', s.cancellation?.by === 'signer' ? 'A signer declined the document' : 'The document was cancelled by its owner', { document_id: s.document_id, cancellation: s.cancellation });
}

/** The spec's `document_expired` error (`details.document_id`, `expired_at`). */
export function expiredError(s: DocumentState): SigningError {
  return new SigningError('document_expired', 'The document expired before it was completed', { document_id: s.document_id, expired_at: s.expired_at ?? s.expiry_date });
}

/** `draft` -> `sent`: invites the signers of the lowest order (equal orders sign in parallel). */
export function decideSendInvitations(s: DocumentState, cmd: { reminderDays: number; customMessage: string | null; user: string }, now: number): SigningEvent[] {
  assertOpen(s, now);
  if (s.status !== 'draft') throw new SigningError('invalid_document_status', `Invitations were already sent (status ${s.status})`, { document_id: s.document_id, status: s.status });
  const order = currentOrder(s)!;
  const group = s.signers.filter((x) => x.order === order);
  return chain(s.last_hash, [
    {
      type: 'signing.invitations_sent',
      data: { at: new Date(now).toISOString(), signer_ids: group.map((x) => x.id), recipients: group.map((x) => x.email), reminder_days: cmd.reminderDays, custom_message: cmd.customMessage, user: cmd.user },
    },
  ]);
}

/** Records a new link token (hash only) for a signer who is invited and has not signed. */
export function decideIssueLink(s: DocumentState, cmd: { signerId: string; tokenHash: string; expiresAt: string; purpose: 'invitation' | 'reminder' }, now: number): SigningEvent[] {
  assertOpen(s, now);
  const signer = s.signers.find((x) => x.id === cmd.signerId);
  if (!signer || signer.status !== 'sent') return [];
  return chain(s.last_hash, [{ type: 'signing.link_issued', data: { at: new Date(now).toISOString(), signer_id: cmd.signerId, token_hash: cmd.tokenHash, expires_at: cmd.expiresAt, purpose: cmd.purpose } }]);
}

/** Checks the signer may act now (invited, not signed, not declined, their order reached). */
export function assertSignerMayAct(s: DocumentState, signerId: string, now: number): void {
  assertOpen(s, now);
  const signer = s.signers.find((x) => x.id === signerId);
  if (!signer) throw new SigningError('invalid_link', 'This link does not belong to a signer of the document');
  if (signer.status === 'signed') throw new SigningError('already_signed', 'You already signed this document', { signer_id: signerId, signed_at: signer.signed_at });
  if (signer.status === 'declined') throw new SigningError('already_declined', 'You declined this document', { signer_id: signerId });
  if (signer.status !== 'sent' || signer.order !== currentOrder(s)) {
    throw new SigningError('not_your_turn', 'Signers of an earlier order have not signed yet', { signer_id: signerId, order: signer.order, current_order: currentOrder(s) });
  }
}

/** A signer opened the document (audit: `document_viewed`, once per signer). */
export function decideView(s: DocumentState, cmd: { signerId: string; ip: string; userAgent: string }, now: number): SigningEvent[] {
  const signer = s.signers.find((x) => x.id === cmd.signerId);
  if (!signer || signer.viewed_at) return [];
  return chain(s.last_hash, [{ type: 'signing.document_viewed', data: { at: new Date(now).toISOString(), signer_id: cmd.signerId, ip_address: cmd.ip, user_agent: cmd.userAgent } }]);
}

export interface SignCommand {
  signerId: string;
  ip: string;
  userAgent: string;
  signatureId: string;
  method: 'typed' | 'drawn' | 'efirma';
  typedName: string | null;
  imageBlob: string | null;
  imageSha256: string | null;
  consent: boolean;
  /**
   * `method: 'efirma'`: the signature's identity and validation, and `basePdfSha256`, the working PDF the
   * signature was prepared on (null: the original, before any e.firma signature).
   */
  efirma?: { identity: EfirmaSignedIdentity; validation: EfirmaValidation; basePdfSha256: string | null };
}

/**
 * A signer signs. When the last signer of the current order signs, the next order is invited in the same
 * append; when the last signer of all signs, `document_completed` follows (status `signed`).
 */
export function decideSign(s: DocumentState, cmd: SignCommand, now: number): SigningEvent[] {
  assertSignerMayAct(s, cmd.signerId, now);
  if (!cmd.consent) throw new SigningError('invalid_signer', 'Consent to sign electronically is required', { field: 'consent' });
  const type = s.signers.find((x) => x.id === cmd.signerId)!.signature_type;
  if (type === 'efirma' && cmd.method !== 'efirma') {
    throw new SigningError('efirma_required', 'This signer signs with their e.firma (.cer, .key and password), not with a typed or drawn signature', { signer_id: cmd.signerId, signature_type: type });
  }
  if (type !== 'efirma' && cmd.method === 'efirma') {
    throw new SigningError('efirma_not_expected', 'This signer signs with a typed or drawn signature, not with an e.firma', { signer_id: cmd.signerId, signature_type: type });
  }
  if (cmd.method === 'efirma' && (!cmd.efirma || cmd.efirma.basePdfSha256 !== s.working_pdf_sha256)) {
    // Another signer's e.firma signature was added since this one was prepared: it signs a PDF that is no longer the latest.
    throw new SigningError('efirma_prepare_stale', 'The document changed since your signature was prepared (another signer signed); sign again', { signer_id: cmd.signerId });
  }
  const at = new Date(now).toISOString();
  const drafts: Draft[] = [
    {
      type: 'signing.document_signed',
      data: {
        at,
        signer_id: cmd.signerId,
        ip_address: cmd.ip,
        user_agent: cmd.userAgent,
        signature_id: cmd.signatureId,
        method: cmd.method,
        typed_name: cmd.typedName,
        image_blob: cmd.imageBlob,
        image_sha256: cmd.imageSha256,
        consent: true,
        ...(cmd.method === 'efirma' && cmd.efirma ? { efirma: cmd.efirma.identity, efirma_validation: cmd.efirma.validation } : {}),
      },
    },
  ];
  const after = s.signers.map((x) => (x.id === cmd.signerId ? { ...x, status: 'signed' as const } : x));
  const open = after.filter((x) => x.status !== 'signed');
  if (open.length === 0) {
    drafts.push({ type: 'signing.document_completed', data: { at } });
  } else {
    const next = Math.min(...open.map((x) => x.order));
    const toInvite = open.filter((x) => x.order === next && x.status === 'pending');
    if (toInvite.length > 0) {
      drafts.push({
        type: 'signing.invitations_sent',
        data: { at, signer_ids: toInvite.map((x) => x.id), recipients: toInvite.map((x) => x.email), reminder_days: s.reminder_days, custom_message: s.custom_message, user: 'system' },
      });
    }
  }
  return chain(s.last_hash, drafts);
}

/** A signer declines with a reason: the document ends `cancelled` (`cancellation.by = 'signer'`). */
export function decideDecline(s: DocumentState, cmd: { signerId: string; reason: string; ip: string; userAgent: string }, now: number): SigningEvent[] {
  assertSignerMayAct(s, cmd.signerId, now);
  const reason = cmd.reason.trim();
  if (!reason) throw new SigningError('invalid_signer', 'A reason is required to decline', { field: 'reason' });
  return chain(s.last_hash, [{ type: 'signing.document_declined', data: { at: new Date(now).toISOString(), signer_id: cmd.signerId, reason: reason.slice(0, 2000), ip_address: cmd.ip, user_agent: cmd.userAgent } }]);
}

/** Reminder to every invited signer who has not signed; nothing when the document is no longer open. */
export function decideRemind(s: DocumentState, now: number): SigningEvent[] {
  if (!s.exists || s.deleted || isTerminal(effectiveStatus(s, now)) || s.status === 'signed' || s.status === 'draft') return [];
  const due = s.signers.filter((x) => x.status === 'sent');
  if (due.length === 0) return [];
  return chain(s.last_hash, [{ type: 'signing.reminder_sent', data: { at: new Date(now).toISOString(), signer_ids: due.map((x) => x.id), recipients: due.map((x) => x.email) } }]);
}

/** The durable expiry timer fired: `expired` unless the document was signed, finalized or cancelled first. */
export function decideExpire(s: DocumentState, now: number): SigningEvent[] {
  if (!s.exists || s.deleted || isTerminal(s.status) || s.status === 'signed') return [];
  if (Date.parse(s.expiry_date) > now) return [];
  return chain(s.last_hash, [{ type: 'signing.document_expired', data: { at: new Date(now).toISOString(), expired_at: s.expiry_date } }]);
}

/** The owner cancels a document that is not finalized (any open status, including `signed`). */
export function decideCancel(s: DocumentState, cmd: { reason: string | null; user: string }, now: number): SigningEvent[] {
  assertOpen(s, now);
  return chain(s.last_hash, [{ type: 'signing.document_cancelled', data: { at: new Date(now).toISOString(), reason: cmd.reason, user: cmd.user } }]);
}

/** Checks the document may be finalized now (spec: "document is signed"). */
export function assertFinalizable(s: DocumentState, now: number): void {
  if (!s.exists || s.deleted) throw new SigningError('document_not_found', 'Document not found');
  if (s.status === 'completed') throw new SigningError('document_locked', 'The document was already finalized and is locked', { document_id: s.document_id, finalized_at: s.finalized_at });
  if (s.status === 'signed') return;
  assertOpen(s, now);
  throw new SigningError('invalid_document_status', `Every signer must sign before finalize (status ${s.status})`, { document_id: s.document_id, status: s.status });
}

/** `signed` -> `completed`: records the hashes of the final files. */
export function decideFinalize(s: DocumentState, cmd: { finalSha256: string; auditSha256: string; certificateSha256: string; chainHead: string; timestamped: boolean; user: string; conservation?: ConservationRecord | null }, now: number): SigningEvent[] {
  assertFinalizable(s, now);
  return chain(s.last_hash, [
    {
      type: 'signing.document_finalized',
      data: { at: new Date(now).toISOString(), final_sha256: cmd.finalSha256, audit_sha256: cmd.auditSha256, certificate_sha256: cmd.certificateSha256, chain_head: cmd.chainHead, timestamped: cmd.timestamped, user: cmd.user, ...(cmd.conservation ? { conservation: cmd.conservation } : {}) },
    },
  ]);
}

/** Deletes the document (its files are removed; the log keeps the facts, see docs/signing.md). */
export function decideDelete(s: DocumentState, cmd: { user: string }, now: number): SigningEvent[] {
  if (!s.exists || s.deleted) throw new SigningError('document_not_found', 'Document not found');
  return chain(s.last_hash, [{ type: 'signing.document_deleted', data: { at: new Date(now).toISOString(), user: cmd.user } }]);
}
