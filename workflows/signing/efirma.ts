/**
 * Signing with a signer's own e.firma (SAT FIEL), the use cases behind `/sign/:document_id/efirma/*`
 * (issue 29). The private key never reaches the server: the browser sends the certificate, the server
 * checks it and prepares the CMS signed attributes of the document's next incremental revision, the
 * browser signs them and sends only the signature value.
 *
 * prepare(certificate):
 *  1. the link's signer may act now (order, expiry, not signed...: `assertSignerMayAct`) and is an
 *     `efirma` signer;
 *  2. the certificate is a FIEL (not a CSD), within its validity, carrying the RFC/CURP the creator gave
 *     (`assertFielUsable`), chains to the trust list (`EFIRMA_TRUST_LIST`) and OCSP says `good`
 *     (`EFIRMA_OCSP_URL` or the certificate's responder; no answer: 503 `efirma_ocsp_unavailable`);
 *  3. on a PDF thread: the working PDF (the latest e.firma revision; the original made an incremental
 *     base for the first signer) gets the signer's signature field (widget at their first placement) and
 *     a zeroed `/Contents`; the signed attributes (message-digest of the byte range, signing-certificate-v2,
 *     signing-time) are built;
 *  4. the placeholder PDF and a record binding it to the document, the signer, the working PDF's hash,
 *     the certificate, its chain and OCSP answer are stored as blobs for {@link PREPARE_TTL_MS}.
 * complete(prepare_id, signature):
 *  1. the record is the signer's, unexpired, and the working PDF has not changed since (another signer
 *     completed first: 409 `efirma_prepare_stale`, prepare again);
 *  2. the CMS is assembled, which verifies the signature with the certificate's key
 *     (422 `efirma_signature_invalid`), and embedded on a PDF thread;
 *  3. the new working PDF and the OCSP response are stored under their own keys, then
 *     `signing.document_signed` (method `efirma`) is appended through `decideSign` with the same rules as
 *     a typed signature (order, consent, expiry, finalize lock) and the working PDF it was prepared on
 *     (checked again in the append: of two racing completes one wins, the other is stale). A signature
 *     that is not recorded leaves no file behind.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { BlobStore } from '../../infra/ports/blob-store.ts';
import type { Clock } from '../../infra/ports/workflows.ts';
import { SigningError } from '../../domain/signing/errors.ts';
import { assertSignerMayAct, decideSign } from '../../domain/signing/decide.ts';
import type { DocumentState, EfirmaSignedIdentity, EfirmaValidation, SignerState, SigningEvent } from '../../domain/signing/document.ts';
import { assembleCms, buildSignedAttributes } from '../../domain/signing/incremental/index.ts';

/** How long a prepared signature can be completed (ms): the browser signs within seconds. */
export const PREPARE_TTL_MS = 5 * 60_000;
/** Largest certificate accepted (bytes of DER): SAT certificates are about 2 KB. */
export const MAX_CERTIFICATE_BYTES = 16 * 1024;
/** Largest signature value accepted (bytes): RSA 4096 is 512. */
export const MAX_SIGNATURE_BYTES = 1024;

/** The certificate as the PKI module reads it (domain/signing/efirma/certificate.ts, issue 29 split). */
export interface EfirmaCertificateView {
  der: Buffer;
  sha256: string;
  serialNumberHex: string;
  holderName: string;
  issuerDn: string;
  rfc: string | null;
  representativeRfc: string | null;
  curp: string | null;
  representativeCurp: string | null;
  ocspUrl: string | null;
}

/** The OCSP answer (infra/signing/efirma/ocsp.ts). */
export interface EfirmaOcspAnswer {
  status: 'good' | 'revoked' | 'unknown';
  producedAt: Date;
  revokedAt: Date | null;
  responderUrl: string;
  responseDer: Buffer;
}

/**
 * The PKI checks (bound by the runtime to domain/signing/efirma/certificate.ts and infra/signing/efirma/*,
 * with the configured trust list and OCSP settings). Each throws its coded {@link SigningError}.
 */
export interface EfirmaPki {
  /** @throws `efirma_certificate_invalid` (422) */
  parse(der: Buffer): EfirmaCertificateView;
  /** @throws `efirma_not_fiel`, `efirma_certificate_expired`, `efirma_identity_mismatch` (422) */
  assertUsable(cert: EfirmaCertificateView, now: Date, expected: { rfc: string | null; curp: string | null }): void;
  /** Chain leaf first. @throws `efirma_untrusted` (422) */
  verifyChain(leaf: Buffer, at: Date): Promise<{ chain: Buffer[]; issuer: Buffer }>;
  /** @throws `efirma_ocsp_unavailable` (503) */
  checkOcsp(cert: EfirmaCertificateView, issuer: Buffer): Promise<EfirmaOcspAnswer>;
}

/** The PDF threads' e.firma tasks (apps/worker/pdf-pool.ts). */
export interface EfirmaPdfThreads {
  efirmaPrepare(tenantId: string, task: { bytes: Uint8Array; base: boolean; fieldName: string; page: number; rect: [number, number, number, number]; name: string; reason: string; signingTime: string }): Promise<{ pdf: Buffer; byteRange: [number, number, number, number]; digest: Buffer }>;
  efirmaEmbed(tenantId: string, p: { pdf: Buffer; byteRange: [number, number, number, number]; digest: Buffer }, cms: Buffer): Promise<Buffer>;
}

/** What the e.firma use cases take from the signing service (workflows/signing/service.ts hooks). */
export interface EfirmaServiceHooks {
  openLink(documentId: string, token: string): Promise<{ state: DocumentState; signer: SignerState }>;
  /** Loads, decides and appends with the expected revision (retried on a concurrent write). */
  execute(documentId: string, decide: (s: DocumentState) => SigningEvent[]): Promise<{ state: DocumentState }>;
  /** The uploaded original. */
  original(s: DocumentState): Promise<Buffer>;
  /** Blob key of a document file: `signing/<tenant>/<document>/<name>`. */
  blobKey(s: DocumentState, name: string): string;
}

export interface EfirmaDeps {
  blobs: BlobStore;
  clock: Clock;
  pki: EfirmaPki;
  pdf: EfirmaPdfThreads | null;
  service: EfirmaServiceHooks;
}

/** The stored record of a prepared signature (JSON blob next to its placeholder PDF). */
interface PreparedRecord {
  prepare_id: string;
  document_id: string;
  signer_id: string;
  /** working_pdf_sha256 the placeholder was appended to (null: the original). */
  base_sha256: string | null;
  expires_at: string;
  signing_time: string;
  byte_range: [number, number, number, number];
  digest: string;
  signed_attributes: string;
  certificate: string;
  chain: string[];
  issuer: string;
  identity: EfirmaSignedIdentity;
  ocsp: { status: 'good'; produced_at: string; responder: string; response: string };
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const PREPARE_ID = /^efp_[0-9a-f]{32}$/;
const B64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Decodes strict base64 of at most `max` bytes.
 * @throws SigningError `invalid_signer` (400, `details.field`)
 */
export function decodeBase64Field(value: unknown, field: string, max: number): Buffer {
  const v = typeof value === 'string' ? value.replace(/\s+/g, '') : '';
  if (!v || !B64.test(v) || v.length % 4 !== 0) throw new SigningError('invalid_signer', `${field} must be base64`, { field });
  const b = Buffer.from(v, 'base64');
  if (b.length === 0 || b.length > max) throw new SigningError('invalid_signer', `${field} must be at most ${max} bytes`, { field, max_bytes: max });
  return b;
}

/** The prepared-signature and complete use cases (module comment). */
export function createEfirmaSigning(deps: EfirmaDeps) {
  const { blobs, clock, pki, service } = deps;
  const recordKey = (s: DocumentState, id: string) => service.blobKey(s, `efirma/prepare-${id}.json`);
  const placeholderKey = (s: DocumentState, id: string) => service.blobKey(s, `efirma/prepare-${id}.pdf`);

  function threads(): EfirmaPdfThreads {
    if (!deps.pdf) throw new SigningError('efirma_not_configured', 'The PDF threads are not available in this process', { reason: 'no PDF threads' });
    return deps.pdf;
  }

  /** The link's signer, who must be an e.firma signer allowed to act now. */
  async function signerOf(documentId: string, token: string) {
    const { state, signer } = await service.openLink(documentId, token);
    assertSignerMayAct(state, signer.id, clock.now());
    if (signer.signature_type !== 'efirma') throw new SigningError('efirma_not_expected', 'This signer signs with a typed or drawn signature, not with an e.firma', { signer_id: signer.id });
    return { state, signer };
  }

  /** The PDF the next e.firma signature is appended to: the latest working PDF, checked against its logged hash. */
  async function workingPdf(state: DocumentState): Promise<{ bytes: Buffer; base: boolean }> {
    if (!state.working_pdf_blob) return { bytes: await service.original(state), base: true };
    const b = await blobs.get(state.working_pdf_blob);
    if (!b || sha256(b) !== state.working_pdf_sha256) throw new SigningError('document_not_found', 'The signed working version of the document is missing or altered', { document_id: state.document_id });
    return { bytes: b, base: false };
  }

  /** Deletes prepared signatures of the document whose time is over (best effort). */
  async function sweep(state: DocumentState, now: number): Promise<void> {
    const prefix = service.blobKey(state, 'efirma/prepare-');
    for (const key of await blobs.list(prefix).catch(() => [] as string[])) {
      if (!key.endsWith('.json')) continue;
      const raw = await blobs.get(key).catch(() => null);
      const r = raw ? (JSON.parse(raw.toString('utf8')) as PreparedRecord) : null;
      if (r && Date.parse(r.expires_at) > now) continue;
      await blobs.delete(key).catch(() => false);
      await blobs.delete(key.replace(/\.json$/, '.pdf')).catch(() => false);
    }
  }

  return {
    /**
     * Checks the signer's certificate and prepares the signature (module comment).
     * @returns `prepare_id`, the DER signed attributes (base64) the browser signs, and when the preparation expires
     * @throws SigningError: the link's (`invalid_link`, `not_your_turn`, `already_signed`...), `efirma_not_expected`,
     *   the certificate's (422), `efirma_certificate_revoked` / `efirma_certificate_status_unknown` (422),
     *   `efirma_ocsp_unavailable` (503), `pdf_busy` (503)
     */
    async prepare(documentId: string, token: string, certificateB64: unknown): Promise<{ prepare_id: string; signed_attributes: string; expires_at: string }> {
      const { state, signer } = await signerOf(documentId, token);
      const der = decodeBase64Field(certificateB64, 'certificate', MAX_CERTIFICATE_BYTES);
      const now = new Date(clock.now());
      const cert = pki.parse(der);
      pki.assertUsable(cert, now, { rfc: signer.rfc, curp: signer.curp });
      const { chain, issuer } = await pki.verifyChain(cert.der, now);
      const ocsp = await pki.checkOcsp(cert, issuer);
      if (ocsp.status === 'revoked') {
        throw new SigningError('efirma_certificate_revoked', 'The certificate is revoked (OCSP): it cannot sign', { certificate_serial: cert.serialNumberHex, revoked_at: ocsp.revokedAt?.toISOString() ?? null, ocsp_responder: ocsp.responderUrl });
      }
      if (ocsp.status !== 'good') {
        throw new SigningError('efirma_certificate_status_unknown', 'The OCSP responder does not know this certificate: it cannot sign', { certificate_serial: cert.serialNumberHex, ocsp_responder: ocsp.responderUrl });
      }
      await sweep(state, now.getTime());
      const { bytes, base } = await workingPdf(state);
      const f = signer.fields[0];
      const signingTime = new Date(Math.floor(now.getTime() / 1000) * 1000);
      const placeholder = await threads().efirmaPrepare(state.tenant_id, {
        bytes,
        base,
        fieldName: `efirma_${signer.id}_${randomBytes(4).toString('hex')}`,
        page: f?.page ?? 1,
        rect: f ? [f.x, f.y, f.x + f.width, f.y + f.height] : [0, 0, 0, 0],
        name: cert.holderName,
        reason: state.locale.language === 'en' ? `Signed with e.firma, document ${state.document_id}` : `Firmado con e.firma, documento ${state.document_id}`,
        signingTime: signingTime.toISOString(),
      });
      const signedAttributes = buildSignedAttributes({ digest: placeholder.digest, certificate: cert.der, signingTime });
      const prepareId = `efp_${randomBytes(16).toString('hex')}`;
      const expiresAt = new Date(now.getTime() + PREPARE_TTL_MS).toISOString();
      const record: PreparedRecord = {
        prepare_id: prepareId,
        document_id: state.document_id,
        signer_id: signer.id,
        base_sha256: state.working_pdf_sha256,
        expires_at: expiresAt,
        signing_time: signingTime.toISOString(),
        byte_range: placeholder.byteRange,
        digest: placeholder.digest.toString('hex'),
        signed_attributes: signedAttributes.toString('base64'),
        certificate: cert.der.toString('base64'),
        chain: chain.map((c) => c.toString('base64')),
        issuer: cert.issuerDn,
        identity: {
          certificate_serial: cert.serialNumberHex,
          certificate_sha256: cert.sha256,
          holder_name: cert.holderName,
          rfc: cert.rfc,
          representative_rfc: cert.representativeRfc,
          curp: cert.curp,
          representative_curp: cert.representativeCurp,
        },
        ocsp: { status: 'good', produced_at: ocsp.producedAt.toISOString(), responder: ocsp.responderUrl, response: ocsp.responseDer.toString('base64') },
      };
      await blobs.put(placeholderKey(state, prepareId), placeholder.pdf, { contentType: 'application/pdf' });
      await blobs.put(recordKey(state, prepareId), Buffer.from(JSON.stringify(record)), { contentType: 'application/json' });
      return { prepare_id: prepareId, signed_attributes: record.signed_attributes, expires_at: expiresAt };
    },

    /**
     * Completes a prepared signature with the browser's signature value and records it (module comment).
     * @throws SigningError `efirma_prepare_not_found` (404), `efirma_prepare_stale` (409), `efirma_signature_invalid`
     *   (422), the link's and decideSign's errors, `pdf_busy` (503)
     */
    async complete(documentId: string, token: string, input: { prepareId: unknown; signature: unknown; consent: boolean; ip: string; userAgent: string }): Promise<{ state: DocumentState; signer: SignerState }> {
      const { state, signer } = await signerOf(documentId, token);
      const prepareId = typeof input.prepareId === 'string' && PREPARE_ID.test(input.prepareId) ? input.prepareId : null;
      const signature = decodeBase64Field(input.signature, 'signature', MAX_SIGNATURE_BYTES);
      const notFound = () => new SigningError('efirma_prepare_not_found', 'This prepared signature is unknown or expired; sign again', { prepare_id: prepareId });
      if (!prepareId) throw notFound();
      const raw = await blobs.get(recordKey(state, prepareId));
      const record = raw ? (JSON.parse(raw.toString('utf8')) as PreparedRecord) : null;
      if (!record || record.document_id !== state.document_id || record.signer_id !== signer.id || Date.parse(record.expires_at) <= clock.now()) throw notFound();
      if (record.base_sha256 !== state.working_pdf_sha256) {
        throw new SigningError('efirma_prepare_stale', 'The document changed since your signature was prepared (another signer signed); sign again', { signer_id: signer.id });
      }
      if (!input.consent) throw new SigningError('invalid_signer', 'Consent to sign electronically is required', { field: 'consent' });
      const certificate = Buffer.from(record.certificate, 'base64');
      const cms = assembleCms({ signedAttributes: Buffer.from(record.signed_attributes, 'base64'), signature, certificate, chain: record.chain.map((c) => Buffer.from(c, 'base64')).slice(1) });
      const placeholderPdf = await blobs.get(placeholderKey(state, prepareId));
      if (!placeholderPdf) throw notFound();
      const signed = await threads().efirmaEmbed(state.tenant_id, { pdf: placeholderPdf, byteRange: record.byte_range, digest: Buffer.from(record.digest, 'hex') }, cms);
      const signedSha = sha256(signed);
      const signatureId = `sig_${randomBytes(10).toString('hex')}`;
      // Content-addressed: racing completes never overwrite the file a recorded entry names.
      const workingKey = service.blobKey(state, `efirma/working-${signedSha}.pdf`);
      const ocspKey = service.blobKey(state, `efirma/ocsp-${signatureId}.der`);
      await blobs.put(workingKey, signed, { contentType: 'application/pdf' });
      await blobs.put(ocspKey, Buffer.from(record.ocsp.response, 'base64'), { contentType: 'application/ocsp-response' });
      const validation: EfirmaValidation = {
        issuer: record.issuer,
        ocsp_status: record.ocsp.status,
        ocsp_produced_at: record.ocsp.produced_at,
        ocsp_responder: record.ocsp.responder,
        working_pdf_blob: workingKey,
        working_pdf_sha256: signedSha,
        ocsp_blob: ocspKey,
      };
      let after: DocumentState;
      try {
        ({ state: after } = await service.execute(documentId, (s) =>
          decideSign(
            s,
            {
              signerId: signer.id,
              ip: input.ip,
              userAgent: input.userAgent.slice(0, 500),
              signatureId,
              method: 'efirma',
              typedName: null,
              imageBlob: null,
              imageSha256: null,
              consent: input.consent,
              efirma: { identity: record.identity, validation, basePdfSha256: record.base_sha256 },
            },
            clock.now(),
          ),
        ));
      } catch (error) {
        await blobs.delete(ocspKey).catch(() => false);
        // Another signature may have produced the same bytes only if it is this very file: keep what a recorded entry names.
        const { state: now } = await service.openLink(documentId, token).catch(() => ({ state: null as DocumentState | null }));
        if (now?.working_pdf_blob !== workingKey) await blobs.delete(workingKey).catch(() => false);
        throw error;
      }
      await blobs.delete(recordKey(state, prepareId)).catch(() => false);
      await blobs.delete(placeholderKey(state, prepareId)).catch(() => false);
      return { state: after, signer: after.signers.find((x) => x.id === signer.id)! };
    },
  };
}

export type EfirmaSigning = ReturnType<typeof createEfirmaSigning>;
