/**
 * Reads the OCSP responses of a PDF's document security store (PAdES B-LT, ETSI EN 319 142-1 5.4.2) with a
 * byte-level scan, without parsing the whole PDF (verify runs on uploads of up to 10 MB): the last
 * `/OCSPs [n 0 R ...]` array, each referenced object's stream (`/Length` given directly, FlateDecode or raw).
 * Bounded: at most {@link MAX_DSS_OCSPS} responses of at most {@link MAX_OCSP_BYTES} each. Used by
 * `/v1/signing/verify` to report an e.firma signature's OCSP status at signing time when the file is not one of
 * the caller's documents (workflows/signing/verify-signatures.ts).
 */
import { inflateSync } from 'node:zlib';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

/** Most OCSP responses read from one DSS. */
export const MAX_DSS_OCSPS = 32;
/** Largest OCSP response read (decoded), in bytes. */
export const MAX_OCSP_BYTES = 64 * 1024;

const toAB = (b: Uint8Array): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

/**
 * The DER OCSPResponses of the file's last `/DSS` `/OCSPs` array (empty when there is none or it is unreadable).
 * @param text the file as latin1 (the caller's scan string, so the file is not decoded twice)
 */
export function ocspResponsesInDss(pdf: Buffer, text = pdf.toString('latin1')): Buffer[] {
  let last: RegExpExecArray | null = null;
  const re = /\/OCSPs\s*\[([0-9\sR]{0,4000})\]/g;
  for (let m = re.exec(text); m; m = re.exec(text)) last = m;
  if (!last) return [];
  const refs = [...last[1]!.matchAll(/(\d{1,9})\s+(\d{1,5})\s+R/g)].slice(0, MAX_DSS_OCSPS);
  const out: Buffer[] = [];
  for (const [, num, gen] of refs) {
    const header = new RegExp(`(?:^|[\\s>])${num}\\s+${gen}\\s+obj\\b`, 'g');
    let at = -1;
    for (let m = header.exec(text); m; m = header.exec(text)) at = m.index + m[0].length;
    if (at < 0) continue;
    const streamAt = text.indexOf('stream', at);
    if (streamAt < 0 || streamAt - at > 4000) continue;
    const dict = text.slice(at, streamAt);
    const length = /\/Length\s+(\d{1,9})(?!\s+\d+\s+R)/.exec(dict)?.[1];
    if (!length || Number(length) > MAX_OCSP_BYTES) continue;
    let start = streamAt + 'stream'.length;
    if (text[start] === '\r') start++;
    if (text[start] === '\n') start++;
    const raw = pdf.subarray(start, start + Number(length));
    try {
      out.push(/\/FlateDecode/.test(dict) ? inflateSync(raw, { maxOutputLength: MAX_OCSP_BYTES }) : Buffer.from(raw));
    } catch {
      // an undecodable stream: skipped
    }
  }
  return out;
}

/**
 * The status an OCSP response of `responses` gives for the certificate with serial `serialHex` (lower-case
 * hex): the first SingleResponse naming that serial. The response's signature is not checked here (what the
 * file carries is reported; its responder's certificate is in the DSS for a validator to check).
 */
export function ocspStatusFor(responses: Buffer[], serialHex: string): { status: 'good' | 'revoked' | 'unknown'; produced_at: string; responder: string } | null {
  const want = serialHex.replace(/^0+/, '');
  for (const der of responses) {
    try {
      const resp = pkijs.OCSPResponse.fromBER(toAB(der));
      const bytes = resp.responseBytes?.response.valueBlock.valueHexView;
      if (!bytes) continue;
      const basic = pkijs.BasicOCSPResponse.fromBER(toAB(new Uint8Array(bytes)));
      for (const single of basic.tbsResponseData.responses) {
        const serial = Buffer.from(single.certID.serialNumber.valueBlock.valueHexView).toString('hex').replace(/^0+/, '');
        if (serial !== want) continue;
        const tag = (single.certStatus as asn1js.BaseBlock).idBlock.tagNumber;
        const status = tag === 0 ? 'good' : tag === 1 ? 'revoked' : 'unknown';
        const rid = basic.tbsResponseData.responderID;
        const responder = rid instanceof pkijs.RelativeDistinguishedNames ? rid.typesAndValues.map((tv) => String(tv.value.valueBlock.value)).join(', ') : 'key hash';
        return { status, produced_at: basic.tbsResponseData.producedAt.toISOString(), responder };
      }
    } catch {
      // unreadable response: skipped
    }
  }
  return null;
}
