/**
 * The signing use cases (what the `/v1/signing/*` routes and the signing page call), over the event
 * store (the document stream is the source of truth), the `signing_documents` read model (lists,
 * audit trails, verification look-ups), the blob store (PDFs, drawn signatures, page images) and the
 * service's signing identity. Side effects (e-mails, webhooks, expiry) are not started here: the
 * lifecycle workflow runs them from the logged events (`./process.ts`, `./dispatcher.ts`).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { EventStore } from '../../infra/ports/event-store.ts';
import { WrongExpectedRevisionError } from '../../infra/ports/event-store.ts';
import type { BlobStore } from '../../infra/ports/blob-store.ts';
import type { ReadModelStore } from '../../infra/ports/read-models.ts';
import type { Clock } from '../../infra/ports/workflows.ts';
import type { SigningIdentity } from '../../infra/secrets/signing-identity.ts';
import { SigningError } from '../../domain/signing/errors.ts';
import { hasControlCharacters } from '../../domain/shared/text.ts';
import {
  LINK_MAX_DAYS,
  documentStream,
  effectiveStatus,
  foldDocument,
  type DocumentState,
  type Placement,
  type SignerState,
  type SigningEvent,
  type SignatureType,
} from '../../domain/signing/document.ts';
import {
  assertFinalizable,
  assertSignerMayAct,
  decideCancel,
  decideCreate,
  decideDecline,
  decideDelete,
  decideFinalize,
  decideIssueLink,
  decideSendInvitations,
  decideSign,
  decideView,
} from '../../domain/signing/decide.ts';
import { auditEntries, signerView, type AuditEntry } from '../../domain/signing/audit.ts';
import type { PdfInfo } from '../../domain/signing/pdf.ts';
import { MAX_HASHED_FILE_MULTIPLE, MAX_SIGNATURES_EXAMINED, byteRangeDigestKey, checkSignature, digestAlgorithmOf, scanSignatures, type FoundSignature, type SignatureCheck } from '../../domain/signing/pades.ts';
import type { SealInput, SealOutput } from '../../models/signing/jobs.ts';
import type { EfirmaServiceHooks } from './efirma.ts';
import { signingDocuments, type SigningDocumentDoc } from '../../projections/signing/index.ts';
import { FINALIZE_CLAIMED, FINALIZE_CLAIM_LEASE_MS, FINALIZE_RELEASED, activeClaim, finalizeClaimStream } from '../../domain/signing/finalize-claim.ts';
import { DEFAULT_LOCALE, type Language, type Locale } from '../../domain/shared/locale.ts';
import { recordConservation, conservationToken, verifyConservation } from './conservation.ts';
import { efirmaSealInput } from './efirma-finalize.ts';
import { reportSignatures } from './verify-signatures.ts';
import type { TimestampOptions } from '../../domain/signing/pades.ts';
import { PRIVACY_BLOCKED_DOCUMENT_DOWNLOADED, blockedDownloadsStream, type PrivacyBlockedDocumentDownloaded } from '../../domain/privacy/erasure.ts';

/** Who downloads a finalized file: a blocked document's files go to `admin` keys only, each download recorded. */
export interface Downloader {
  keyId: string | null;
  admin: boolean;
}

export interface SigningSettings {
  /** `PUBLIC_BASE_URL`: base of every link; when unset, the origin of the creating request. */
  publicBaseUrl: string | null;
  /** Lifetime of a preview URL in seconds. */
  previewTtlSeconds: number;
  /** Days a document stays open when `expiry_date` is not given. */
  defaultExpiryDays: number;
  /** The NOM-151 conservation provider's RFC 3161 service (`CONSERVATION_TSA_URL`, ./conservation.ts); null = none. */
  conservation?: TimestampOptions | null;
}

export interface SigningDeps {
  events: EventStore;
  readModels: ReadModelStore;
  blobs: BlobStore;
  clock: Clock;
  identity: () => SigningIdentity;
  /** Renders and PAdES-seals the finalized files (the `signing.seal` worker job; see models/signing/jobs.ts). */
  seal: (input: SealInput) => Promise<SealOutput>;
  /**
   * Where uploads are judged and pages rendered with MuPDF: off the HTTP thread, with deadlines
   * (`apps/worker/pdf-pool.ts`). Both reject with coded {@link SigningError}s (`pdf_too_complex`,
   * `pdf_busy`, and inspectPdf's own codes).
   */
  pdf: {
    inspect(tenantId: string, bytes: Uint8Array): Promise<PdfInfo>;
    render(tenantId: string, bytes: Uint8Array, index: number, scale: number): Promise<Buffer>;
    /** Digests of byte ranges (`[start, end)`, concatenated) of `bytes`, one per job: verify's hashing. */
    hash(tenantId: string, bytes: Uint8Array, jobs: { algorithm: string; ranges: [number, number][] }[]): Promise<Buffer[]>;
  };
  /** HMAC key of preview URLs. */
  linkKey: () => Buffer;
  catchUp: () => Promise<void>;
  settings: SigningSettings;
  /** The tenant's language and time zone setting (`cli tenant locale`), when it has one. */
  tenantLocale?: (tenantId: string) => Partial<Locale> | undefined;
}

export interface CreateInput {
  tenantId: string;
  user: string;
  title: string;
  description: string | null;
  message: string | null;
  notifyEmail: string | null;
  /** ISO time; null = `defaultExpiryDays` from now. */
  expiresAt: string | null;
  fileName: string;
  pdf: Buffer;
  signers: { email: string; name: string; role: string; order: number; fields: Placement[]; signature_type?: SignatureType; rfc?: string | null; curp?: string | null }[];
  origin: string;
  /** Language of what the signers read; null = the tenant's setting, else Spanish. */
  language?: Language | null;
  /** IANA time zone of the dates they read; null = the tenant's setting, else America/Mexico_City. */
  timeZone?: string | null;
}

/** Hash of a signer link token (what the log keeps). */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

export type SigningService = ReturnType<typeof createSigningService>;

/** Builds the signing use cases. */
export function createSigningService(deps: SigningDeps) {
  const { events, blobs, clock, settings } = deps;
  const iso = (ms: number) => new Date(ms).toISOString();

  async function load(documentId: string): Promise<{ state: DocumentState; raw: { type: string; data: Record<string, unknown> }[] }> {
    if (!/^doc_[0-9a-f]{24}$/.test(documentId)) return { state: foldDocument([]), raw: [] };
    const { events: evs } = await events.readStream(documentStream(documentId));
    return { state: foldDocument(evs), raw: evs.map((e) => ({ type: e.type, data: e.data as Record<string, unknown> })) };
  }

  /** The document of `tenantId` (404 for another tenant's, a deleted or an unknown one). */
  async function loadOwned(tenantId: string, documentId: string): Promise<DocumentState> {
    const { state } = await load(documentId);
    if (!state.exists || state.deleted || state.tenant_id !== tenantId) throw new SigningError('document_not_found', 'Document not found', { document_id: documentId });
    return state;
  }

  /** Loads, decides and appends with the expected revision (retried when another writer got there first). */
  async function execute(documentId: string, decide: (s: DocumentState) => SigningEvent[], metadata: Record<string, unknown> = {}): Promise<{ state: DocumentState; appended: SigningEvent[] }> {
    for (let attempt = 0; ; attempt++) {
      const { state } = await load(documentId);
      const appended = decide(state);
      if (appended.length === 0) return { state, appended };
      try {
        const withMeta = appended.map((e) => ({ ...e, metadata: { tenant_id: state.tenant_id, ...metadata } }));
        await events.append(documentStream(documentId), withMeta, { expectedRevision: state.revision < 0 ? 'no_stream' : state.revision });
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError && attempt < 4) continue;
        throw error;
      }
      return { state: (await load(documentId)).state, appended };
    }
  }

  function linkBase(s: DocumentState): string {
    return settings.publicBaseUrl ?? s.link_base;
  }

  function urls(s: DocumentState) {
    const base = linkBase(s);
    return {
      signing_url: `${base}/sign/${s.document_id}`,
      download_url: `${base}/v1/signing/documents/${s.document_id}/download`,
      certificate_url: `${base}/v1/signing/documents/${s.document_id}/certificate`,
    };
  }

  function view(s: DocumentState, audit?: AuditEntry[]) {
    const u = urls(s);
    const status = effectiveStatus(s, clock.now());
    return {
      document_id: s.document_id,
      title: s.title,
      description: s.description,
      message: s.message,
      status,
      created_at: s.created_at,
      updated_at: s.updated_at,
      expiry_date: s.expiry_date,
      language: s.locale.language,
      time_zone: s.locale.timeZone,
      signers: s.signers.map(signerView),
      file: s.file,
      signing_url: u.signing_url,
      ...(s.status === 'completed' ? { finalized_at: s.finalized_at, download_url: u.download_url, certificate_url: u.certificate_url } : {}),
      ...(s.cancellation ? { cancellation: s.cancellation } : {}),
      ...(status === 'expired' ? { expired_at: s.expired_at ?? s.expiry_date } : {}),
      ...(audit ? { audit_trail: audit } : {}),
    };
  }

  /** The read-model row of a document blocked by an erasure request (docs/privacy.md "Blocking"), or null. */
  async function blockedRow(documentId: string): Promise<SigningDocumentDoc | null> {
    const row = await (await signingDocuments(deps.readModels)).get(documentId);
    return row?.blocked && !row.deleted ? row : null;
  }

  /** A blocked document as the API shows it: no title, file name, signers or personal audit fields. */
  function blockedView(s: DocumentState, row: SigningDocumentDoc) {
    const v = view(s);
    const audit = ((row.audit_trail as AuditEntry[] | undefined) ?? []).map((a) => {
      const x = a as unknown as Record<string, unknown>;
      return { event: x.event, timestamp: x.timestamp, ...(x.user !== undefined ? { user: x.user } : {}), prev_hash: x.prev_hash, hash: x.hash } as unknown as AuditEntry;
    });
    return {
      ...v,
      title: '[blocked]',
      description: null,
      message: null,
      signers: [],
      file: { name: '[blocked]', size: s.file.size, pages: s.file.pages },
      blocked: { blocked_at: row.blocked!.blocked_at, blocked_until: row.blocked!.blocked_until, downloads: row.blocked_downloads ?? [] },
      audit_trail: audit,
    };
  }

  /**
   * Refuses a blocked document's file to a non-admin key and records an admin's download
   * (`PrivacyBlockedDocumentDownloaded`, no personal data beyond the key id).
   * @throws SigningError `document_blocked` (403).
   */
  async function guardBlocked(s: DocumentState, file: string, who: Downloader | undefined): Promise<void> {
    const row = await blockedRow(s.document_id);
    if (!row) return;
    if (!who?.admin) {
      throw new SigningError('document_blocked', 'This document is blocked by an erasure request until its legal retention period ends; only an admin key can download it', { document_id: s.document_id, blocked_until: row.blocked!.blocked_until });
    }
    const e: PrivacyBlockedDocumentDownloaded = { type: PRIVACY_BLOCKED_DOCUMENT_DOWNLOADED, data: { tenant_id: s.tenant_id, document_id: s.document_id, file, key_id: who.keyId, downloaded_at: iso(clock.now()) } };
    await events.append(blockedDownloadsStream(s.tenant_id), [{ ...e, metadata: { tenant_id: s.tenant_id, ...(who.keyId ? { user: `api_key:${who.keyId}` } : {}) } }]);
    await deps.catchUp();
  }

  const blobKey = (s: { tenant_id: string; document_id: string }, name: string) => `signing/${s.tenant_id}/${s.document_id}/${name}`;

  async function original(s: DocumentState): Promise<Buffer> {
    const b = await blobs.get(s.blob_key);
    if (!b) throw new SigningError('document_not_found', 'The document file is gone', { document_id: s.document_id });
    return b;
  }

  // Finalized files are stored under their SHA-256, so two racing finalizes never overwrite the file whose
  // hash the winning `document_finalized` logged (the loser's files are orphans, removed with the document).
  const finalKey = (s: { tenant_id: string; document_id: string }, sha: string) => blobKey(s, `final-${sha}.pdf`);

  async function finalFile(s: DocumentState, which: 'pdf' | 'pdf_with_audit' | 'certificate'): Promise<Buffer> {
    const sha = s.final_files?.[which];
    const b = sha ? await blobs.get(finalKey(s, sha)) : null;
    if (!b) throw new SigningError('document_not_found', 'The finalized file is gone', { document_id: s.document_id });
    return b;
  }

  /**
   * Appends the finalize claim of a document (see domain/signing/finalize-claim.ts).
   * @returns the claim's id and the revision of its `claimed` event (what its release expects).
   * @throws SigningError `finalize_in_progress` while another finalize holds an unexpired claim.
   */
  async function claimFinalize(documentId: string, tenantId: string): Promise<{ claimId: string; revision: number }> {
    const stream = finalizeClaimStream(documentId);
    const { events: evs, currentRevision } = await events.readStream(stream);
    const now = clock.now();
    const busy = (expiresAt: string | null) =>
      new SigningError('finalize_in_progress', 'Another finalize of this document is sealing it now; retry shortly', {
        document_id: documentId,
        retry_after_seconds: expiresAt ? Math.max(1, Math.min(5, Math.ceil((Date.parse(expiresAt) - now) / 1000))) : 5,
      });
    const held = activeClaim(evs, now);
    if (held) throw busy(held.expiresAt);
    const claimId = `fin_${randomBytes(8).toString('hex')}`;
    try {
      const r = await events.append(stream, [{ type: FINALIZE_CLAIMED, data: { claim_id: claimId, at: iso(now), expires_at: iso(now + FINALIZE_CLAIM_LEASE_MS) }, metadata: { tenant_id: tenantId } }], {
        expectedRevision: currentRevision ?? 'no_stream',
      });
      return { claimId, revision: r.nextExpectedRevision };
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) throw busy(null);
      throw error;
    }
  }

  /** Releases a claim (a no-op when it lapsed and another finalize claimed the document since). */
  async function releaseFinalize(documentId: string, tenantId: string, claim: { claimId: string; revision: number }): Promise<void> {
    await events.append(finalizeClaimStream(documentId), [{ type: FINALIZE_RELEASED, data: { claim_id: claim.claimId, at: iso(clock.now()) }, metadata: { tenant_id: tenantId } }], { expectedRevision: claim.revision });
  }

  const service = {
    view,
    load,
    /** Hooks of the e.firma use cases (./efirma.ts): the same link check, append path and blob names. */
    efirmaHooks: (): EfirmaServiceHooks => ({ openLink: (id, token) => service.openLink(id, token), execute: (id, decide) => execute(id, decide, {}), original, blobKey }),
    /** The platform clock's now (epoch ms). */
    now: () => clock.now(),

    /** `POST /v1/signing/documents` (and `/v1/signing/create`): validates the PDF and signers; status `draft`. */
    async create(input: CreateInput) {
      const now = clock.now();
      const expiresAt = input.expiresAt ?? iso(now + settings.defaultExpiryDays * 86_400_000);
      if (Date.parse(expiresAt) <= now) throw new SigningError('invalid_expiry_date', 'expiry_date must be in the future', { field: 'expiry_date', expiry_date: expiresAt });
      const info = await deps.pdf.inspect(input.tenantId, input.pdf);
      const documentId = `doc_${randomBytes(12).toString('hex')}`;
      const tenant = input.tenantId;
      const key = blobKey({ tenant_id: tenant, document_id: documentId }, 'original.pdf');
      const signers = input.signers.map((s) => ({ ...s, id: `sgr_${randomBytes(8).toString('hex')}` }));
      const evs = decideCreate(
        {
          documentId,
          tenantId: tenant,
          user: input.user,
          title: input.title,
          description: input.description,
          message: input.message,
          notifyEmail: input.notifyEmail,
          expiryDate: expiresAt,
          file: { name: input.fileName, size: input.pdf.length, pages: info.pages },
          pageSizes: info.pageSizes,
          documentSha256: sha256(input.pdf),
          blobKey: key,
          linkBase: settings.publicBaseUrl ?? input.origin,
          locale: {
            language: input.language ?? deps.tenantLocale?.(tenant)?.language ?? DEFAULT_LOCALE.language,
            timeZone: input.timeZone ?? deps.tenantLocale?.(tenant)?.timeZone ?? DEFAULT_LOCALE.timeZone,
          },
          signers,
          tags: info.tags,
        },
        now,
      );
      await blobs.put(key, input.pdf, { contentType: 'application/pdf' });
      await events.append(documentStream(documentId), evs.map((e) => ({ ...e, metadata: { tenant_id: tenant, user: input.user } })), { expectedRevision: 'no_stream' });
      await deps.catchUp();
      const { state } = await load(documentId);
      return view(state);
    },

    async get(tenantId: string, documentId: string) {
      const s = await loadOwned(tenantId, documentId);
      await deps.catchUp();
      const doc = await (await signingDocuments(deps.readModels)).get(documentId);
      if (doc?.blocked) return blockedView(s, doc);
      return view(s, (doc?.audit_trail as AuditEntry[] | undefined) ?? []);
    },

    async list(tenantId: string, q: { status?: string; page: number; perPage: number; sort: 'created_at' | 'updated_at' | 'title'; order: 'asc' | 'desc' }) {
      await deps.catchUp();
      const col = await signingDocuments(deps.readModels);
      const filter: Record<string, unknown> = { tenant_id: tenantId, deleted: false };
      if (q.status) filter.status = q.status;
      const total = await col.count(filter as never);
      const docs = await col.find(filter as never, { sort: [{ field: q.sort, order: q.order }, { field: 'id', order: 'asc' }], limit: q.perPage, offset: (q.page - 1) * q.perPage });
      return {
        documents: docs.map((d) => ({ document_id: d.id, title: d.blocked ? '[blocked]' : d.title, status: d.status, created_at: d.created_at, updated_at: d.updated_at, expiry_date: d.expiry_date, signers_count: d.signers_count, signed_count: d.signed_count, ...(d.blocked ? { blocked: true } : {}) })),
        pagination: { page: q.page, per_page: q.perPage, total, total_pages: Math.ceil(total / q.perPage) },
      };
    },

    async sendInvitations(tenantId: string, documentId: string, input: { reminderDays: number; customMessage: string | null; user: string }) {
      await loadOwned(tenantId, documentId);
      const now = clock.now();
      const { state } = await execute(documentId, (s) => decideSendInvitations(s, input, now), {});
      const sent = state.signers.filter((x) => x.status === 'sent');
      return {
        invitations_sent: sent.length,
        document_status: state.status,
        sent_at: state.sent_at,
        reminder_days: state.reminder_days,
        signers_notified: sent.map((x) => ({ email: x.email, status: x.status, sent_at: x.sent_at })),
      };
    },

    async cancel(tenantId: string, documentId: string, input: { reason: string | null; user: string }) {
      await loadOwned(tenantId, documentId);
      const { state } = await execute(documentId, (s) => decideCancel(s, input, clock.now()), {});
      await deps.catchUp();
      return view(state);
    },

    async remove(tenantId: string, documentId: string, user: string) {
      const s = await loadOwned(tenantId, documentId);
      await execute(documentId, (st) => decideDelete(st, { user }, clock.now()), {});
      for (const key of await blobs.list(`signing/${s.tenant_id}/${s.document_id}/`)) await blobs.delete(key);
      await deps.catchUp();
      return { message: 'Document and its files deleted', document_id: documentId };
    },

    /** `signed` -> `completed`: renders, PAdES-signs and stores the three final files, then logs the hashes. */
    async finalize(tenantId: string, documentId: string, user: string) {
      const before = (await load(documentId)).state;
      if (!before.exists || before.deleted || before.tenant_id !== tenantId) throw new SigningError('document_not_found', 'Document not found', { document_id: documentId });
      assertFinalizable(before, clock.now());
      // Claim the transition before sealing (issue 31): racing finalizes seal once, the others answer 409.
      const claim = await claimFinalize(documentId, tenantId);
      const written: string[] = [];
      let recorded = false;
      try {
        // Read after the claim: a finalize that completed meanwhile shows here (document_locked).
        const { state: s, raw } = await load(documentId);
        const now = clock.now();
        assertFinalizable(s, now);
        const images: [string, Uint8Array][] = [];
        for (const signer of s.signers) {
          if (!signer.image_blob) continue;
          const png = await blobs.get(signer.image_blob);
          // Seal only the image whose hash the signature's audit entry logged (issue 31).
          if (!png || (signer.image_sha256 !== null && sha256(png) !== signer.image_sha256)) {
            throw new SigningError('signature_image_mismatch', `The stored signature image of signer ${signer.id} is ${png ? 'not the one its audit entry names' : 'missing'}; the document is not sealed`, { document_id: documentId, signer_id: signer.id });
          }
          images.push([signer.id, new Uint8Array(png)]);
        }
        const orig = await original(s);
        const finalizedAt = iso(now);
        // e.firma (issue 29): the final PDF is the signers' working PDF + the seal + LTV data (./efirma-finalize.ts).
        const efirma = await efirmaSealInput(blobs, s);
        const sealed = await deps.seal({ original: new Uint8Array(orig), state: s, images, audit: auditEntries(raw), chainHead: s.last_hash, finalizedAt, contactInfo: linkBase(s), ...(efirma ? { efirma } : {}) });
        const finalPdf = Buffer.from(sealed.pdf);
        const withAudit = Buffer.from(sealed.withAudit);
        const certificate = Buffer.from(sealed.certificate);
        const [finalSha256, auditSha256, certificateSha256] = [finalPdf, withAudit, certificate].map(sha256) as [string, string, string];
        for (const [bytes, hash] of [[finalPdf, finalSha256], [withAudit, auditSha256], [certificate, certificateSha256]] as const) {
          written.push(finalKey(s, hash));
          await blobs.put(finalKey(s, hash), bytes, { contentType: 'application/pdf' });
        }
        // NOM-151 conservation record of the final PDF (issue 29 item 5): 503 conservation_unavailable when the provider is down.
        const conservation = await recordConservation(blobs, settings.conservation, s, finalSha256, written);
        const { state } = await execute(
          documentId,
          (st) =>
            decideFinalize(
              st,
              { finalSha256, auditSha256, certificateSha256, chainHead: s.last_hash, timestamped: sealed.timestamped, user, conservation },
              // the instant the sealed certificate of completion states (finalizedAt), not the time sealing ended
              now,
            ),
          {},
        );
        recorded = true;
        await deps.catchUp();
        const u = urls(state);
        return {
          document_id: documentId,
          status: state.status,
          finalized_at: state.finalized_at,
          download_url: u.download_url,
          certificate_url: u.certificate_url,
          final_sha256: state.final_sha256,
          audit_chain_head: s.last_hash,
          conservation: state.conservation ? { gen_time: state.conservation.gen_time, token_sha256: state.conservation.token_sha256, tsa_url: state.conservation.tsa_url, url: `${linkBase(state)}/v1/signing/documents/${documentId}/conservation` } : null,
        };
      } finally {
        // Files of a finalize that was not recorded are nobody's: remove them, then free the claim.
        if (!recorded) for (const key of written) await blobs.delete(key).catch(() => false);
        await releaseFinalize(documentId, tenantId, claim).catch(() => undefined);
      }
    },

    /** The finalized PDF (`pdf`) or the same with the audit pages (`pdf_with_audit`). */
    async download(tenantId: string, documentId: string, format: 'pdf' | 'pdf_with_audit', who?: Downloader) {
      const s = await loadOwned(tenantId, documentId);
      if (s.status !== 'completed') {
        throw new SigningError('invalid_document_status', `The document is not finalized yet (status ${effectiveStatus(s, clock.now())}); finalize it first`, { document_id: documentId, status: effectiveStatus(s, clock.now()) });
      }
      await guardBlocked(s, format, who);
      return { filename: `${s.document_id}${format === 'pdf' ? '' : '-with-audit'}.pdf`, bytes: await finalFile(s, format) };
    },

    async certificate(tenantId: string, documentId: string, who?: Downloader) {
      const s = await loadOwned(tenantId, documentId);
      if (s.status !== 'completed') throw new SigningError('invalid_document_status', 'The certificate exists once the document is finalized', { document_id: documentId, status: effectiveStatus(s, clock.now()) });
      await guardBlocked(s, 'certificate', who);
      return { filename: `${s.document_id}-certificate.pdf`, bytes: await finalFile(s, 'certificate') };
    },

    /**
     * The NOM-151 conservation record's RFC 3161 token (DER) of a finalized document.
     * @throws SigningError `invalid_document_status` (409) before finalize, `conservation_not_found` (404) when
     *   it has none, `document_blocked` (403) for a non-admin key on a blocked document.
     */
    async conservation(tenantId: string, documentId: string, who?: Downloader) {
      const s = await loadOwned(tenantId, documentId);
      if (s.status !== 'completed') throw new SigningError('invalid_document_status', 'The conservation record exists once the document is finalized', { document_id: documentId, status: effectiveStatus(s, clock.now()) });
      await guardBlocked(s, 'conservation', who);
      return { filename: `${s.document_id}-conservation.tst`, bytes: await conservationToken(blobs, s) };
    },

    /** A view-only URL valid `previewTtlSeconds` (HMAC-signed; it cannot sign). */
    async preview(tenantId: string, documentId: string) {
      const s = await loadOwned(tenantId, documentId);
      if (await blockedRow(documentId)) throw new SigningError('document_blocked', 'This document is blocked by an erasure request: it is no longer shown to anyone', { document_id: documentId });
      const exp = clock.now() + settings.previewTtlSeconds * 1000;
      const sig = createHmac('sha256', deps.linkKey()).update(`preview:${documentId}:${exp}`).digest('base64url');
      return { preview_url: `${linkBase(s)}/sign/preview/${documentId}?exp=${exp}&sig=${sig}`, expires_at: iso(exp) };
    },

    /** Checks a preview URL's signature and expiry. @throws SigningError `invalid_link`. */
    async openPreview(documentId: string, exp: number, sig: string): Promise<DocumentState> {
      const want = createHmac('sha256', deps.linkKey()).update(`preview:${documentId}:${exp}`).digest();
      const got = Buffer.from(sig, 'base64url');
      if (got.length !== want.length || !timingSafeEqual(got, want) || !(exp > clock.now())) throw new SigningError('invalid_link', 'This preview link is invalid or has expired');
      const { state } = await load(documentId);
      // A blocked document is no longer served to signers: it answers as an unavailable one.
      if (!state.exists || state.deleted || (await blockedRow(documentId))) throw new SigningError('document_not_found', 'Document not found');
      return state;
    },

    /**
     * The signer a link token belongs to (hash compared in constant time; the token must not be expired).
     * @throws SigningError `invalid_link`, `document_not_found`.
     */
    async openLink(documentId: string, token: string): Promise<{ state: DocumentState; signer: SignerState }> {
      const { state } = await load(documentId);
      if (!state.exists || state.deleted || (await blockedRow(documentId))) throw new SigningError('document_not_found', 'Document not found');
      if (!/^sl_[A-Za-z0-9_-]{43}$/.test(token)) throw new SigningError('invalid_link', 'This signing link is invalid');
      const h = Buffer.from(tokenHash(token), 'hex');
      const now = clock.now();
      for (const signer of state.signers) {
        for (const l of signer.links) {
          if (timingSafeEqual(Buffer.from(l.token_hash, 'hex'), h)) {
            if (Date.parse(l.expires_at) <= now) throw new SigningError('invalid_link', 'This signing link has expired', { expired_at: l.expires_at });
            return { state, signer };
          }
        }
      }
      throw new SigningError('invalid_link', 'This signing link is invalid');
    },

    /** Issues a fresh link for an invited signer (hash logged); null when the signer may no longer act. */
    async issueLink(documentId: string, signerId: string, purpose: 'invitation' | 'reminder'): Promise<{ token: string; url: string; expiresAt: string; state: DocumentState } | null> {
      const token = `sl_${randomBytes(32).toString('base64url')}`;
      const now = clock.now();
      let expiresAt = '';
      try {
        const { state, appended } = await execute(
          documentId,
          (s) => {
            expiresAt = iso(Math.min(Date.parse(s.expiry_date), now + LINK_MAX_DAYS * 86_400_000));
            return decideIssueLink(s, { signerId, tokenHash: tokenHash(token), expiresAt, purpose }, now);
          },
          {},
        );
        if (appended.length === 0) return null;
        return { token, url: `${linkBase(state)}/sign/${documentId}?t=${token}`, expiresAt, state };
      } catch (error) {
        if (error instanceof SigningError) return null;
        throw error;
      }
    },

    async recordView(documentId: string, token: string, ip: string, userAgent: string) {
      const { signer } = await service.openLink(documentId, token);
      await execute(documentId, (s) => decideView(s, { signerId: signer.id, ip, userAgent }, clock.now()), {});
    },

    async pageImage(state: DocumentState, page: number): Promise<Buffer> {
      if (!Number.isInteger(page) || page < 1 || page > state.file.pages) throw new SigningError('document_not_found', 'No such page');
      const key = blobKey(state, `page-${page}.png`);
      const cached = await blobs.get(key);
      if (cached) return cached;
      // A page that could not be rendered in time is remembered: asking again answers at once instead of
      // spending a PDF thread for the whole deadline every time (issue 31).
      const failedKey = blobKey(state, `page-${page}.failed.json`);
      const failed = await blobs.get(failedKey);
      if (failed) {
        const f = JSON.parse(failed.toString('utf8')) as { code: 'pdf_too_complex'; message: string; details: Record<string, unknown> };
        throw new SigningError(f.code, f.message, f.details);
      }
      let png: Buffer;
      try {
        png = await deps.pdf.render(state.tenant_id, await original(state), page - 1, 1.5);
      } catch (error) {
        if (error instanceof SigningError && error.code === 'pdf_too_complex') {
          await blobs.put(failedKey, Buffer.from(JSON.stringify({ code: error.code, message: error.message, details: error.details })), { contentType: 'application/json' });
        }
        throw error;
      }
      await blobs.put(key, png, { contentType: 'image/png' });
      return png;
    },

    async sign(documentId: string, token: string, input: { consent: boolean; method: 'typed' | 'drawn'; typedName: string | null; drawnPng: Buffer | null; ip: string; userAgent: string }) {
      const { state, signer } = await service.openLink(documentId, token);
      assertSignerMayAct(state, signer.id, clock.now());
      let imageBlob: string | null = null;
      let imageSha: string | null = null;
      if (input.method === 'drawn') {
        if (!input.drawnPng) throw new SigningError('invalid_signer', 'Draw your signature first', { field: 'signature' });
        const png = await normalizeSignaturePng(input.drawnPng);
        imageSha = sha256(png);
        // One key per attempt (issue 31): of racing submits one is recorded, and a losing one must not
        // overwrite the image the winning entry's hash names. A loser removes its own file below.
        imageBlob = blobKey(state, `signature-${signer.id}-${randomBytes(8).toString('hex')}.png`);
        await blobs.put(imageBlob, png, { contentType: 'image/png' });
      } else if (!input.typedName || !input.typedName.trim()) {
        throw new SigningError('invalid_signer', 'Type your name to sign', { field: 'typed_name' });
      } else if (hasControlCharacters(input.typedName.trim())) {
        throw new SigningError('invalid_signer', 'The typed name must not contain control characters', { field: 'typed_name' });
      }
      const signatureId = `sig_${randomBytes(10).toString('hex')}`;
      let after: DocumentState;
      try {
        ({ state: after } = await execute(
          documentId,
          (s) =>
            decideSign(
              s,
              { signerId: signer.id, ip: input.ip, userAgent: input.userAgent.slice(0, 500), signatureId, method: input.method, typedName: input.method === 'typed' ? input.typedName!.trim().slice(0, 120) : null, imageBlob, imageSha256: imageSha, consent: input.consent },
              clock.now(),
            ),
          {},
        ));
      } catch (error) {
        if (imageBlob) await blobs.delete(imageBlob).catch(() => false);
        throw error;
      }
      return { state: after, signer: after.signers.find((x) => x.id === signer.id)! };
    },

    async decline(documentId: string, token: string, input: { reason: string; ip: string; userAgent: string }) {
      const { signer } = await service.openLink(documentId, token);
      const { state } = await execute(documentId, (s) => decideDecline(s, { signerId: signer.id, reason: input.reason, ip: input.ip, userAgent: input.userAgent.slice(0, 500) }, clock.now()), {});
      return { state, signer: state.signers.find((x) => x.id === signer.id)! };
    },

    /**
     * `POST /v1/signing/verify`: was this PDF sealed by this service, which document, unmodified since?
     * At most {@link MAX_SIGNATURES_EXAMINED} signatures are examined, and hashing stops at
     * {@link MAX_HASHED_FILE_MULTIPLE} times the file's size; the covered bytes are hashed in place, on a PDF
     * thread (`deps.pdf.hash`), never copied per signature.
     * `signed_by_service` is true only for a signature that verifies with the service's certificate; one
     * that names that certificate but does not verify (a tampered file, a seal copied into another PDF) is
     * reported by `invalid_service_signature` and never identifies a document.
     */
    async verify(tenantId: string, pdf: Buffer) {
      const identity = deps.identity();
      const scan = scanSignatures(pdf);
      // Which signatures are examined, within the hashing budget; then every digest they need (their byte
      // ranges, the revisions they sign, the file) in one task on a PDF thread, off the HTTP thread.
      const budget = MAX_HASHED_FILE_MULTIPLE * pdf.length;
      let hashed = pdf.length;
      const jobs = new Map<string, { algorithm: string; ranges: [number, number][] }>();
      const job = (key: string, algorithm: string, ranges: [number, number][]) => {
        if (jobs.has(key)) return 0;
        jobs.set(key, { algorithm, ranges });
        return ranges.reduce((n, [from, to]) => n + to - from, 0);
      };
      job('file', 'sha256', [[0, pdf.length]]);
      const examined: FoundSignature[] = [];
      for (const sig of scan.signatures) {
        const [a, b, c, d] = sig.byteRange;
        const algorithm = digestAlgorithmOf(sig.cms);
        const planned = new Map(jobs);
        let cost = 0;
        if (algorithm) cost += job(byteRangeDigestKey(algorithm, sig.byteRange), algorithm, [[a, a + b], [c, c + d]]);
        cost += job(`revision:${c + d}`, 'sha256', [[0, c + d]]);
        if (hashed + cost > budget) {
          jobs.clear();
          for (const [k, v] of planned) jobs.set(k, v);
          break;
        }
        hashed += cost;
        examined.push(sig);
      }
      const keys = [...jobs.keys()];
      const results = await deps.pdf.hash(tenantId, pdf, [...jobs.values()]);
      const digestOf = new Map(keys.map((k, i) => [k, results[i]!]));
      const checked: { c: SignatureCheck; s: FoundSignature }[] = [];
      for (const sig of examined) checked.push({ s: sig, c: await checkSignature(pdf, sig, digestOf) });
      const withOurCertificate = checked.filter((x) => x.c.signerCertificateSha256 === identity.certificateSha256);
      const ours = withOurCertificate.filter((x) => x.c.valid);
      const fileHash = digestOf.get('file')!.toString('hex');
      const lastValid = ours.at(-1);
      const last = lastValid ?? withOurCertificate.at(-1);
      const revisionHash = lastValid ? digestOf.get(`revision:${lastValid.s.byteRange[2] + lastValid.s.byteRange[3]}`)!.toString('hex') : null;
      const col = await signingDocuments(deps.readModels);
      let doc: SigningDocumentDoc | null = null;
      let variant: string | null = null;
      // Only a signature that verifies identifies a document (the file itself, or the revision it covers).
      for (const h of lastValid ? [fileHash, revisionHash!] : []) {
        for (const [field, name] of [['final_sha256', 'pdf'], ['audit_sha256', 'pdf_with_audit'], ['certificate_sha256', 'certificate']] as const) {
          const found = await col.find({ tenant_id: tenantId, [field]: h } as never, { limit: 1 });
          if (found[0] && !doc) {
            doc = found[0];
            variant = name;
          }
        }
      }
      const state = doc ? (await load(doc.id)).state : null;
      const withheld = !!doc?.blocked && !doc.deleted;
      // Per signature (issue 29): holder, RFC, CURP, issuer, OCSP at signing time (the document's record), coverage.
      const signatures = (await reportSignatures(pdf, checked, digestOf, state, identity.certificateSha256)).map((x) =>
        withheld ? { ...x, holder_name: null, rfc: null, representative_rfc: null, curp: null, representative_curp: null, signer_name: x.kind === 'efirma' ? null : x.signer_name } : x,
      );
      // Byte for byte a file finalize produced. (An e.firma document's seal is followed by its DSS and document
      // time-stamp revisions, so the seal itself does not cover the whole file there.)
      const unmodified = !!doc && [doc.final_sha256, doc.audit_sha256, doc.certificate_sha256].includes(fileHash);
      const reasonId = last?.s.reason ? /doc_[0-9a-f]{24}/.exec(last.s.reason)?.[0] ?? null : null;
      const claimed = !doc && reasonId ? await loadOwnedOrNull(tenantId, reasonId) : null;
      // The conservation token time-stamps the final PDF (`format=pdf`): checked for that file, or for a file
      // claiming a document of this account (a changed one then reports valid: false).
      const conservation = await verifyConservation(blobs, doc ? (variant === 'pdf' ? state : null) : claimed, fileHash);
      return {
        signed_by_service: ours.length > 0,
        invalid_service_signature: withOurCertificate.some((x) => !x.c.valid),
        signatures_found: scan.total,
        signatures_examined: checked.length,
        signature_valid: last ? last.c.valid : false,
        covers_whole_file: last ? last.c.coversWholeFile : false,
        unmodified,
        modified_after_finalize: !!doc && !unmodified,
        timestamp: lastValid?.c.timestamp ? lastValid.c.timestamp.toISOString() : null,
        document:
          state && doc
            ? {
                document_id: state.document_id,
                title: withheld ? '[blocked]' : state.title,
                variant,
                finalized_at: state.finalized_at,
                signers: withheld ? [] : state.signers.filter((x) => x.status === 'signed').map((x) => ({ name: x.name, email: x.email, signed_at: x.signed_at, signature_id: x.signature_id })),
              }
            : null,
        claimed_document_id: doc ? doc.id : claimed ? reasonId : null,
        conservation,
        signatures,
        sha256: fileHash,
      };
    },
  };

  async function loadOwnedOrNull(tenantId: string, documentId: string): Promise<DocumentState | null> {
    try {
      return await loadOwned(tenantId, documentId);
    } catch {
      return null;
    }
  }

  return service;
}

/**
 * A drawn signature: must be a PNG of at most 2000 x 1000 px; re-encoded by sharp (drops anything but
 * the pixels) so the PDF embeds a clean image.
 * @throws SigningError `invalid_signer` otherwise.
 */
export async function normalizeSignaturePng(png: Buffer): Promise<Buffer> {
  const sharp = (await import('sharp')).default;
  try {
    const meta = await sharp(png).metadata();
    if (meta.format !== 'png' || !meta.width || !meta.height || meta.width > 2000 || meta.height > 1000) throw new Error('size');
    return await sharp(png).png().toBuffer();
  } catch {
    throw new SigningError('invalid_signer', 'The drawn signature must be a PNG image of at most 2000 x 1000 pixels', { field: 'signature' });
  }
}
