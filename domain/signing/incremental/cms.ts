/**
 * The CMS of a signature whose private key stays with the signer (the e.firma in the browser): the server
 * builds the signed attributes, the browser signs their DER, and the server assembles the SignedData around
 * the returned value (RFC 5652 5.3-5.4, ETSI EN 319 122-1 5.2 CAdES-B-B as PAdES requires).
 *
 * Unlike Sello's own seal (`pades.ts`, time in the dictionary's `/M` only) these carry a signing-time
 * attribute, as issue 29 asks: the claimed time is then under the signer's own signature. EN 319 142-1's
 * baseline profile wants the claimed time in `/M` rather than in signing-time (the reason `pades.ts` leaves
 * it out), so a validator applying that profile strictly may remark on it; `/M` carries the same time.
 */
import { createHash, createPublicKey, constants, verify as cryptoVerify } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { signingCertificateV2Attribute, toAB } from '../pades.ts';
import { SigningError } from '../errors.ts';

const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha256WithRSAEncryption: '1.2.840.113549.1.1.11',
} as const;

/** X.690 11.6: the elements of a DER SET OF in ascending order of their encodings. */
function compareDer(a: Buffer, b: Buffer): number {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x - y;
  }
  return 0;
}

/**
 * DER of the SignedAttributes SET to be signed (RFC 5652 5.4: the SET OF tag 0x31, not the [0] of the
 * SignerInfo): content-type id-data, message-digest `digest` (SHA-256 of the byte range), ESS
 * signing-certificate-v2 (RFC 5035; SHA-256 of `certificate`) and signing-time (UTCTime through 2049,
 * GeneralizedTime after, RFC 5652 11.3), sorted as DER requires.
 * @throws Error when `digest` is not 32 bytes or `certificate` is not a DER X.509 certificate.
 */
export function buildSignedAttributes(o: { digest: Buffer; certificate: Buffer; signingTime: Date }): Buffer {
  if (o.digest.length !== 32) throw new Error('the digest must be a SHA-256 (32 bytes)');
  const year = o.signingTime.getUTCFullYear();
  const time = year >= 1950 && year < 2050 ? new asn1js.UTCTime({ valueDate: o.signingTime }) : new asn1js.GeneralizedTime({ valueDate: o.signingTime });
  const attributes = [
    new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: OID.data })] }),
    new pkijs.Attribute({ type: OID.messageDigest, values: [new asn1js.OctetString({ valueHex: toAB(o.digest) })] }),
    signingCertificateV2Attribute(o.certificate),
    new pkijs.Attribute({ type: OID.signingTime, values: [time] }),
  ].map((a) => Buffer.from(a.toSchema().toBER(false)));
  attributes.sort(compareDer);
  return Buffer.from(new asn1js.Set({ value: attributes.map((a) => asn1js.fromBER(toAB(a)).result) }).toBER(false));
}

/** Parses a DER SignedAttributes SET into pkijs form (tagged `[0]` as in a SignerInfo). */
function parseSignedAttributes(der: Buffer): pkijs.SignedAndUnsignedAttributes {
  const tagged = Buffer.from(der);
  if (tagged[0] !== 0x31) throw new Error('not a SET');
  tagged[0] = 0xa0;
  const asn1 = asn1js.fromBER(toAB(tagged));
  if (asn1.offset === -1 || asn1.offset !== tagged.length) throw new Error('not one DER element');
  return new pkijs.SignedAndUnsignedAttributes({ type: 0, schema: asn1.result });
}

/**
 * Verifies `signature` (RSASSA-PKCS1-v1_5 SHA-256 over the DER `signedAttributes`) with the certificate's
 * key and returns the CMS ContentInfo DER: SignedData v1, detached id-data, digest SHA-256, one SignerInfo
 * (issuerAndSerialNumber, sha256WithRSAEncryption) carrying exactly the given attribute bytes, certificates
 * `[certificate, ...chain]`.
 * @throws SigningError `efirma_signature_invalid` (422) when the value does not verify, the certificate is
 *   unreadable or its key is not RSA, or the attributes are unreadable or name another certificate
 *   (signing-certificate-v2 hash); `details.reason` says which.
 */
export function assembleCms(o: { signedAttributes: Buffer; signature: Buffer; certificate: Buffer; chain: Buffer[] }): Buffer {
  const invalid = (reason: string): never => {
    throw new SigningError('efirma_signature_invalid', 'The e.firma signature does not verify with the certificate; nothing was signed', { reason });
  };
  let cert: pkijs.Certificate;
  let key: ReturnType<typeof createPublicKey>;
  try {
    cert = pkijs.Certificate.fromBER(toAB(o.certificate));
    key = createPublicKey({ key: Buffer.from(cert.subjectPublicKeyInfo.toSchema().toBER(false)), format: 'der', type: 'spki' });
  } catch {
    return invalid('the certificate is unreadable');
  }
  if (key.asymmetricKeyType !== 'rsa') invalid('the certificate key is not RSA');
  let attrs: pkijs.SignedAndUnsignedAttributes;
  try {
    attrs = parseSignedAttributes(o.signedAttributes);
  } catch {
    return invalid('the signed attributes are not a DER SET');
  }
  const essValue = attrs.attributes.find((a) => a.type === OID.signingCertificateV2)?.values[0] as asn1js.Sequence | undefined;
  const certHash = (((essValue?.valueBlock.value[0] as asn1js.Sequence | undefined)?.valueBlock.value[0] as asn1js.Sequence | undefined)?.valueBlock.value[0] as asn1js.OctetString | undefined)?.valueBlock.valueHexView;
  if (!certHash || !Buffer.from(certHash).equals(createHash('sha256').update(o.certificate).digest())) invalid('the signed attributes name another certificate');
  if (!attrs.attributes.some((a) => a.type === OID.messageDigest)) invalid('no message-digest attribute');
  if (!cryptoVerify('sha256', o.signedAttributes, { key, padding: constants.RSA_PKCS1_PADDING }, o.signature)) invalid('the signature value does not verify with the certificate key');

  const sha256 = () => new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256, algorithmParams: new asn1js.Null() });
  const signer = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({ issuer: cert.issuer, serialNumber: cert.serialNumber }),
    digestAlgorithm: sha256(),
    signedAttrs: attrs,
    signatureAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256WithRSAEncryption, algorithmParams: new asn1js.Null() }),
    signature: new asn1js.OctetString({ valueHex: toAB(o.signature) }),
  });
  const signed = new pkijs.SignedData({
    version: 1,
    digestAlgorithms: [sha256()],
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
    signerInfos: [signer],
    certificates: [cert, ...o.chain.map((c) => pkijs.Certificate.fromBER(toAB(c)))],
  });
  const der = Buffer.from(new pkijs.ContentInfo({ contentType: OID.signedData, content: signed.toSchema(true) }).toSchema().toBER(false));
  // The SignerInfo must carry the very bytes that were signed: re-read them from the result.
  const back = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(toAB(der)).content }).signerInfos[0]!.signedAttrs!;
  if (!Buffer.from(back.encodedValue).equals(o.signedAttributes)) throw new Error('the assembled CMS does not carry the signed attribute bytes unchanged');
  return der;
}
