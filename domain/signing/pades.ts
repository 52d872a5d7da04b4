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
import { createHash, randomBytes, webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { PDFDocument } from 'pdf-lib';
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

const toAB = (b: Uint8Array): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

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
  const certHash = createHash('sha256').update(key.certificate).digest();
  const essCertIdV2 = new asn1js.Sequence({
    value: [
      // hashAlgorithm omitted: DEFAULT sha256 (RFC 5035)
      new asn1js.OctetString({ valueHex: toAB(certHash) }),
      new asn1js.Sequence({
        value: [new pkijs.GeneralNames({ names: [new pkijs.GeneralName({ type: 4, value: cert.issuer })] }).toSchema(), cert.serialNumber],
      }),
    ],
  });
  const signingCertificateV2 = new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] });
  const signer = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({ issuer: cert.issuer, serialNumber: cert.serialNumber }),
    signedAttrs: new pkijs.SignedAndUnsignedAttributes({
      type: 0,
      attributes: [
        new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: OID.data })] }),
        new pkijs.Attribute({ type: OID.messageDigest, values: [new asn1js.OctetString({ valueHex: toAB(digest) })] }),
        new pkijs.Attribute({ type: OID.signingCertificateV2, values: [signingCertificateV2] }),
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
  const bytes = Buffer.from(await pdf.save({ useObjectStreams: false }));
  return new SignPdf().sign(bytes, new PkijsSigner(options.key, options.tsa));
}

export interface FoundSignature {
  byteRange: [number, number, number, number];
  /** CMS DER (trailing zero padding removed). */
  cms: Buffer;
  /** The `/Reason` text of the dictionary, when readable. */
  reason: string | null;
}

/** Every signature of a PDF found by its `/ByteRange` and `/Contents` (a byte-level scan; in file order). */
export function findSignatures(pdf: Buffer): FoundSignature[] {
  const text = pdf.toString('latin1');
  const out: FoundSignature[] = [];
  const re = /\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const br = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])] as [number, number, number, number];
    const hexStart = br[0] + br[1];
    const hexEnd = br[2];
    if (!(hexEnd > hexStart && hexEnd <= pdf.length)) continue;
    const hex = text.slice(hexStart, hexEnd).replace(/[<>\s]/g, '');
    if (!/^[0-9a-fA-F]*$/.test(hex)) continue;
    const cms = Buffer.from(hex.replace(/(00)+$/, ''), 'hex');
    const around = text.slice(Math.max(0, m.index - 4000), Math.min(text.length, m.index + 4000));
    const reason = /\/Reason\s*\(((?:\\.|[^\\)])*)\)/.exec(around)?.[1] ?? null;
    out.push({ byteRange: br, cms, reason });
  }
  return out;
}

export interface SignatureCheck {
  /** The CMS signature is valid over the byte range and the message digest matches. */
  valid: boolean;
  /** The byte range covers the whole file (`Total document signed`). */
  coversWholeFile: boolean;
  /** SHA-256 (hex) of the signer certificate. */
  signerCertificateSha256: string | null;
  /** The signed revision: the file's first `byteRange[2] + byteRange[3]` bytes. */
  signedRevision: Buffer;
  timestamp: Date | null;
  error: string | null;
}

/** Verifies one signature cryptographically (no trust decision: that is the caller's comparison of certificates). */
export async function checkSignature(pdf: Buffer, sig: FoundSignature): Promise<SignatureCheck> {
  const [a, b, c, d] = sig.byteRange;
  const signedRevision = pdf.subarray(0, c + d);
  const content = Buffer.concat([pdf.subarray(a, a + b), pdf.subarray(c, c + d)]);
  const coversWholeFile = a === 0 && c + d === pdf.length;
  let sd: pkijs.SignedData | null = null;
  try {
    const ci = pkijs.ContentInfo.fromBER(toAB(sig.cms));
    sd = new pkijs.SignedData({ schema: ci.content });
    const res = await sd.verify({ signer: 0, data: toAB(content), checkChain: false, extendedMode: true });
    const signerCert = res.signerCertificate ? Buffer.from(res.signerCertificate.toSchema().toBER(false)) : null;
    let timestamp: Date | null = null;
    const tsAttr = sd.signerInfos[0]?.unsignedAttrs?.attributes.find((x) => x.type === OID.signatureTimeStampToken);
    if (tsAttr) timestamp = tstInfoOf(new pkijs.ContentInfo({ schema: tsAttr.values[0] })).genTime;
    return {
      valid: res.signatureVerified === true,
      coversWholeFile,
      signerCertificateSha256: signerCert ? createHash('sha256').update(signerCert).digest('hex') : null,
      signedRevision,
      timestamp,
      error: null,
    };
  } catch (error) {
    // A failed verification (pkijs throws on a digest mismatch) still names who signed: the certificate the
    // signer info points at (RFC 5652 5.3, `sid`), so a tampered copy of our own seal is still reported as ours.
    const cert = sd ? signerCertificateOf(sd, (error as { signerCertificate?: pkijs.Certificate }).signerCertificate) : null;
    return {
      valid: false,
      coversWholeFile,
      signerCertificateSha256: cert ? createHash('sha256').update(Buffer.from(cert.toSchema().toBER(false))).digest('hex') : null,
      signedRevision,
      timestamp: null,
      error: (error as Error).message ?? 'unreadable signature',
    };
  }
}

/**
 * The certificate of the first signer of `sd`: `fromError` when pkijs reported it, else the one of
 * `sd.certificates` whose issuer and serial number, or subject key identifier, match the signer info's `sid`
 * (RFC 5652 5.3). Null when none matches or the structures are unreadable.
 */
function signerCertificateOf(sd: pkijs.SignedData, fromError?: pkijs.Certificate): pkijs.Certificate | null {
  if (fromError) return fromError;
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
