/**
 * The audit trail of a signing document: a projection of its events (spec "Signing document" >
 * `audit_trail`: entries with `event`, `timestamp` and one of `user`, `recipients`, `signer`), each with
 * its place in the hash chain (`prev_hash`, `hash`). {@link verifyChain} recomputes the chain from the
 * raw events.
 */
import { entryHash, eventName, type DocumentState, type SignerSpec } from './document.ts';

export interface AuditEntry {
  event: string;
  timestamp: string;
  user?: string;
  recipients?: string[];
  signer?: { id: string; email: string; name: string };
  ip_address?: string;
  user_agent?: string;
  reason?: string | null;
  /** `document_signed` with a drawn signature: SHA-256 (hex) of the image, the one the sealed PDF shows. */
  image_sha256?: string;
  /** `document_signed` with an e.firma (issue 29): the certificate's serial (hex; absent once erased) and the OCSP result at signing. */
  efirma?: { certificate_serial: string | null; issuer: string; ocsp_status: string; ocsp_produced_at: string };
  /** SHA-256 of the previous entry (of the PDF for the first). */
  prev_hash: string;
  /** SHA-256 of this entry: `entryHash(event, data)`. */
  hash: string;
}

type Raw = { type: string; data: Record<string, unknown> };

/** Audit entries of a document's events, in order. */
export function auditEntries(events: readonly Raw[]): AuditEntry[] {
  let signers: SignerSpec[] = [];
  const who = (id: unknown) => {
    const s = signers.find((x) => x.id === id);
    return s ? { id: s.id, email: s.email, name: s.name } : { id: String(id), email: '', name: '' };
  };
  return events.map((e) => {
    const d = e.data;
    const name = eventName(e.type);
    if (name === 'document_created') signers = d.signers as SignerSpec[];
    const entry: AuditEntry = { event: name, timestamp: String(d.at), prev_hash: String(d.prev_hash), hash: entryHash(name, d) };
    if (typeof d.user === 'string') entry.user = d.user;
    if (Array.isArray(d.recipients)) entry.recipients = d.recipients as string[];
    if (typeof d.signer_id === 'string') entry.signer = who(d.signer_id);
    if (typeof d.ip_address === 'string') entry.ip_address = d.ip_address;
    if (typeof d.user_agent === 'string') entry.user_agent = d.user_agent;
    if ('reason' in d) entry.reason = (d.reason as string | null) ?? null;
    if (typeof d.image_sha256 === 'string') entry.image_sha256 = d.image_sha256;
    const v = d.efirma_validation as { issuer: string; ocsp_status: string; ocsp_produced_at: string } | undefined;
    if (v && typeof v === 'object') {
      const who = d.efirma as { certificate_serial?: string } | null | undefined;
      entry.efirma = { certificate_serial: who?.certificate_serial || null, issuer: v.issuer, ocsp_status: v.ocsp_status, ocsp_produced_at: v.ocsp_produced_at };
    }
    return entry;
  });
}

export interface ChainVerdict {
  ok: boolean;
  /** Entries checked. */
  entries: number;
  /** The PDF hash the chain is rooted in (the first entry's `prev_hash`). */
  root: string | null;
  /** Hash of the last entry. */
  head: string | null;
  /** First broken link (0-based index of the entry whose `prev_hash` does not match), with the reason. */
  broken: { index: number; event: string; reason: string } | null;
}

/**
 * Recomputes the chain of raw events: entry 0 must be `document_created` whose `prev_hash` is its
 * `document_sha256`; each later `prev_hash` must equal the previous entry's hash.
 */
export function verifyChain(events: readonly Raw[]): ChainVerdict {
  if (events.length === 0) return { ok: false, entries: 0, root: null, head: null, broken: { index: 0, event: '', reason: 'no events' } };
  const first = events[0]!;
  const root = String(first.data.prev_hash);
  if (eventName(first.type) !== 'document_created' || first.data.document_sha256 !== root) {
    return { ok: false, entries: events.length, root, head: null, broken: { index: 0, event: eventName(first.type), reason: 'the first entry is not rooted in the document hash' } };
  }
  let prev = root;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    const name = eventName(e.type);
    if (e.data.prev_hash !== prev) return { ok: false, entries: events.length, root, head: null, broken: { index: i, event: name, reason: `prev_hash ${String(e.data.prev_hash)} != ${prev}` } };
    prev = entryHash(name, e.data);
  }
  return { ok: true, entries: events.length, root, head: prev, broken: null };
}

/** The public signer view (spec "Signer (response)"), with the extensions documented in docs/signing.md. */
export interface SignerView {
  id: string;
  email: string;
  name: string;
  role: string;
  order: number;
  status: 'pending' | 'sent' | 'signed' | 'declined';
  sent_at?: string;
  signed_at?: string;
  ip_address?: string | null;
  signature_id?: string | null;
  reminder_sent_at?: string;
  declined_at?: string;
  decline_reason?: string | null;
  fields?: DocumentState['signers'][number]['fields'];
  /** `simple` (typed or drawn) or `efirma` (issue 29). */
  signature_type: 'simple' | 'efirma';
  rfc?: string | null;
  curp?: string | null;
  /** The e.firma signature once signed: the certificate, its holder and the OCSP result at signing. */
  efirma?: {
    certificate_serial: string;
    certificate_sha256: string;
    issuer: string;
    holder_name: string;
    rfc: string | null;
    representative_rfc: string | null;
    curp: string | null;
    representative_curp: string | null;
    ocsp_status: 'good' | 'revoked' | 'unknown';
    ocsp_produced_at: string;
  };
}

export function signerView(s: DocumentState['signers'][number]): SignerView {
  const v: SignerView = { id: s.id, email: s.email, name: s.name, role: s.role, order: s.order, status: s.status, signature_type: s.signature_type };
  if (s.signature_type === 'efirma') {
    v.rfc = s.rfc;
    v.curp = s.curp;
  }
  if (s.efirma) {
    const f = s.efirma;
    v.efirma = {
      certificate_serial: f.certificate_serial,
      certificate_sha256: f.certificate_sha256,
      issuer: f.issuer,
      holder_name: f.holder_name,
      rfc: f.rfc,
      representative_rfc: f.representative_rfc,
      curp: f.curp,
      representative_curp: f.representative_curp,
      ocsp_status: f.ocsp_status,
      ocsp_produced_at: f.ocsp_produced_at,
    };
  }
  if (s.sent_at) v.sent_at = s.sent_at;
  if (s.signed_at) {
    v.signed_at = s.signed_at;
    v.ip_address = s.ip_address;
    v.signature_id = s.signature_id;
  }
  if (s.reminder_sent_at) v.reminder_sent_at = s.reminder_sent_at;
  if (s.declined_at) {
    v.declined_at = s.declined_at;
    v.decline_reason = s.decline_reason;
  }
  if (s.fields.length) v.fields = s.fields;
  return v;
}
