/**
 * NOM-151-SCFI-2016 conservation records (*constancia de conservación*, issue 29 item 5). NOM-151 providers
 * issue the constancia as an RFC 3161 time-stamp token over the document's hash; with
 * `CONSERVATION_TSA_URL` set, finalize sends the SHA-256 of every document's final PDF (`format=pdf`) to that
 * service, stores the TimeStampToken (DER of the CMS ContentInfo) as a blob and logs
 * {@link ConservationRecord} in `signing.document_finalized`. A provider that does not answer fails finalize
 * with 503 `conservation_unavailable`: the local clock is never used in its place, nothing is recorded.
 *
 * `GET /v1/signing/documents/{id}/conservation` serves the token; `POST /v1/signing/verify` checks it
 * against the uploaded file ({@link checkConservation}). docs/signing.md "NOM-151 conservation record".
 */
import { createHash, createPublicKey, verify as cryptoVerify } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { BlobStore } from '../../infra/ports/blob-store.ts';
import type { ConservationRecord, DocumentState } from '../../domain/signing/document.ts';
import { SigningError } from '../../domain/signing/errors.ts';
import { requestTimestamp, signerCertificateOf, type TimestampOptions } from '../../domain/signing/pades.ts';

/** Media type of the served token: a CMS ContentInfo holding SignedData (RFC 5652), i.e. RFC 3161's TimeStampToken. */
export const CONSERVATION_MEDIA_TYPE = 'application/pkcs7-mime';

const toAB = (b: Uint8Array): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
const OID_TST_INFO = '1.2.840.113549.1.9.16.1.4';
const OID_SIGNED_DATA = '1.2.840.113549.1.7.2';
const OID_SHA256 = '2.16.840.1.101.3.4.2.1';

/**
 * Time-stamps the final PDF at the conservation provider and stores the token under
 * `signing/<tenant>/<document>/conservation-<token sha256>.tst` (its key is pushed to `written` first, so the
 * caller's clean-up removes it when the finalize is not recorded).
 * @param finalSha256 hex SHA-256 of the final PDF (`format=pdf`)
 * @returns the record to log, or null when no provider is configured
 * @throws SigningError `conservation_unavailable` (503) when the provider does not answer usably within
 *   `attempts` x `timeoutMs` (network, HTTP status, refused request, wrong imprint or nonce).
 */
export async function recordConservation(
  blobs: BlobStore,
  options: TimestampOptions | null | undefined,
  s: Pick<DocumentState, 'tenant_id' | 'document_id'>,
  finalSha256: string,
  written: string[],
): Promise<ConservationRecord | null> {
  if (!options) return null;
  let token: pkijs.ContentInfo;
  let genTime: Date;
  try {
    ({ token, genTime } = await requestTimestamp(Buffer.from(finalSha256, 'hex'), options));
  } catch (error) {
    if (error instanceof SigningError && error.code === 'timestamp_unavailable') {
      throw new SigningError('conservation_unavailable', 'The NOM-151 conservation provider did not answer; nothing was recorded, finalize again later', { ...error.details, provider: 'conservation' });
    }
    throw error;
  }
  const der = Buffer.from(token.toSchema().toBER(false));
  const tokenSha256 = createHash('sha256').update(der).digest('hex');
  const key = `signing/${s.tenant_id}/${s.document_id}/conservation-${tokenSha256}.tst`;
  written.push(key);
  await blobs.put(key, der, { contentType: CONSERVATION_MEDIA_TYPE });
  return { token_blob: key, token_sha256: tokenSha256, gen_time: genTime.toISOString(), tsa_url: options.url };
}

/**
 * The stored token of a finalized document.
 * @throws SigningError `conservation_not_found` (404) when the document has no record (finalized without
 *   `CONSERVATION_TSA_URL`), `document_not_found` when its blob is gone or does not hash to the logged value.
 */
export async function conservationToken(blobs: BlobStore, s: DocumentState): Promise<Buffer> {
  const rec = s.conservation;
  if (!rec) throw new SigningError('conservation_not_found', 'This document has no NOM-151 conservation record (it was finalized without a conservation provider)', { document_id: s.document_id });
  const der = await blobs.get(rec.token_blob);
  if (!der || createHash('sha256').update(der).digest('hex') !== rec.token_sha256) throw new SigningError('document_not_found', 'The conservation record is gone', { document_id: s.document_id });
  return der;
}

/** What `/v1/signing/verify` reports of a conservation record (see {@link checkConservation}). */
export interface ConservationCheck {
  /** The document has a conservation record. */
  present: boolean;
  /** The token's imprint is SHA-256 of the uploaded file and its CMS signature verifies with the certificate it carries. */
  valid: boolean;
  /** ISO `genTime` of the token. */
  gen_time: string | null;
  /** Common name (else the whole subject) of the time-stamping certificate that signed the token. */
  tsa: string | null;
  /** The provider URL recorded at finalize. */
  tsa_url: string | null;
  /** SHA-256 (hex) of the token's DER (as logged). */
  token_sha256: string | null;
  /** Why `valid` is false, when it is. */
  error: string | null;
}

/**
 * Checks a stored token against a file: the token must be a CMS SignedData of a TSTInfo whose message imprint
 * is SHA-256 and equals `fileSha256`, and its signer info must verify with the signer certificate the token
 * carries (`certReq` was true). No trust decision on the provider's certificate is made here: `tsa` names it,
 * and `openssl ts -verify -CAfile <provider CA>` checks it against the provider's root (docs/signing.md).
 */
export async function checkConservation(token: Buffer, fileSha256: string): Promise<Pick<ConservationCheck, 'valid' | 'gen_time' | 'tsa' | 'error'>> {
  let genTime: string | null = null;
  let tsa: string | null = null;
  try {
    const ci = pkijs.ContentInfo.fromBER(toAB(token));
    if (ci.contentType !== OID_SIGNED_DATA) throw new Error('not a CMS SignedData');
    const sd = new pkijs.SignedData({ schema: ci.content });
    if (sd.encapContentInfo.eContentType !== OID_TST_INFO || !sd.encapContentInfo.eContent) throw new Error('not a time-stamp token');
    const info = pkijs.TSTInfo.fromBER(sd.encapContentInfo.eContent.getValue());
    genTime = info.genTime.toISOString();
    const signer = signerCertificateOf(sd);
    if (signer) tsa = commonName(signer);
    if (info.messageImprint.hashAlgorithm.algorithmId !== OID_SHA256) throw new Error('the token does not time-stamp a SHA-256 digest');
    const imprint = Buffer.from(info.messageImprint.hashedMessage.valueBlock.valueHexView).toString('hex');
    if (imprint !== fileSha256) throw new Error('the token time-stamps another file (its imprint is not this file\'s SHA-256)');
    if (!signer) throw new Error('the token does not carry its signer certificate');
    verifySignerInfo(sd, signer, Buffer.from(sd.encapContentInfo.eContent.getValue()));
    return { valid: true, gen_time: genTime, tsa, error: null };
  } catch (error) {
    const message = (error as { message?: string }).message ?? (typeof error === 'string' ? error : 'unreadable token');
    return { valid: false, gen_time: genTime, tsa, error: message };
  }
}

/**
 * The conservation part of a verification: null without a document; `present: false` when it has no record.
 * Reads the token blob (a missing one is reported as not valid).
 */
export async function verifyConservation(blobs: BlobStore, s: DocumentState | null, fileSha256: string): Promise<ConservationCheck | null> {
  if (!s) return null;
  const rec = s.conservation;
  if (!rec) return { present: false, valid: false, gen_time: null, tsa: null, tsa_url: null, token_sha256: null, error: null };
  const der = await blobs.get(rec.token_blob);
  const base = { present: true, tsa_url: rec.tsa_url, token_sha256: rec.token_sha256 };
  if (!der || createHash('sha256').update(der).digest('hex') !== rec.token_sha256) return { ...base, valid: false, gen_time: rec.gen_time, tsa: null, error: 'the stored token is gone or altered' };
  return { ...base, ...(await checkConservation(der, fileSha256)) };
}

/** Digest algorithms of a token's signer info (OID -> node:crypto name). */
const DIGESTS: Record<string, string> = { '2.16.840.1.101.3.4.2.1': 'sha256', '2.16.840.1.101.3.4.2.2': 'sha384', '2.16.840.1.101.3.4.2.3': 'sha512', '1.3.14.3.2.26': 'sha1' };

/**
 * RFC 5652 5.4: the signed attributes' message-digest equals the digest of the encapsulated TSTInfo, and the
 * signature over the DER signed attributes verifies with the signer certificate's key (RSA PKCS#1 v1.5 or ECDSA).
 * pkijs' own `SignedData.verify` re-hashes the time-stamped data itself (the whole PDF), which is not needed here.
 * @throws Error naming what does not verify.
 */
function verifySignerInfo(sd: pkijs.SignedData, cert: pkijs.Certificate, content: Buffer): void {
  const si = sd.signerInfos[0];
  if (!si?.signedAttrs) throw new Error('the token has no signed attributes');
  const alg = DIGESTS[si.digestAlgorithm.algorithmId];
  if (!alg) throw new Error(`unsupported digest algorithm ${si.digestAlgorithm.algorithmId}`);
  const md = si.signedAttrs.attributes.find((a) => a.type === '1.2.840.113549.1.9.4')?.values[0] as asn1js.OctetString | undefined;
  if (!md || !createHash(alg).update(content).digest().equals(Buffer.from(md.valueBlock.valueHexView))) throw new Error('the token\'s message digest does not match its content');
  const key = createPublicKey({ key: Buffer.from(cert.subjectPublicKeyInfo.toSchema().toBER(false)), format: 'der', type: 'spki' });
  if (!cryptoVerify(alg, Buffer.from(si.signedAttrs.encodedValue), key, Buffer.from(si.signature.valueBlock.valueHexView))) throw new Error('the token\'s signature does not verify');
}

function commonName(c: pkijs.Certificate): string {
  const values = c.subject.typesAndValues.map((tv) => ({ type: tv.type, value: String(tv.value.valueBlock.value) }));
  return values.find((v) => v.type === '2.5.4.3')?.value ?? values.map((v) => v.value).join(', ');
}
