/**
 * PAdES B-LT's document security store (ETSI EN 319 142-1 5.4.2; ISO 32000-2 12.8.4.3): the validation data
 * of the document's signatures, appended as an incremental update so the signatures stay valid.
 *
 * - `/DSS` in the catalog holds `/Certs` (DER certificates), `/OCSPs` (each the whole DER OCSPResponse, as
 *   5.4.2.2 says, not only the BasicOCSPResponse) and `/CRLs` (DER CRLs), each item a stream of its own.
 * - `/VRI` has one dictionary per signature (and document time-stamp), keyed by the upper-case hex SHA-1 of
 *   the signature's `/Contents` value (the whole string, zero padding included, as Adobe and pyHanko read
 *   it), listing the items of the store that validate it: the certificates of its chain (those its CMS
 *   names, and their issuers among the known certificates), the OCSP responses about them and the CRLs of
 *   their issuers.
 * - A second call merges into the existing store: items already there (same bytes) are not repeated.
 */
import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFRawStream, PDFRef, PDFString, decodePDFRawStream } from 'pdf-lib';
import { derPrefix, toAB } from '../pades.ts';
import { IncrementalUpdate } from './update.ts';

const OID_BASIC_OCSP = '1.3.6.1.5.5.7.48.1.1';
const OID_SIGNATURE_TIMESTAMP = '1.2.840.113549.1.9.16.2.14';
const HASHES: Record<string, string> = { '1.3.14.3.2.26': 'sha1', '2.16.840.1.101.3.4.2.1': 'sha256', '2.16.840.1.101.3.4.2.2': 'sha384', '2.16.840.1.101.3.4.2.3': 'sha512' };

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const der = (o: { toSchema(): asn1js.AsnType }) => Buffer.from(o.toSchema().toBER(false));

/** The CertIDs (RFC 6960 4.1.1) an OCSPResponse answers about. */
function ocspCertIds(response: Buffer): pkijs.CertID[] {
  const r = pkijs.OCSPResponse.fromBER(toAB(response));
  if (!r.responseBytes || r.responseBytes.responseType !== OID_BASIC_OCSP) throw new Error('an OCSP response without a BasicOCSPResponse (status not successful?)');
  const basic = pkijs.BasicOCSPResponse.fromBER(toAB(Buffer.from(r.responseBytes.response.valueBlock.valueHexView)));
  return basic.tbsResponseData.responses.map((s) => s.certID);
}

/** Every certificate inside a CMS blob: its own, and those of signature time-stamp tokens in its unsigned attributes. */
function cmsCertificates(cms: Buffer): pkijs.Certificate[] {
  const out: pkijs.Certificate[] = [];
  const walk = (ci: pkijs.ContentInfo, depth: number) => {
    const sd = new pkijs.SignedData({ schema: ci.content });
    for (const c of sd.certificates ?? []) if (c instanceof pkijs.Certificate) out.push(c);
    if (depth > 0) return;
    for (const si of sd.signerInfos) {
      for (const a of si.unsignedAttrs?.attributes ?? []) {
        if (a.type === OID_SIGNATURE_TIMESTAMP) for (const v of a.values) walk(new pkijs.ContentInfo({ schema: v }), depth + 1);
      }
    }
  };
  try {
    walk(pkijs.ContentInfo.fromBER(toAB(cms)), 0);
  } catch {
    // an unreadable signature gets a VRI entry without certificates
  }
  return out;
}

/** The signature dictionaries of the document's signature fields (ISO 32000-1 12.7.4.5), kids included. */
function signatureDictionaries(doc: import('pdf-lib').PDFDocument): PDFDict[] {
  const out: PDFDict[] = [];
  const fields = doc.catalog.lookupMaybe(PDFName.of('AcroForm'), PDFDict)?.lookupMaybe(PDFName.of('Fields'), PDFArray);
  const visit = (field: PDFDict, depth: number) => {
    const v = field.lookup(PDFName.of('V'));
    if (v instanceof PDFDict && v.get(PDFName.of('Contents')) && v.get(PDFName.of('ByteRange'))) out.push(v);
    const kids = field.lookupMaybe(PDFName.of('Kids'), PDFArray);
    if (kids && depth < 32) for (let i = 0; i < kids.size(); i++) {
      const kid = kids.lookup(i);
      if (kid instanceof PDFDict) visit(kid, depth + 1);
    }
  };
  for (let i = 0; fields && i < fields.size(); i++) {
    const f = fields.lookup(i);
    if (f instanceof PDFDict) visit(f, 0);
  }
  return out;
}

/**
 * PAdES B-LT: appends a `/DSS` (Certs, OCSPs, CRLs, and VRI per signature) as an incremental update (see the
 * module comment for what goes where).
 * @param o.certificates DER certificates (signers' chains, OCSP responders', the TSA's)
 * @param o.ocspResponses whole DER OCSPResponses (`OcspResult.responseDer`)
 * @param o.crls DER CRLs
 * @throws Error when an item is not what it claims to be (certificate, successful OCSP response, CRL) or
 *   `pdf` is not an incremental base.
 */
export async function addDss(pdf: Buffer, o: { certificates: Buffer[]; ocspResponses: Buffer[]; crls?: Buffer[] }): Promise<Buffer> {
  const certs = o.certificates.map((d, i) => {
    try {
      return { der: d, cert: pkijs.Certificate.fromBER(toAB(d)) };
    } catch {
      throw new Error(`certificates[${i}] is not a DER X.509 certificate`);
    }
  });
  const ocsps = o.ocspResponses.map((d, i) => {
    try {
      return { der: d, ids: ocspCertIds(d) };
    } catch (e) {
      throw new Error(`ocspResponses[${i}] is not a successful DER OCSPResponse: ${(e as Error).message}`);
    }
  });
  const crls = (o.crls ?? []).map((d, i) => {
    try {
      return { der: d, crl: pkijs.CertificateRevocationList.fromBER(toAB(d)) };
    } catch {
      throw new Error(`crls[${i}] is not a DER CRL`);
    }
  });

  const upd = await IncrementalUpdate.open(pdf);
  const { doc } = upd;
  const { context } = doc;
  const rootRef = upd.rootRef;
  let dss: PDFDict;
  let owner: PDFRef;
  const current = doc.catalog.get(PDFName.of('DSS'));
  if (current instanceof PDFRef && context.lookup(current) instanceof PDFDict) {
    dss = context.lookup(current, PDFDict);
    owner = current;
  } else if (current instanceof PDFDict) {
    dss = current;
    owner = rootRef;
  } else {
    dss = context.obj({ Type: 'DSS' });
    owner = upd.register(dss);
    upd.setIn(rootRef, doc.catalog, 'DSS', owner);
  }

  /**
   * Adds each item to `key` (one stream each) unless the store already has the same bytes.
   * @returns every item of the store under `key` (earlier ones and new ones) with its stream's ref
   */
  const store = (key: string, items: Buffer[]): { der: Buffer; ref: PDFRef }[] => {
    const all = new Map<string, { der: Buffer; ref: PDFRef }>();
    const arr = upd.arrayIn(owner, dss, key);
    for (let i = 0; i < arr.size(); i++) {
      const ref = arr.get(i);
      const stream = ref instanceof PDFRef ? context.lookup(ref) : undefined;
      if (ref instanceof PDFRef && stream instanceof PDFRawStream) {
        const bytes = Buffer.from(decodePDFRawStream(stream).decode());
        all.set(sha256(bytes), { der: bytes, ref });
      }
    }
    for (const item of items) {
      if (all.has(sha256(item))) continue;
      const ref = upd.register(context.flateStream(item));
      arr.push(ref);
      all.set(sha256(item), { der: item, ref });
    }
    return [...all.values()];
  };
  // Parsed for the VRI; an earlier item that does not parse is kept in the store but named by no VRI entry.
  const parsed = <T>(parse: (der: Buffer) => T) => (x: { der: Buffer; ref: PDFRef }) => {
    try {
      return [{ ...x, value: parse(x.der) }];
    } catch {
      return [];
    }
  };
  const storedCerts = store('Certs', certs.map((c) => c.der)).flatMap(parsed((d) => pkijs.Certificate.fromBER(toAB(d))));
  const storedOcsps = store('OCSPs', ocsps.map((x) => x.der)).flatMap(parsed(ocspCertIds));
  const storedCrls = store('CRLs', crls.map((x) => x.der)).flatMap(parsed((d) => pkijs.CertificateRevocationList.fromBER(toAB(d))));

  // VRI: one entry per signature, naming the items that validate it.
  const vriValue = dss.get(PDFName.of('VRI'));
  let vri: PDFDict;
  if (vriValue instanceof PDFRef && context.lookup(vriValue) instanceof PDFDict) {
    vri = context.lookup(vriValue, PDFDict);
    upd.touch(vriValue);
  } else if (vriValue instanceof PDFDict) {
    vri = vriValue;
    upd.touch(owner);
  } else {
    vri = context.obj({});
    upd.setIn(owner, dss, 'VRI', vri);
  }
  for (const sig of signatureDictionaries(doc)) {
    const contents = sig.get(PDFName.of('Contents'));
    if (!(contents instanceof PDFHexString || contents instanceof PDFString)) continue;
    const raw = Buffer.from(contents.asBytes());
    const key = createHash('sha1').update(raw).digest('hex').toUpperCase();
    // The chain: the CMS's certificates and, transitively, their issuers among every certificate known.
    const own = cmsCertificates(derPrefix(raw));
    const known = [...own, ...storedCerts.map((c) => c.value)];
    const chain = new Map<string, pkijs.Certificate>();
    const queue = [...own];
    while (queue.length) {
      const c = queue.pop()!;
      const h = sha256(der(c));
      if (chain.has(h)) continue;
      chain.set(h, c);
      if (!c.issuer.isEqual(c.subject)) for (const k of known) if (k.subject.isEqual(c.issuer)) queue.push(k);
    }
    const entry: Record<string, PDFRef[]> = { Cert: [], OCSP: [], CRL: [] };
    for (const c of storedCerts) if (chain.has(sha256(c.der))) entry.Cert!.push(c.ref);
    for (const x of storedOcsps) {
      const about = x.value.some((id) => {
        const alg = HASHES[id.hashAlgorithm.algorithmId];
        return alg && [...chain.values()].some((c) => c.serialNumber.isEqual(id.serialNumber) && createHash(alg).update(der(c.issuer)).digest().equals(Buffer.from(id.issuerNameHash.valueBlock.valueHexView)));
      });
      if (about) entry.OCSP!.push(x.ref);
    }
    for (const x of storedCrls) if ([...chain.values()].some((c) => c.issuer.isEqual(x.value.issuer))) entry.CRL!.push(x.ref);
    const dict = context.obj({});
    for (const [k, refs] of Object.entries(entry)) if (refs.length) dict.set(PDFName.of(k), context.obj(refs));
    vri.set(PDFName.of(key), dict);
  }
  return upd.finish().pdf;
}
