/**
 * `POST /v1/signing/verify`, per signature (issue 29 item 6): who signed (the signer certificate's name, and
 * for an e.firma the holder's RFC and CURP and a company's legal representative's), the issuer, whether it
 * verifies, whether its byte range reaches the end of the file, and the OCSP status at signing time from the
 * document's record (`efirma` of its `signing.document_signed`) when the file is one of the caller's documents,
 * else from the file's DSS (domain/signing/dss-read.ts).
 * Document time-stamps (ETSI.RFC3161) are checked as RFC 3161 tokens over their byte range.
 */
import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { DocumentState } from '../../domain/signing/document.ts';
import { parseEfirmaCertificate } from '../../domain/signing/efirma/certificate.ts';
import { byteRangeDigestKey, digestByteRange, type FoundSignature, type SignatureCheck } from '../../domain/signing/pades.ts';
import { checkConservation } from './conservation.ts';
import { ocspResponsesInDss, ocspStatusFor } from '../../domain/signing/dss-read.ts';

const toAB = (b: Uint8Array): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
const OID_TST_INFO = '1.2.840.113549.1.9.16.1.4';

/** One signature of the verified file, in file order (see the module comment). */
export interface SignatureReport {
  /** `efirma`: a SAT FIEL certificate (an RFC in x500UniqueIdentifier, no OU); `service`: this service's seal; `document_timestamp`: an RFC 3161 document time-stamp (PAdES B-LTA); `other`. */
  kind: 'efirma' | 'service' | 'document_timestamp' | 'other';
  /** It verifies: a CMS signature over its byte range (see `signature_valid`), or a time-stamp token whose imprint is the byte range's SHA-256 and whose signature verifies. */
  valid: boolean;
  /** Its byte range ends at the end of the file (nothing appended after it). */
  covers_document: boolean;
  /** Common name of the signing certificate (the TSA's for a time-stamp). */
  signer_name: string | null;
  /** e.firma: the holder's name (SAT: the CN). */
  holder_name: string | null;
  rfc: string | null;
  representative_rfc: string | null;
  curp: string | null;
  representative_curp: string | null;
  /** Issuer DN (RFC 4514) of the signing certificate. */
  issuer: string | null;
  /** Serial number of the signing certificate, lower-case hex. */
  certificate_serial: string | null;
  /** RFC 3161 time of its signature time-stamp, or the document time-stamp's `genTime`. */
  timestamp: string | null;
  /**
   * e.firma: the OCSP answer at signing time: as the document's log recorded it (`source: 'record'`, the file is
   * one of the caller's documents), else as the file's DSS carries it (`source: 'dss'`; read, its signature not
   * re-checked); null when neither has one.
   */
  ocsp: { status: 'good' | 'revoked' | 'unknown'; produced_at: string; responder: string; source: 'record' | 'dss' } | null;
  /** Why it does not verify, when it does not. */
  error: string | null;
}

interface CertInfo {
  der: Buffer;
  tst: boolean;
}

/** The signer certificate (matched by `sid`) of a CMS SignedData, and whether its content is a TSTInfo. */
function signerOf(cms: Buffer): CertInfo | null {
  try {
    const ci = pkijs.ContentInfo.fromBER(toAB(cms));
    const sd = new pkijs.SignedData({ schema: ci.content });
    const sid = sd.signerInfos[0]?.sid as pkijs.IssuerAndSerialNumber | asn1js.OctetString | undefined;
    const tst = sd.encapContentInfo.eContentType === OID_TST_INFO;
    for (const c of sd.certificates ?? []) {
      if (!(c instanceof pkijs.Certificate) || !sid) continue;
      const match =
        sid instanceof pkijs.IssuerAndSerialNumber
          ? c.serialNumber.isEqual(sid.serialNumber) && c.issuer.isEqual(sid.issuer)
          : Buffer.from((c.extensions?.find((x) => x.extnID === '2.5.29.14')?.parsedValue as asn1js.OctetString | undefined)?.valueBlock.valueHexView ?? []).equals(Buffer.from(sid.valueBlock.valueHexView));
      if (match) return { der: Buffer.from(c.toSchema().toBER(false)), tst };
    }
    return { der: Buffer.alloc(0), tst };
  } catch {
    return null;
  }
}

/**
 * Reports each examined signature.
 * @param digests the digests verify computed on a PDF thread (byte ranges by {@link byteRangeDigestKey})
 * @param state the caller's document the file was identified as (its e.firma records give the OCSP status), or null
 * @param serviceCertificateSha256 SHA-256 of this service's signing certificate
 */
export async function reportSignatures(pdf: Buffer, checked: { s: FoundSignature; c: SignatureCheck }[], digests: Map<string, Buffer>, state: DocumentState | null, serviceCertificateSha256: string): Promise<SignatureReport[]> {
  const out: SignatureReport[] = [];
  let dss: Buffer[] | null = null;
  const fromDss = (serialHex: string) => {
    dss ??= ocspResponsesInDss(pdf);
    const found = ocspStatusFor(dss, serialHex);
    return found ? { ...found, source: 'dss' as const } : null;
  };
  for (const { s, c } of checked) {
    const [, , from, length] = s.byteRange;
    const signer = signerOf(s.cms);
    const base: SignatureReport = {
      kind: 'other',
      valid: c.valid,
      covers_document: from + length === pdf.length,
      signer_name: null,
      holder_name: null,
      rfc: null,
      representative_rfc: null,
      curp: null,
      representative_curp: null,
      issuer: null,
      certificate_serial: null,
      timestamp: c.timestamp ? c.timestamp.toISOString() : null,
      ocsp: null,
      error: c.error,
    };
    let cert: ReturnType<typeof parseEfirmaCertificate> | null = null;
    try {
      cert = signer && signer.der.length > 0 ? parseEfirmaCertificate(signer.der) : null;
    } catch {
      cert = null;
    }
    if (cert) {
      Object.assign(base, { signer_name: cert.subjectCommonName || null, issuer: cert.issuerDn, certificate_serial: cert.serialNumberHex });
    }
    if (signer?.tst) {
      // A document time-stamp: the token's imprint must be the SHA-256 of the bytes its range covers.
      const digest = digests.get(byteRangeDigestKey('sha256', s.byteRange)) ?? digestByteRange(pdf, s.byteRange, 'sha256');
      const t = await checkConservation(s.cms, digest.toString('hex'));
      out.push({ ...base, kind: 'document_timestamp', valid: t.valid, timestamp: t.gen_time, error: t.error });
      continue;
    }
    if (c.signerCertificateSha256 === serviceCertificateSha256) {
      out.push({ ...base, kind: 'service' });
      continue;
    }
    const sha = signer && signer.der.length > 0 ? createHash('sha256').update(signer.der).digest('hex') : null;
    const recorded = sha ? state?.signers.find((x) => x.efirma?.certificate_sha256 === sha)?.efirma ?? null : null;
    const fiel = !!cert && !!cert.rfc && !cert.organizationalUnit;
    if (cert && (fiel || recorded)) {
      out.push({
        ...base,
        kind: 'efirma',
        holder_name: cert.holderName,
        rfc: cert.rfc,
        representative_rfc: cert.representativeRfc,
        curp: cert.curp,
        representative_curp: cert.representativeCurp,
        ocsp: recorded ? { status: recorded.ocsp_status, produced_at: recorded.ocsp_produced_at, responder: recorded.ocsp_responder, source: 'record' as const } : fromDss(cert.serialNumberHex),
      });
      continue;
    }
    out.push(base);
  }
  return out;
}
