/**
 * The final PDF of a document signed with e.firma (issue 29 items 3 and 4): the working PDF (each signer's
 * incremental PAdES signature, `workflows/signing/efirma.ts`) + Sello's seal as one more incremental
 * signature + the document security store (PAdES B-LT) + a document time-stamp when a TSA is configured
 * (PAdES B-LTA). Pure PDF/CMS work: it runs in the `signing.seal` worker job (models/signing/jobs.ts), never on
 * the API's event loop.
 */
import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { addDocumentTimestamp, addDss, sealIncremental } from './incremental/index.ts';
import { findSignatures, type PadesKey, type TimestampOptions } from './pades.ts';

const toAB = (b: Uint8Array): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
const OID_SIGNATURE_TIME_STAMP = '1.2.840.113549.1.9.16.2.14';
const OID_SIGNED_DATA = '1.2.840.113549.1.7.2';

/**
 * Every certificate the CMS signatures of `pdf` carry: each signature's `certificates` (signer, its chain)
 * and those of its RFC 3161 signature time-stamp token (the TSA's), DER, in file order, without repeats.
 * Unreadable signatures are skipped.
 */
export function certificatesOfSignatures(pdf: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (const sig of findSignatures(pdf)) out.push(...certificatesOfCms(sig.cms));
  return unique(out);
}

/** The certificates of a CMS SignedData (DER ContentInfo), and of its signers' signature time-stamp tokens. */
export function certificatesOfCms(cms: Buffer): Buffer[] {
  const out: Buffer[] = [];
  try {
    const ci = pkijs.ContentInfo.fromBER(toAB(cms));
    if (ci.contentType !== OID_SIGNED_DATA) return out;
    const sd = new pkijs.SignedData({ schema: ci.content });
    for (const c of sd.certificates ?? []) if (c instanceof pkijs.Certificate) out.push(Buffer.from(c.toSchema().toBER(false)));
    for (const si of sd.signerInfos) {
      for (const a of si.unsignedAttrs?.attributes ?? []) {
        if (a.type !== OID_SIGNATURE_TIME_STAMP) continue;
        out.push(...certificatesOfCms(Buffer.from((a.values[0] as asn1js.Sequence).toBER(false))));
      }
    }
  } catch {
    // not a readable CMS: nothing to add
  }
  return out;
}

/** The certificates a DER OCSPResponse carries (a delegated responder's certificate), for the DSS. */
export function certificatesOfOcspResponse(der: Buffer): Buffer[] {
  try {
    const resp = pkijs.OCSPResponse.fromBER(toAB(der));
    const bytes = resp.responseBytes?.response.valueBlock.valueHexView;
    if (!bytes) return [];
    const basic = pkijs.BasicOCSPResponse.fromBER(toAB(new Uint8Array(bytes)));
    return (basic.certs ?? []).map((c) => Buffer.from(c.toSchema().toBER(false)));
  } catch {
    return [];
  }
}

function unique(items: Buffer[]): Buffer[] {
  const seen = new Set<string>();
  return items.filter((b) => {
    const h = createHash('sha256').update(b).digest('hex');
    if (seen.has(h)) return false;
    seen.add(h);
    return true;
  });
}

export interface EfirmaFinalOptions {
  /** `/Reason` of the seal (names the document: how verify finds it). */
  reason: string;
  /** The seal's `/M` (the finalize instant). */
  signingTime: Date;
  /** `SIGNING_TSA_URL`: the seal gets a signature time-stamp (B-T) and the file a document time-stamp (B-LTA). */
  tsa?: TimestampOptions;
  /** The whole DER OCSPResponses of the e.firma signatures (from signing time, `efirma.ocsp_blob`). */
  ocspResponses: Buffer[];
}

/**
 * working PDF -> + Sello's seal (incremental; B-B, or B-T with `tsa`) -> + DSS (every signature's certificates
 * and its time-stamp tokens' TSA certificates, the OCSP responses and their responders' certificates, the
 * seal's chain) -> + document time-stamp (with `tsa`). Every earlier signature stays valid; the last update
 * covers the whole file.
 * @throws SigningError `timestamp_unavailable` (503) when `tsa` does not answer (never the local clock);
 *   Error when the working PDF is not an incremental base.
 */
export async function finalizeEfirmaPdf(working: Buffer, key: PadesKey, o: EfirmaFinalOptions): Promise<Buffer> {
  const sealed = await sealIncremental(working, key, { reason: o.reason, signingTime: o.signingTime, ...(o.tsa ? { tsa: o.tsa } : {}) });
  const certificates = unique([...certificatesOfSignatures(sealed), ...o.ocspResponses.flatMap(certificatesOfOcspResponse), key.certificate, ...key.chain]);
  const lt = await addDss(sealed, { certificates, ocspResponses: unique(o.ocspResponses) });
  return o.tsa ? addDocumentTimestamp(lt, o.tsa) : lt;
}
