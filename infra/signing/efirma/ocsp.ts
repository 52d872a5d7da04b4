/**
 * OCSP (RFC 6960) status of a signer's e.firma certificate at signing time (issue 29). The answer counts only
 * once it is checked; anything else is "unavailable" and the signature is refused (never accepted unchecked):
 *
 * - request: one SHA-1 CertID (RFC 5019 2.1.1: what every responder, the SAT's included, understands) and a
 *   32-byte nonce (RFC 8954), POSTed as `application/ocsp-request`;
 * - each attempt is bounded by `timeoutMs` (AbortSignal.timeout, connect to end of body) and the answer by
 *   {@link MAX_OCSP_RESPONSE_BYTES};
 * - the answer must be `successful` with a BasicOCSPResponse signed either by the issuer itself or by a
 *   delegated responder whose certificate (in the answer) the issuer signed, with id-kp-OCSPSigning, valid now
 *   (RFC 6960 4.2.2.2); a SingleResponse must match our CertID (hash algorithm, issuer name and key hashes,
 *   serial); a nonce, when echoed, must be ours; thisUpdate must not be in the future, nextUpdate (when
 *   given) not past, and without nextUpdate thisUpdate not older than {@link MAX_AGE_WITHOUT_NEXT_UPDATE_MS}.
 */
import { createHash, randomBytes, webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { SigningError } from '../../../domain/signing/errors.ts';

pkijs.setEngine('node-webcrypto', new pkijs.CryptoEngine({ name: 'node-webcrypto', crypto: webcrypto as unknown as Crypto }));

/** A checked OCSP answer about one certificate. */
export interface OcspResult {
  /** `good`, `revoked`, or `unknown` (the responder does not know the certificate). */
  status: 'good' | 'revoked' | 'unknown';
  /** When the responder signed the answer. */
  producedAt: Date;
  /** The time at which the status was known to be correct. */
  thisUpdate: Date;
  /** Revocation time when `revoked`, else null. */
  revokedAt: Date | null;
  /** The URL asked. */
  responderUrl: string;
  /** The whole OCSPResponse, DER (what the PDF's DSS stores, PAdES B-LT). */
  responseDer: Buffer;
  /** The certificates the answer carries (a delegated responder's), DER. */
  responderCertificates: Buffer[];
}

/** Options of {@link checkOcsp}. */
export interface OcspOptions {
  /** Responder URL (EFIRMA_OCSP_URL, else the certificate's authorityInfoAccess). */
  url: string;
  /** Per-attempt limit, ms. */
  timeoutMs: number;
  /** Attempts before `efirma_ocsp_unavailable`. */
  attempts: number;
}

/** Largest OCSP answer read (a SAT answer with its responder certificate is about 2 KB). */
export const MAX_OCSP_RESPONSE_BYTES = 256 * 1024;
/** Tolerated clock difference with the responder. */
const CLOCK_SKEW_MS = 5 * 60_000;
/** Without nextUpdate, the oldest thisUpdate accepted (a responder answering from a stale cache). */
export const MAX_AGE_WITHOUT_NEXT_UPDATE_MS = 24 * 3600_000;

const OID = {
  basic: '1.3.6.1.5.5.7.48.1.1',
  nonce: '1.3.6.1.5.5.7.48.1.2',
  ocspSigning: '1.3.6.1.5.5.7.3.9',
  extKeyUsage: '2.5.29.37',
  sha1: '1.3.14.3.2.26',
} as const;
const HASHES: Record<string, string> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};
const RESPONSE_STATUS = ['successful', 'malformedRequest', 'internalError', 'tryLater', '4', 'sigRequired', 'unauthorized'];

const toAB = (b: Uint8Array): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
const der = (o: { toSchema(): asn1js.AsnType }) => Buffer.from(o.toSchema().toBER(false));

function parseCertificate(bytes: Buffer, what: string): pkijs.Certificate {
  const asn = asn1js.fromBER(toAB(bytes));
  if (asn.offset === -1) throw new Error(`${what} is not DER`);
  return new pkijs.Certificate({ schema: asn.result });
}

/** Why an attempt's answer was not usable (retried, then reported as `details.reason`). */
class Unusable extends Error {}

/**
 * Asks the OCSP responder for the certificate's status and checks the answer (see the module comment).
 * @param leaf the signer's certificate, DER
 * @param issuer its issuer's certificate, DER (from {@link import('./trust-list.ts').verifyChain})
 * @returns the checked answer; `revoked` and `unknown` are answers too (the caller refuses them)
 * @throws SigningError `efirma_ocsp_unavailable` (503, `details.reason`, `attempts`, `url`) when no attempt
 *   gives a usable answer: network error or timeout, HTTP error, oversized or malformed body, a non-successful
 *   responseStatus, a signature that does not verify or a signer the issuer did not authorize, no
 *   SingleResponse for the certificate, a wrong nonce, or times out of bounds.
 */
export async function checkOcsp(leaf: Buffer, issuer: Buffer, options: OcspOptions): Promise<OcspResult> {
  const unavailable = (reason: string) => new SigningError('efirma_ocsp_unavailable', 'The OCSP responder gave no usable answer: the certificate\'s revocation status is unknown', { reason, attempts: options.attempts, url: options.url });
  let leafCert: pkijs.Certificate;
  let issuerCert: pkijs.Certificate;
  try {
    leafCert = parseCertificate(leaf, 'the certificate');
    issuerCert = parseCertificate(issuer, 'the issuer certificate');
  } catch (error) {
    throw unavailable((error as Error).message);
  }
  const certId = certIdOf(leafCert, issuerCert);
  let lastError = 'no attempt';
  for (let attempt = 1; attempt <= Math.max(1, options.attempts); attempt++) {
    const nonce = randomBytes(32);
    const request = requestDer(certId, nonce);
    try {
      const body = await post(options.url, request, options.timeoutMs);
      return await checkAnswer(body, { leafCert, issuerCert, certId, nonce, url: options.url, now: new Date() });
    } catch (error) {
      lastError = error instanceof Unusable ? error.message : describeFetchError(error);
      if (!(error instanceof Unusable) && !(error instanceof TypeError) && !isAbort(error)) lastError = `unexpected: ${(error as Error)?.message ?? String(error)}`;
      if (attempt < options.attempts) await new Promise((r) => setTimeout(r, 100 * attempt));
    }
  }
  throw unavailable(lastError);
}

interface CertIdParts {
  /** The issuer's DN as the leaf names it, DER, and the issuer's public key bits (what CertID hashes). */
  issuerNameDer: Buffer;
  issuerKeyBits: Uint8Array;
  hashAlgorithm: string;
  issuerNameHash: Buffer;
  issuerKeyHash: Buffer;
  serialNumber: asn1js.Integer;
}

/** The CertID (RFC 6960 4.1.1) with SHA-1: hashes of the issuer's DN (as the leaf names it) and of its public key bits. */
function certIdOf(leaf: pkijs.Certificate, issuer: pkijs.Certificate): CertIdParts {
  const issuerNameDer = der(leaf.issuer);
  const issuerKeyBits = issuer.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView;
  return {
    issuerNameDer,
    issuerKeyBits,
    hashAlgorithm: OID.sha1,
    issuerNameHash: createHash('sha1').update(issuerNameDer).digest(),
    issuerKeyHash: createHash('sha1').update(issuerKeyBits).digest(),
    serialNumber: leaf.serialNumber,
  };
}

function requestDer(id: CertIdParts, nonce: Buffer): Buffer {
  const req = new pkijs.OCSPRequest();
  req.tbsRequest.requestList = [
    new pkijs.Request({
      reqCert: new pkijs.CertID({
        hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: id.hashAlgorithm, algorithmParams: new asn1js.Null() }),
        issuerNameHash: new asn1js.OctetString({ valueHex: toAB(id.issuerNameHash) }),
        issuerKeyHash: new asn1js.OctetString({ valueHex: toAB(id.issuerKeyHash) }),
        serialNumber: id.serialNumber,
      }),
    }),
  ];
  req.tbsRequest.requestExtensions = [
    new pkijs.Extension({ extnID: OID.nonce, critical: false, extnValue: new asn1js.OctetString({ valueHex: toAB(nonce) }).toBER(false) }),
  ];
  // encodeFlag: build the TBSRequest from the fields (pkijs otherwise re-emits a decoded original).
  return Buffer.from(req.toSchema(true).toBER(false));
}

/** POSTs the request and reads the body, bounded by time and size. */
async function post(url: string, body: Buffer, timeoutMs: number): Promise<Buffer> {
  const signal = AbortSignal.timeout(timeoutMs);
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/ocsp-request', accept: 'application/ocsp-response' },
    body: new Uint8Array(body),
    signal,
    redirect: 'error',
  });
  if (!res.ok) {
    await res.body?.cancel();
    throw new Unusable(`the responder answered HTTP ${res.status}`);
  }
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > MAX_OCSP_RESPONSE_BYTES) {
    await res.body?.cancel();
    throw new Unusable(`the answer is larger than ${MAX_OCSP_RESPONSE_BYTES} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_OCSP_RESPONSE_BYTES) {
      await reader.cancel();
      throw new Unusable(`the answer is larger than ${MAX_OCSP_RESPONSE_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function isAbort(error: unknown): boolean {
  const name = (error as Error)?.name;
  return name === 'TimeoutError' || name === 'AbortError';
}

/** fetch fails with a TypeError (cause: the socket error) or, at the time limit, a TimeoutError. */
function describeFetchError(error: unknown): string {
  const e = error as Error & { cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'the responder did not answer in time';
  return `the responder could not be reached (${e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(error)})`;
}

interface AnswerContext {
  leafCert: pkijs.Certificate;
  issuerCert: pkijs.Certificate;
  certId: CertIdParts;
  nonce: Buffer;
  url: string;
  now: Date;
}

/** Parses and checks an OCSPResponse; throws {@link Unusable} with the reason. */
async function checkAnswer(body: Buffer, c: AnswerContext): Promise<OcspResult> {
  const asn = asn1js.fromBER(toAB(body));
  if (asn.offset === -1 || asn.offset !== body.length) throw new Unusable('the answer is not one DER OCSPResponse');
  let response: pkijs.OCSPResponse;
  let basic: pkijs.BasicOCSPResponse;
  try {
    response = new pkijs.OCSPResponse({ schema: asn.result });
    const status = response.responseStatus.valueBlock.valueDec;
    if (status !== 0) throw new Unusable(`the responder refused the request (${RESPONSE_STATUS[status] ?? status})`);
    if (!response.responseBytes || response.responseBytes.responseType !== OID.basic) throw new Unusable('the answer is not a BasicOCSPResponse');
    basic = pkijs.BasicOCSPResponse.fromBER(toAB(response.responseBytes.response.valueBlock.valueHexView));
  } catch (error) {
    if (error instanceof Unusable) throw error;
    throw new Unusable(`the answer is malformed (${(error as Error).message})`);
  }
  const data = basic.tbsResponseData;
  await verifySigner(basic, c);

  // Nonce: checked when echoed (many responders, e.g. those answering from a cache, leave it out).
  const echoed = data.responseExtensions?.find((e) => e.extnID === OID.nonce);
  if (echoed) {
    const value = Buffer.from(echoed.extnValue.valueBlock.valueHexView);
    const inner = asn1js.fromBER(toAB(value));
    const got = inner.offset !== -1 && inner.result instanceof asn1js.OctetString ? Buffer.from(inner.result.valueBlock.valueHexView) : value;
    if (!got.equals(c.nonce)) throw new Unusable('the answer\'s nonce is not the request\'s (a replayed answer?)');
  }

  const single = data.responses.find((r) => matches(r.certID, c.certId));
  if (!single) throw new Unusable('the answer says nothing about this certificate');
  const now = c.now.getTime();
  const producedAt = data.producedAt;
  const thisUpdate = single.thisUpdate;
  if (thisUpdate.getTime() > now + CLOCK_SKEW_MS) throw new Unusable(`the answer's thisUpdate (${thisUpdate.toISOString()}) is in the future`);
  if (producedAt.getTime() > now + CLOCK_SKEW_MS) throw new Unusable(`the answer's producedAt (${producedAt.toISOString()}) is in the future`);
  if (single.nextUpdate) {
    if (single.nextUpdate.getTime() < now - CLOCK_SKEW_MS) throw new Unusable(`the answer is stale (nextUpdate ${single.nextUpdate.toISOString()})`);
    if (single.nextUpdate.getTime() < thisUpdate.getTime()) throw new Unusable('the answer\'s nextUpdate is before its thisUpdate');
  } else if (thisUpdate.getTime() < now - MAX_AGE_WITHOUT_NEXT_UPDATE_MS) {
    throw new Unusable(`the answer is stale (thisUpdate ${thisUpdate.toISOString()}, no nextUpdate)`);
  }

  const certStatus = single.certStatus as asn1js.BaseBlock;
  const tag = certStatus.idBlock.tagNumber;
  let status: OcspResult['status'];
  let revokedAt: Date | null = null;
  if (certStatus.idBlock.tagClass !== 3 || tag > 2) throw new Unusable('the answer\'s certStatus is malformed');
  if (tag === 0) status = 'good';
  else if (tag === 2) status = 'unknown';
  else {
    status = 'revoked';
    revokedAt = revocationTime(certStatus);
  }
  return {
    status,
    producedAt,
    thisUpdate,
    revokedAt,
    responderUrl: c.url,
    responseDer: body,
    responderCertificates: (basic.certs ?? []).map((x) => der(x)),
  };
}

/** revoked [1] IMPLICIT RevokedInfo { revocationTime GeneralizedTime, ... }. */
function revocationTime(block: asn1js.BaseBlock): Date | null {
  const inner = (block as asn1js.Constructed).valueBlock?.value?.[0];
  if (inner instanceof asn1js.GeneralizedTime) return inner.toDate();
  return null;
}

function matches(id: pkijs.CertID, want: CertIdParts): boolean {
  const alg = HASHES[id.hashAlgorithm.algorithmId];
  if (!alg) return false;
  if (!Buffer.from(id.serialNumber.valueBlock.valueHexView).equals(Buffer.from(want.serialNumber.valueBlock.valueHexView))) return false;
  // A responder may answer with another hash algorithm than asked: hash with that one.
  const h = (b: Uint8Array) => createHash(alg).update(b).digest();
  return Buffer.from(id.issuerNameHash.valueBlock.valueHexView).equals(h(want.issuerNameDer)) && Buffer.from(id.issuerKeyHash.valueBlock.valueHexView).equals(h(want.issuerKeyBits));
}

/**
 * The answer's signer is the issuer, or a delegated responder the issuer certified for OCSP signing
 * (RFC 6960 4.2.2.2); its signature over tbsResponseData must verify.
 */
async function verifySigner(basic: pkijs.BasicOCSPResponse, c: AnswerContext): Promise<void> {
  const crypto = pkijs.getCrypto(true);
  const responderId = basic.tbsResponseData.responderID;
  const keyHashOf = (cert: pkijs.Certificate) => createHash('sha1').update(cert.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView).digest();
  const named = (cert: pkijs.Certificate): boolean => {
    if (responderId instanceof pkijs.RelativeDistinguishedNames) return cert.subject.isEqual(responderId);
    if (responderId instanceof asn1js.OctetString) return keyHashOf(cert).equals(Buffer.from(responderId.valueBlock.valueHexView));
    return false;
  };
  const issuerKey = keyHashOf(c.issuerCert);
  const tbs = basic.tbsResponseData.tbsView.byteLength > 0 ? basic.tbsResponseData.tbsView : new Uint8Array(basic.tbsResponseData.toSchema(true).toBER(false));
  const verifies = async (cert: pkijs.Certificate): Promise<boolean> => {
    try {
      return await crypto.verifyWithPublicKey(toAB(tbs), basic.signature, cert.subjectPublicKeyInfo, basic.signatureAlgorithm);
    } catch {
      return false;
    }
  };
  // 1. The issuer signed the answer itself.
  if (named(c.issuerCert)) {
    if (await verifies(c.issuerCert)) return;
    throw new Unusable('the answer\'s signature (by the issuer) does not verify');
  }
  // 2. A delegated responder: its certificate travels in the answer.
  const candidates = (basic.certs ?? []).filter(named);
  if (candidates.length === 0) throw new Unusable('the answer is signed by a responder whose certificate it does not carry');
  let reason = 'the responder is not authorized by the certificate\'s issuer';
  for (const responder of candidates) {
    if (keyHashOf(responder).equals(issuerKey)) {
      // The issuer's key under another certificate: as good as the issuer.
      if (await verifies(responder)) return;
      continue;
    }
    if (!responder.issuer.isEqual(c.issuerCert.subject)) continue;
    let issuedByIssuer = false;
    try {
      issuedByIssuer = await responder.verify(c.issuerCert, crypto);
    } catch {
      issuedByIssuer = false;
    }
    if (!issuedByIssuer) continue;
    const eku = responder.extensions?.find((e) => e.extnID === OID.extKeyUsage)?.parsedValue as pkijs.ExtKeyUsage | undefined;
    if (!eku?.keyPurposes.includes(OID.ocspSigning)) {
      reason = 'the responder\'s certificate lacks id-kp-OCSPSigning';
      continue;
    }
    if (responder.notBefore.value.getTime() > c.now.getTime() + CLOCK_SKEW_MS || responder.notAfter.value.getTime() < c.now.getTime() - CLOCK_SKEW_MS) {
      reason = 'the responder\'s certificate is outside its validity';
      continue;
    }
    if (await verifies(responder)) return;
    reason = 'the answer\'s signature (by the delegated responder) does not verify';
  }
  throw new Unusable(reason);
}
