/**
 * PAdES signatures (ETSI EN 319 142-1) of finalized documents: baseline B-B, and B-T when a timestamp
 * authority is configured.
 *
 * - The signature field and dictionary are added with `@signpdf/placeholder-pdf-lib` (SubFilter
 *   `ETSI.CAdES.detached`, the claimed signing time in `/M`), the byte range is filled by `@signpdf/signpdf`.
 * - The CMS (RFC 5652 SignedData, detached, SHA-256 / RSA PKCS#1 v1.5) is built with `pkijs`: signed
 *   attributes content-type, message-digest and ESS signing-certificate-v2 (RFC 5035; required by
 *   EN 319 122-1 5.2.2), and no signing-time attribute (EN 319 142-1 5.4: the time is the dictionary's `/M`).
 * - B-T: an RFC 3161 signature timestamp over the signature value (`id-aa-signatureTimeStampToken`,
 *   unsigned attribute). A TSA that does not answer usably fails the operation (`timestamp_unavailable`):
 *   the local clock is never used in its place (docuseal#261).
 */
import { createHash, createPublicKey, randomBytes, verify as cryptoVerify, webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFString } from 'pdf-lib';
import { pdflibAddPlaceholder } from '@signpdf/placeholder-pdf-lib';
import { SignPdf } from '@signpdf/signpdf';
import { Signer, SUBFILTER_ETSI_CADES_DETACHED } from '@signpdf/utils';
import { SigningError } from './errors.ts';

pkijs.setEngine('node-webcrypto', new pkijs.CryptoEngine({ name: 'node-webcrypto', crypto: webcrypto as unknown as Crypto }));

const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  signatureTimeStampToken: '1.2.840.113549.1.9.16.2.14',
  sha256: '2.16.840.1.101.3.4.2.1',
} as const;

/** What signs: the service's identity (`infra/secrets/signing-identity.ts`). */
export interface PadesKey {
  certificate: Buffer;
  chain: Buffer[];
  privateKeyPkcs8: Buffer;
  subjectName: string;
}

export interface TimestampOptions {
  /** RFC 3161 endpoint (HTTP POST `application/timestamp-query`). */
  url: string;
  /** Per-attempt limit in ms. */
  timeoutMs: number;
  /** Attempts before `timestamp_unavailable`. */
  attempts: number;
}

/** The bytes of `b` as a fresh ArrayBuffer (what pkijs/asn1js parsers take). */
export const toAB = (b: Uint8Array): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

/**
 * Asks a TSA for a timestamp token over `digest` (SHA-256 of the signature value).
 * @returns the TimeStampToken (a CMS ContentInfo) and its `genTime`.
 * @throws SigningError `timestamp_unavailable` after `attempts` failures (network, HTTP status, rejected
 *   request, or a token whose imprint or nonce does not match the request).
 */
export async function requestTimestamp(digest: Uint8Array, options: TimestampOptions): Promise<{ token: pkijs.ContentInfo; genTime: Date }> {
  let lastError = 'no attempt';
  for (let attempt = 1; attempt <= options.attempts; attempt++) {
    const nonce = randomBytes(8);
    nonce[0] = nonce[0]! & 0x7f;
    const req = new pkijs.TimeStampReq({
      version: 1,
      messageImprint: new pkijs.MessageImprint({
        hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 }),
        hashedMessage: new asn1js.OctetString({ valueHex: toAB(digest) }),
      }),
      nonce: new asn1js.Integer({ valueHex: toAB(nonce) }),
      certReq: true,
    });
    try {
      const res = await fetch(options.url, {
        method: 'POST',
        headers: { 'content-type': 'application/timestamp-query' },
        body: Buffer.from(req.toSchema().toBER(false)),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      if (!res.ok) throw new Error(`TSA answered HTTP ${res.status}`);
      const body = new Uint8Array(await res.arrayBuffer());
      const resp = pkijs.TimeStampResp.fromBER(toAB(body));
      if (resp.status.status !== 0 && resp.status.status !== 1) throw new Error(`TSA rejected the request (PKIStatus ${resp.status.status})`);
      if (!resp.timeStampToken) throw new Error('TSA answer has no token');
      const info = tstInfoOf(resp.timeStampToken);
      const imprint = new Uint8Array(info.messageImprint.hashedMessage.valueBlock.valueHexView);
      if (Buffer.compare(Buffer.from(imprint), Buffer.from(digest)) !== 0) throw new Error('TSA token imprint does not match the request');
      if (info.nonce && Buffer.compare(Buffer.from(info.nonce.valueBlock.valueHexView), nonce) !== 0) throw new Error('TSA token nonce does not match the request');
      return { token: resp.timeStampToken, genTime: info.genTime };
    } catch (error) {
      lastError = (error as Error).message;
      if (attempt < options.attempts) await new Promise((r) => setTimeout(r, 200 * attempt));
    }
  }
  throw new SigningError('timestamp_unavailable', 'The timestamp authority did not answer; finalize again later', { reason: lastError, attempts: options.attempts });
}

/** The TSTInfo inside a timestamp token (RFC 3161 2.4.2). */
export function tstInfoOf(token: pkijs.ContentInfo): pkijs.TSTInfo {
  const sd = new pkijs.SignedData({ schema: token.content });
  const eContent = sd.encapContentInfo.eContent;
  if (!eContent) throw new Error('timestamp token without content');
  return pkijs.TSTInfo.fromBER(eContent.getValue());
}

async function importKey(pkcs8: Buffer): Promise<CryptoKey> {
  return webcrypto.subtle.importKey('pkcs8', toAB(pkcs8), { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign']) as Promise<CryptoKey>;
}

/**
 * Builds the detached CMS SignedData over `content` (see the module comment).
 * @returns DER of the ContentInfo.
 */
export async function buildCms(content: Uint8Array, key: PadesKey, tsa?: TimestampOptions): Promise<Buffer> {
  const cert = pkijs.Certificate.fromBER(toAB(key.certificate));
  const chain = key.chain.map((c) => pkijs.Certificate.fromBER(toAB(c)));
  const digest = createHash('sha256').update(content).digest();
  const signer = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({ issuer: cert.issuer, serialNumber: cert.serialNumber }),
    signedAttrs: new pkijs.SignedAndUnsignedAttributes({
      type: 0,
      attributes: [
        new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: OID.data })] }),
        new pkijs.Attribute({ type: OID.messageDigest, values: [new asn1js.OctetString({ valueHex: toAB(digest) })] }),
        signingCertificateV2Attribute(key.certificate),
      ],
    }),
  });
  const signed = new pkijs.SignedData({
    version: 1,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
    signerInfos: [signer],
    certificates: [cert, ...chain],
  });
  await signed.sign(await importKey(key.privateKeyPkcs8), 0, 'SHA-256');
  if (tsa) {
    const sigValue = new Uint8Array(signer.signature.valueBlock.valueHexView);
    const { token } = await requestTimestamp(createHash('sha256').update(sigValue).digest(), tsa);
    signer.unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({
      type: 1,
      attributes: [new pkijs.Attribute({ type: OID.signatureTimeStampToken, values: [token.toSchema()] })],
    });
  }
  const ci = new pkijs.ContentInfo({ contentType: OID.signedData, content: signed.toSchema(true) });
  return Buffer.from(ci.toSchema().toBER(false));
}

/**
 * The ESS signing-certificate-v2 signed attribute (RFC 5035 5.4; required by ETSI EN 319 122-1 5.2.2) naming
 * `certificateDer`: one ESSCertIDv2 with the SHA-256 of the certificate (hashAlgorithm omitted: DEFAULT
 * sha256) and its issuer and serial number.
 */
export function signingCertificateV2Attribute(certificateDer: Buffer): pkijs.Attribute {
  const cert = pkijs.Certificate.fromBER(toAB(certificateDer));
  const certHash = createHash('sha256').update(certificateDer).digest();
  const essCertIdV2 = new asn1js.Sequence({
    value: [
      new asn1js.OctetString({ valueHex: toAB(certHash) }),
      new asn1js.Sequence({
        value: [new pkijs.GeneralNames({ names: [new pkijs.GeneralName({ type: 4, value: cert.issuer })] }).toSchema(), cert.serialNumber],
      }),
    ],
  });
  return new pkijs.Attribute({ type: OID.signingCertificateV2, values: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] })] });
}

class PkijsSigner extends Signer {
  constructor(
    private readonly key: PadesKey,
    private readonly tsa?: TimestampOptions,
  ) {
    super();
  }
  override async sign(pdfBuffer: Buffer): Promise<Buffer> {
    return buildCms(pdfBuffer, this.key, this.tsa);
  }
}

export interface SignPdfOptions {
  key: PadesKey;
  /** `/Reason` of the signature dictionary (names the document: how `verify` finds it). */
  reason: string;
  location: string;
  contactInfo: string;
  /** Claimed signing time (`/M`). */
  signingTime: Date;
  tsa?: TimestampOptions;
}

/**
 * Adds an invisible signature field to `pdf` and signs the whole file (PAdES B-B, or B-T with `tsa`).
 * The placeholder reserves 32 KiB of CMS (certificates + timestamp token fit with room to spare).
 */
export async function signPdf(pdf: PDFDocument, options: SignPdfOptions): Promise<Buffer> {
  pdflibAddPlaceholder({
    pdfDoc: pdf,
    reason: options.reason,
    contactInfo: options.contactInfo,
    name: options.key.subjectName,
    location: options.location,
    signingTime: options.signingTime,
    signatureLength: 32768,
    subFilter: SUBFILTER_ETSI_CADES_DETACHED,
  });
  uniqueSealFieldName(pdf);
  const bytes = Buffer.from(await pdf.save({ useObjectStreams: false }));
  return new SignPdf().sign(bytes, new PkijsSigner(options.key, options.tsa));
}

/**
 * Gives the seal's field (the last of the AcroForm's `/Fields`, just added by the placeholder, which always
 * names it `Signature1`) a fully qualified name no other field of the document has: `Signature1` unless it
 * is taken, else `Signature2`, ... (ISO 32000-1 12.7.3.2: field names must be unique; two fields named
 * `Signature1` were seen on a re-sealed signed PDF, issue 31).
 */
function uniqueSealFieldName(pdf: PDFDocument): void {
  const fields = pdf.catalog.lookupMaybe(PDFName.of('AcroForm'), PDFDict)?.lookupMaybe(PDFName.of('Fields'), PDFArray);
  if (!fields || fields.size() === 0) return;
  const seal = fields.lookup(fields.size() - 1, PDFDict);
  const taken = fieldNamesOf(fields, fields.size() - 1);
  let n = 1;
  while (taken.has(`Signature${n}`)) n++;
  seal.set(PDFName.of('T'), PDFString.of(`Signature${n}`));
}

/**
 * The fully qualified names (ISO 32000-1 12.7.3.2) of the fields of an AcroForm `/Fields` array and their
 * kids (at most 32 levels deep), looking at the first `count` entries of the array (default: all).
 */
export function fieldNamesOf(fields: PDFArray, count = fields.size()): Set<string> {
  const taken = new Set<string>();
  const collect = (dict: PDFDict, prefix: string, depth: number) => {
    const t = dict.lookupMaybe(PDFName.of('T'), PDFString, PDFHexString)?.decodeText();
    const name = t === undefined ? prefix : prefix ? `${prefix}.${t}` : t;
    const kids = dict.lookupMaybe(PDFName.of('Kids'), PDFArray);
    if (name) taken.add(name);
    if (kids && depth < 32) for (let i = 0; i < kids.size(); i++) {
      const kid = kids.lookup(i);
      if (kid instanceof PDFDict) collect(kid, name, depth + 1);
    }
  };
  for (let i = 0; i < count; i++) {
    const f = fields.lookup(i);
    if (f instanceof PDFDict) collect(f, '', 0);
  }
  return taken;
}

export interface FoundSignature {
  byteRange: [number, number, number, number];
  /** CMS DER (trailing zero padding removed). */
  cms: Buffer;
  /** The `/Reason` text of the dictionary, when readable. */
  reason: string | null;
}

/**
 * Most signatures `POST /v1/signing/verify` examines in one file (the first ones in file order). A file we
 * sealed has one; a PDF signed by hand in turn by several parties rarely has more than a handful. Each
 * examined signature costs a pass of SHA-256 over the bytes it covers, so an unbounded count let a 10 MB
 * file with 300 `/ByteRange` entries cost 15 s and 1.5 GB (issue 31, item 2).
 */
export const MAX_SIGNATURES_EXAMINED = 16;
/**
 * Most bytes hashed for one verification, as a multiple of the file's size (each distinct byte range is
 * hashed once; identical ranges share their digest). Signatures past the budget are not examined.
 */
export const MAX_HASHED_FILE_MULTIPLE = 8;
/** Longest `/Contents` hex string read as a CMS blob, in characters (ours reserves 64 Ki). */
export const MAX_CMS_HEX_CHARS = 512 * 1024;

/** The signatures of a PDF as {@link scanSignatures} sees them. */
export interface SignatureScan {
  /** Every `/ByteRange` entry of the file (examined or not). */
  total: number;
  /** The well-formed ones among the first {@link MAX_SIGNATURES_EXAMINED} entries, in file order. */
  signatures: FoundSignature[];
}

/**
 * Finds the signatures of a PDF by their `/ByteRange` and `/Contents` (a byte-level scan, in file order).
 * Only the first `limit` entries are read; the others are counted. An entry is skipped when its ranges are
 * not increasing and inside the file, or its `/Contents` window is longer than {@link MAX_CMS_HEX_CHARS} or
 * not hex. Nothing of the covered bytes is copied.
 */
export function scanSignatures(pdf: Buffer, limit = MAX_SIGNATURES_EXAMINED): SignatureScan {
  const text = pdf.toString('latin1');
  const out: FoundSignature[] = [];
  const re = /\/ByteRange\s*\[\s*(\d{1,12})\s+(\d{1,12})\s+(\d{1,12})\s+(\d{1,12})\s*\]/g;
  let total = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    total += 1;
    if (total > limit) continue;
    const br = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])] as [number, number, number, number];
    const hexStart = br[0] + br[1];
    const hexEnd = br[2];
    if (!(hexEnd > hexStart && hexEnd + br[3] <= pdf.length && hexEnd - hexStart <= MAX_CMS_HEX_CHARS)) continue;
    const hex = text.slice(hexStart, hexEnd).replace(/[<>\s]/g, '');
    if (!/^[0-9a-fA-F]*$/.test(hex) || hex.length % 2 !== 0) continue;
    const cms = derPrefix(Buffer.from(hex, 'hex'));
    // The dictionary's other keys sit before `/ByteRange` or after the `/Contents` window (ours: 64 Ki hex
    // characters between them), so both neighbourhoods are searched.
    const around = `${text.slice(Math.max(0, m.index - 4000), m.index + m[0].length)} ${text.slice(hexEnd, Math.min(text.length, hexEnd + 4000))}`;
    const reason = /\/Reason\s*\(((?:\\.|[^\\)])*)\)/.exec(around)?.[1] ?? null;
    out.push({ byteRange: br, cms, reason });
  }
  return { total, signatures: out };
}

/**
 * The DER element at the start of `padded` (a `/Contents` value: the CMS followed by zero padding), cut at
 * the length its header gives (X.690 8.1.3), so a CMS whose last byte is 0x00 keeps it. When the header is
 * not a definite length that fits, the trailing zero bytes are dropped instead.
 */
export function derPrefix(padded: Buffer): Buffer {
  const first = padded[1];
  if (padded.length >= 2 && padded[0] !== 0 && first !== undefined) {
    let len = -1;
    let header = 2;
    if (first < 0x80) len = first;
    else if (first > 0x80 && first <= 0x84 && padded.length >= 2 + (first & 0x7f)) {
      header += first & 0x7f;
      len = 0;
      for (let i = 2; i < header; i++) len = len * 256 + padded[i]!;
    }
    if (len >= 0 && header + len <= padded.length) return padded.subarray(0, header + len);
  }
  let end = padded.length;
  while (end > 0 && padded[end - 1] === 0) end--;
  return padded.subarray(0, end);
}

/** The examined signatures of a PDF (see {@link scanSignatures}). */
export function findSignatures(pdf: Buffer): FoundSignature[] {
  return scanSignatures(pdf).signatures;
}

export interface SignatureCheck {
  /**
   * The CMS signature verifies: the digest of the bytes its byte range covers equals its signed
   * `message-digest` attribute, and the signature over the signed attributes verifies with the public key of
   * the certificate its signer info names.
   */
  valid: boolean;
  /** The byte range covers the whole file (`Total document signed`). */
  coversWholeFile: boolean;
  /** SHA-256 (hex) of the certificate the signer info names (whether or not the signature verifies). */
  signerCertificateSha256: string | null;
  timestamp: Date | null;
  error: string | null;
}

/** Digest algorithms of signer infos we verify (OID -> node:crypto name). */
const DIGESTS: Record<string, string> = {
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
  '1.3.14.3.2.26': 'sha1',
};

/** Signature algorithms we verify: RSA PKCS#1 v1.5 (with or without the hash in the OID) and ECDSA. */
const SIGNATURE_ALGORITHMS = new Set([
  '1.2.840.113549.1.1.1',
  '1.2.840.113549.1.1.5',
  '1.2.840.113549.1.1.11',
  '1.2.840.113549.1.1.12',
  '1.2.840.113549.1.1.13',
  '1.2.840.10045.4.3.2',
  '1.2.840.10045.4.3.3',
  '1.2.840.10045.4.3.4',
]);

/**
 * The node:crypto name of the digest algorithm of the first signer of a CMS blob, or null when the blob is
 * unreadable or the algorithm is not one we verify (the signature is then reported invalid without hashing).
 */
export function digestAlgorithmOf(cms: Buffer): string | null {
  try {
    const ci = pkijs.ContentInfo.fromBER(toAB(cms));
    if (ci.contentType !== OID.signedData) return null;
    const si = new pkijs.SignedData({ schema: ci.content }).signerInfos[0];
    return (si && DIGESTS[si.digestAlgorithm.algorithmId]) ?? null;
  } catch {
    return null;
  }
}

/** The key of a byte range's digest in the map {@link checkSignature} reads. */
export function byteRangeDigestKey(algorithm: string, byteRange: readonly [number, number, number, number]): string {
  return `${algorithm}:${byteRange.join(':')}`;
}

/**
 * Hashes the bytes a byte range covers, straight from `pdf` (two views, no copy).
 * @param algorithm a node:crypto digest name
 */
export function digestByteRange(pdf: Buffer, byteRange: readonly [number, number, number, number], algorithm = 'sha256'): Buffer {
  const [a, b, c, d] = byteRange;
  return createHash(algorithm).update(pdf.subarray(a, a + b)).update(pdf.subarray(c, c + d)).digest();
}

/**
 * Verifies one signature cryptographically (no trust decision: that is the caller's comparison of
 * certificates). The covered bytes are hashed in place ({@link digestByteRange}) unless `digests` already
 * holds their digest ({@link byteRangeDigestKey}: the service computes them on a PDF thread); it also caches
 * them across the signatures of one file.
 */
export async function checkSignature(pdf: Buffer, sig: FoundSignature, digests: Map<string, Buffer> = new Map()): Promise<SignatureCheck> {
  const [a, , c, d] = sig.byteRange;
  const coversWholeFile = a === 0 && c + d === pdf.length;
  let sd: pkijs.SignedData | null = null;
  let cert: pkijs.Certificate | null = null;
  let timestamp: Date | null = null;
  const certSha = () => (cert ? createHash('sha256').update(Buffer.from(cert.toSchema().toBER(false))).digest('hex') : null);
  try {
    const ci = pkijs.ContentInfo.fromBER(toAB(sig.cms));
    if (ci.contentType !== OID.signedData) throw new Error('not a CMS SignedData');
    sd = new pkijs.SignedData({ schema: ci.content });
    cert = signerCertificateOf(sd);
    const si = sd.signerInfos[0];
    if (!si) throw new Error('no signer info');
    if (!cert) throw new Error('the signer certificate is not in the signature');
    const tsAttr = si.unsignedAttrs?.attributes.find((x) => x.type === OID.signatureTimeStampToken);
    if (tsAttr) timestamp = tstInfoOf(new pkijs.ContentInfo({ schema: tsAttr.values[0] })).genTime;
    if (sd.encapContentInfo.eContent) throw new Error('not a detached signature');
    const alg = DIGESTS[si.digestAlgorithm.algorithmId];
    if (!alg) throw new Error(`unsupported digest algorithm ${si.digestAlgorithm.algorithmId}`);
    if (!SIGNATURE_ALGORITHMS.has(si.signatureAlgorithm.algorithmId)) throw new Error(`unsupported signature algorithm ${si.signatureAlgorithm.algorithmId}`);
    const attrs = si.signedAttrs;
    if (!attrs) throw new Error('no signed attributes (PAdES requires them)');
    if (!attrs.attributes.some((x) => x.type === OID.contentType)) throw new Error('no content-type signed attribute');
    const md = attrs.attributes.find((x) => x.type === OID.messageDigest)?.values[0] as asn1js.OctetString | undefined;
    if (!md) throw new Error('no message-digest signed attribute');
    const key = byteRangeDigestKey(alg, sig.byteRange);
    let digest = digests.get(key);
    if (!digest) digests.set(key, (digest = digestByteRange(pdf, sig.byteRange, alg)));
    if (!digest.equals(Buffer.from(md.valueBlock.valueHexView))) throw new Error('message digest does not match the signed bytes');
    const publicKey = createPublicKey({ key: Buffer.from(cert.subjectPublicKeyInfo.toSchema().toBER(false)), format: 'der', type: 'spki' });
    const ok = cryptoVerify(alg, Buffer.from(attrs.encodedValue), publicKey, Buffer.from(si.signature.valueBlock.valueHexView));
    if (!ok) throw new Error('signature value does not verify');
    return { valid: true, coversWholeFile, signerCertificateSha256: certSha(), timestamp, error: null };
  } catch (error) {
    // A failed verification still names the certificate the signer info points at (RFC 5652 5.3, `sid`):
    // the caller says that an invalid signature carries our certificate, never that we made it.
    return { valid: false, coversWholeFile, signerCertificateSha256: certSha(), timestamp: null, error: (error as Error).message ?? 'unreadable signature' };
  }
}

/**
 * The certificate of the first signer of `sd`: the one of `sd.certificates` whose issuer and serial number, or subject key identifier, match the signer info's `sid`
 * (RFC 5652 5.3). Null when none matches or the structures are unreadable.
 */
export function signerCertificateOf(sd: pkijs.SignedData): pkijs.Certificate | null {
  try {
    const sid = sd.signerInfos[0]?.sid as pkijs.IssuerAndSerialNumber | asn1js.OctetString | undefined;
    if (!sid) return null;
    for (const c of sd.certificates ?? []) {
      if (!(c instanceof pkijs.Certificate)) continue;
      if (sid instanceof pkijs.IssuerAndSerialNumber) {
        if (c.serialNumber.isEqual(sid.serialNumber) && c.issuer.isEqual(sid.issuer)) return c;
      } else {
        const ski = c.extensions?.find((x) => x.extnID === '2.5.29.14')?.parsedValue as asn1js.OctetString | undefined;
        if (ski && Buffer.from(ski.valueBlock.valueHexView).equals(Buffer.from(sid.valueBlock.valueHexView))) return c;
      }
    }
  } catch {
    // unreadable: no signer named
  }
  return null;
}
