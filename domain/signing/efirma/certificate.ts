/**
 * Reading a SAT e.firma (FIEL) certificate and deciding whether it may sign (issue 29). Pure: parsing with
 * pkijs/asn1js, no I/O; the chain and the revocation status are checked in `infra/signing/efirma/`.
 *
 * The SAT writes the holder in the subject (its "Perfil de certificados de e.firma"; seen in every FIEL it
 * issues):
 * - `CN` (2.5.4.3) and `name` (2.5.4.41): the holder's name; `O` (2.5.4.10) too;
 * - `x500UniqueIdentifier` (2.5.4.45): the RFC; for a company "AAA010101AAA / HEGT7610034S2" (company's RFC /
 *   legal representative's RFC);
 * - `serialNumber` (2.5.4.5): the CURP; for a company " / HEGT761003MDFRNN09" (no CURP for the company / the
 *   representative's CURP);
 * - `emailAddress`.
 * A CSD (certificado de sello digital, for invoicing) has the same shape plus an `OU` (the branch): it is not
 * an advanced electronic signature and is refused (`efirma_not_fiel`).
 *
 * Attribute values come as PrintableString, UTF8String, BMPString, T61/IA5String or, following X.520's own
 * definition of x500UniqueIdentifier, a BIT STRING of text: all are read as text.
 */
import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { SigningError } from '../errors.ts';

/** A parsed e.firma certificate: what the signing flow shows, records and checks. */
export interface EfirmaCertificate {
  /** The certificate as given (DER). */
  der: Buffer;
  /** SHA-256 of the DER, lower-case hex. */
  sha256: string;
  /** The serial number, lower-case hex of its DER content bytes (the SAT's are 20 ASCII digits as bytes: "3030…"). */
  serialNumberHex: string;
  /** Subject CN: the SAT writes the holder's name there (the company's for a company FIEL). */
  subjectCommonName: string;
  /** The `name` attribute (2.5.4.41) when present, else the CN. */
  holderName: string;
  /** Issuer CN, e.g. "AC DEL SERVICIO DE ADMINISTRACION TRIBUTARIA". */
  issuerCommonName: string;
  /** The issuer's distinguished name as an RFC 4514 string (most specific RDN first). */
  issuerDn: string;
  /** The holder's RFC (a company's RFC for a company FIEL), upper case; null when absent. */
  rfc: string | null;
  /** The legal representative's RFC (second part of a company's x500UniqueIdentifier); null for a person. */
  representativeRfc: string | null;
  /** The holder's CURP (a person), upper case; null when absent (a company has none). */
  curp: string | null;
  /** The legal representative's CURP (second part of a company's serialNumber); null for a person. */
  representativeCurp: string | null;
  /** The subject's OU: present (even empty) means a CSD (sello digital), not a FIEL. */
  organizationalUnit: string | null;
  /** Validity period. */
  notBefore: Date;
  notAfter: Date;
  /** First OCSP responder URL of the authorityInfoAccess extension, if any. */
  ocspUrl: string | null;
  /** The SubjectPublicKeyInfo, DER (the browser compares the `.key`'s public key to it). */
  spkiDer: Buffer;
}

/** Attribute OIDs of the subject (X.520, PKCS #9). */
const OID = {
  commonName: '2.5.4.3',
  serialNumber: '2.5.4.5',
  country: '2.5.4.6',
  locality: '2.5.4.7',
  state: '2.5.4.8',
  street: '2.5.4.9',
  organization: '2.5.4.10',
  organizationalUnit: '2.5.4.11',
  name: '2.5.4.41',
  x500UniqueIdentifier: '2.5.4.45',
  emailAddress: '1.2.840.113549.1.9.1',
  domainComponent: '0.9.2342.19200300.100.1.25',
  userId: '0.9.2342.19200300.100.1.1',
  authorityInfoAccess: '1.3.6.1.5.5.7.1.1',
  ocsp: '1.3.6.1.5.5.7.48.1',
} as const;

/** RFC 4514 section 3 short names; other types are written as dotted OIDs. */
const SHORT_NAMES: Record<string, string> = {
  [OID.commonName]: 'CN', [OID.locality]: 'L', [OID.state]: 'ST', [OID.organization]: 'O', [OID.organizationalUnit]: 'OU',
  [OID.country]: 'C', [OID.street]: 'STREET', [OID.domainComponent]: 'DC', [OID.userId]: 'UID',
};

/** Largest certificate accepted (SAT FIELs are about 1.6 KB). */
const MAX_CERTIFICATE_BYTES = 16 * 1024;

const toAB = (b: Uint8Array): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

/**
 * Parses a DER X.509 certificate (the `.cer` file) and reads the SAT's subject attributes.
 * @param der the certificate, DER (not PEM)
 * @throws SigningError `efirma_certificate_invalid` (422) when it is not one well-formed DER certificate
 *   (or longer than 16 KiB, or trailing bytes).
 */
export function parseEfirmaCertificate(der: Buffer): EfirmaCertificate {
  const invalid = (reason: string) => new SigningError('efirma_certificate_invalid', 'The file is not a readable X.509 certificate (DER .cer)', { reason });
  if (!Buffer.isBuffer(der) || der.length === 0) throw invalid('empty');
  if (der.length > MAX_CERTIFICATE_BYTES) throw invalid('too_large');
  const asn = asn1js.fromBER(toAB(der));
  if (asn.offset === -1 || asn.offset !== der.length) throw invalid(asn.offset === -1 ? 'not_der' : 'trailing_bytes');
  let cert: pkijs.Certificate;
  try {
    cert = new pkijs.Certificate({ schema: asn.result });
  } catch (error) {
    throw invalid(`not_a_certificate: ${(error as Error).message}`);
  }
  const subject = attributes(cert.subject);
  const issuer = attributes(cert.issuer);
  const first = (list: Attr[], type: string): string | null => list.find((a) => a.type === type)?.value ?? null;
  const cn = first(subject, OID.commonName) ?? '';
  const uid = splitPair(first(subject, OID.x500UniqueIdentifier));
  const serial = splitPair(first(subject, OID.serialNumber));
  return {
    der,
    sha256: createHash('sha256').update(der).digest('hex'),
    serialNumberHex: Buffer.from(cert.serialNumber.valueBlock.valueHexView).toString('hex'),
    subjectCommonName: cn,
    holderName: first(subject, OID.name) ?? cn,
    issuerCommonName: first(issuer, OID.commonName) ?? '',
    issuerDn: rfc4514(cert.issuer),
    rfc: uid.holder,
    representativeRfc: uid.representative,
    curp: serial.holder,
    representativeCurp: serial.representative,
    organizationalUnit: first(subject, OID.organizationalUnit),
    notBefore: cert.notBefore.value,
    notAfter: cert.notAfter.value,
    ocspUrl: ocspUrlOf(cert),
    spkiDer: Buffer.from(cert.subjectPublicKeyInfo.toSchema().toBER(false)),
  };
}

/**
 * Refuses a certificate that must not sign as an e.firma, in this order:
 * - a CSD (subject with an OU): `efirma_not_fiel` (422);
 * - `now` before notBefore or after notAfter: `efirma_certificate_expired` (422, `details.reason`
 *   `expired` | `not_yet_valid`);
 * - an expected RFC or CURP (the document creator's, for this signer) that matches neither the holder's nor
 *   the legal representative's value: `efirma_identity_mismatch` (422). Each value given must match
 *   (case and surrounding spaces ignored); a company FIEL matches its company RFC or its representative's
 *   RFC, and the representative's CURP.
 * @param expected the signer's `rfc` / `curp` from the document; null/undefined/empty = not checked
 */
export function assertFielUsable(cert: EfirmaCertificate, now: Date, expected: { rfc?: string | null; curp?: string | null }): void {
  if (cert.organizationalUnit !== null) {
    throw new SigningError('efirma_not_fiel', 'The certificate is a CSD (certificado de sello digital), not an e.firma (FIEL)', { organizational_unit: cert.organizationalUnit });
  }
  if (now.getTime() < cert.notBefore.getTime() || now.getTime() > cert.notAfter.getTime()) {
    throw new SigningError('efirma_certificate_expired', 'The e.firma certificate is not valid at this time', {
      reason: now.getTime() < cert.notBefore.getTime() ? 'not_yet_valid' : 'expired',
      not_before: cert.notBefore.toISOString(),
      not_after: cert.notAfter.toISOString(),
    });
  }
  const norm = (v: string | null | undefined) => (v ?? '').trim().toUpperCase();
  const mismatched: string[] = [];
  const rfc = norm(expected.rfc);
  if (rfc !== '' && rfc !== norm(cert.rfc) && rfc !== norm(cert.representativeRfc)) mismatched.push('rfc');
  const curp = norm(expected.curp);
  if (curp !== '' && curp !== norm(cert.curp) && curp !== norm(cert.representativeCurp)) mismatched.push('curp');
  if (mismatched.length > 0) {
    // The certificate's own values are not echoed: the signer sees which field differs, not someone else's RFC.
    throw new SigningError('efirma_identity_mismatch', 'The e.firma does not belong to the RFC/CURP the document names for this signer', { fields: mismatched });
  }
}

interface Attr {
  type: string;
  value: string;
}

/** The attributes of a Name, in order, with their values as text. */
function attributes(name: pkijs.RelativeDistinguishedNames): Attr[] {
  return name.typesAndValues.map((tv) => ({ type: tv.type, value: textOf(tv.value) }));
}

/** The text of an attribute value, whatever its ASN.1 string type. */
function textOf(value: unknown): string {
  if (value instanceof asn1js.BitString) {
    // X.520 UniqueIdentifier is a BIT STRING; some issuers put the RFC's ASCII bytes in it.
    return Buffer.from(value.valueBlock.valueHexView).toString('utf8');
  }
  if (value instanceof asn1js.BaseStringBlock) return String(value.valueBlock.value);
  if (value instanceof asn1js.OctetString) return Buffer.from(value.valueBlock.valueHexView).toString('utf8');
  // Other types (INTEGER, a SEQUENCE...) are not text: keep an empty string rather than guess.
  return '';
}

/** Splits the SAT's "holder / representative" value; a single value is the holder's. Upper-cased; empty parts are null. */
function splitPair(value: string | null): { holder: string | null; representative: string | null } {
  if (value === null) return { holder: null, representative: null };
  const slash = value.indexOf('/');
  const part = (s: string) => {
    const t = s.trim().toUpperCase();
    return t === '' ? null : t;
  };
  if (slash === -1) return { holder: part(value), representative: null };
  return { holder: part(value.slice(0, slash)), representative: part(value.slice(slash + 1)) };
}

/** RFC 4514 string of a Name: RDNs from the last to the first, special characters escaped. */
function rfc4514(name: pkijs.RelativeDistinguishedNames): string {
  const rdns: string[] = [];
  // pkijs flattens multi-valued RDNs; read the SETs from the raw value to keep them together.
  const raw = name.valueBeforeDecode.byteLength > 0 ? asn1js.fromBER(name.valueBeforeDecode).result : name.toSchema();
  const sets = raw instanceof asn1js.Sequence ? raw.valueBlock.value : [];
  for (const set of sets) {
    if (!(set instanceof asn1js.Set)) continue;
    const parts: string[] = [];
    for (const seq of set.valueBlock.value) {
      const tv = new pkijs.AttributeTypeAndValue({ schema: seq });
      parts.push(`${SHORT_NAMES[tv.type] ?? tv.type}=${escapeDnValue(textOf(tv.value))}`);
    }
    rdns.push(parts.join('+'));
  }
  return rdns.reverse().join(',');
}

/** RFC 4514 section 2.4 escaping. */
function escapeDnValue(v: string): string {
  let out = v.replace(/[\\"+,;<>=]/g, (c) => `\\${c}`).replace(/\0/g, '\\00');
  if (out.startsWith('#') || out.startsWith(' ')) out = `\\${out}`;
  if (out.endsWith(' ') && out.length > 1) out = `${out.slice(0, -1)}\\ `;
  return out;
}

/** First `id-ad-ocsp` URI of the authorityInfoAccess extension (RFC 5280 4.2.2.1). */
function ocspUrlOf(cert: pkijs.Certificate): string | null {
  const ext = cert.extensions?.find((e) => e.extnID === OID.authorityInfoAccess);
  if (!ext) return null;
  try {
    const aia = ext.parsedValue instanceof pkijs.InfoAccess ? ext.parsedValue : new pkijs.InfoAccess({ schema: asn1js.fromBER(ext.extnValue.valueBlock.valueHexView).result });
    for (const d of aia.accessDescriptions) {
      if (d.accessMethod === OID.ocsp && d.accessLocation.type === 6 && typeof d.accessLocation.value === 'string') return d.accessLocation.value;
    }
  } catch {
    // A malformed AIA is no OCSP URL: the configured EFIRMA_OCSP_URL applies.
  }
  return null;
}
