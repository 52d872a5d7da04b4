/**
 * The e.firma trust list (issue 29): the SAT's root and intermediate CAs an operator configures with
 * `EFIRMA_TRUST_LIST` (docs/signing.md "e.firma: trust list and OCSP"), and RFC 5280 path validation of a
 * signer's certificate against them with pkijs' CertificateChainValidationEngine (signatures, name chaining,
 * validity of every certificate at the signing time, basicConstraints cA and keyCertSign on every issuer),
 * plus the pathLenConstraint, which the engine does not check.
 */
import { readFileSync } from 'node:fs';
import { webcrypto } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { SigningError } from '../../../domain/signing/errors.ts';

pkijs.setEngine('node-webcrypto', new pkijs.CryptoEngine({ name: 'node-webcrypto', crypto: webcrypto as unknown as Crypto }));

/** The configured anchors: self-issued roots, and the intermediates (issuing CAs) that may complete a path. DER. */
export interface TrustList {
  roots: Buffer[];
  intermediates: Buffer[];
}

const BASIC_CONSTRAINTS = '2.5.29.19';
/** Longest certificate file read (a bundle of every SAT generation is a few tens of KB). */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

const toAB = (b: Uint8Array): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

/** Parses one DER certificate, or null when the bytes are not exactly one. */
function certificateOf(der: Buffer): pkijs.Certificate | null {
  const asn = asn1js.fromBER(toAB(der));
  if (asn.offset === -1 || asn.offset !== der.length) return null;
  try {
    return new pkijs.Certificate({ schema: asn.result });
  } catch {
    return null;
  }
}

/**
 * Reads the trust list: each path is a PEM bundle (one or more `BEGIN CERTIFICATE` blocks) or one DER
 * certificate (the SAT publishes its CAs as DER `.cer` files). Self-issued certificates (subject = issuer)
 * are roots; the others are intermediates.
 * @param paths files (EFIRMA_TRUST_LIST split on the platform's path delimiter)
 * @throws Error naming the file when one cannot be read, holds no certificate or a malformed one, or when no
 *   root is found at all (a start-up failure, not a signing error).
 */
export function loadTrustList(paths: string[]): TrustList {
  const roots: Buffer[] = [];
  const intermediates: Buffer[] = [];
  if (paths.length === 0) throw new Error('EFIRMA_TRUST_LIST: no file given');
  for (const path of paths) {
    const bytes = readFileSync(path);
    if (bytes.length > MAX_FILE_BYTES) throw new Error(`EFIRMA_TRUST_LIST: ${path} is larger than ${MAX_FILE_BYTES} bytes`);
    const text = bytes.toString('latin1');
    const blocks = [...text.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g)].map((m) => Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64'));
    const ders = blocks.length > 0 ? blocks : [bytes];
    for (const [i, der] of ders.entries()) {
      const cert = certificateOf(der);
      if (!cert) throw new Error(`EFIRMA_TRUST_LIST: ${path}: certificate ${i + 1} is not a readable X.509 certificate`);
      (cert.subject.isEqual(cert.issuer) ? roots : intermediates).push(der);
    }
  }
  if (roots.length === 0) throw new Error(`EFIRMA_TRUST_LIST: no root (self-issued) certificate in ${paths.join(', ')}`);
  return { roots, intermediates };
}

/**
 * Validates the path leaf -> intermediates -> root at `at` (the signing time).
 * @param leaf the signer's certificate, DER
 * @returns the path, leaf first and root last (DER), and the leaf's issuer (for OCSP)
 * @throws SigningError `efirma_untrusted` (422, `details.reason` the engine's message) when no path to a
 *   configured root validates: unknown issuer, a bad signature, a certificate of the path outside its validity
 *   at `at`, an issuer that is not a CA (basicConstraints cA, keyUsage keyCertSign) or a path longer than an
 *   issuer's pathLenConstraint. A self-signed impostor with the SAT's names is refused: it is not in the list.
 */
export async function verifyChain(leaf: Buffer, trust: TrustList, at: Date): Promise<{ chain: Buffer[]; issuer: Buffer }> {
  const untrusted = (reason: string) => new SigningError('efirma_untrusted', 'The certificate does not chain to a trusted SAT e.firma authority', { reason });
  const leafCert = certificateOf(leaf);
  if (!leafCert) throw untrusted('the certificate is not readable');
  const roots = trust.roots.map((d) => certificateOf(d)!);
  // A configured CA is never the leaf itself: signing with a CA certificate is not an e.firma.
  if ([...trust.roots, ...trust.intermediates].some((r) => r.equals(leaf))) throw untrusted('the certificate is one of the trusted authorities');
  const engine = new pkijs.CertificateChainValidationEngine({
    trustedCerts: roots,
    // The engine takes the last of `certs` as the leaf.
    certs: [...trust.intermediates.map((d) => certificateOf(d)!), leafCert],
    checkDate: at,
  });
  let result: pkijs.CertificateChainValidationEngineVerifyResult;
  try {
    result = await engine.verify();
  } catch (error) {
    throw untrusted((error as Error).message ?? String(error));
  }
  if (!result.result || !result.certificatePath || result.certificatePath.length < 2) throw untrusted(result.resultMessage || 'no valid certificate path');
  const path = result.certificatePath;
  const chain = path.map((c) => Buffer.from(c.toSchema().toBER(false)));
  if (!chain[0]!.equals(leaf)) throw untrusted('the validated path does not start with the certificate');
  // Every issuer is a CA (the engine checks it too) and no path is longer than its pathLenConstraint allows.
  for (let i = 1; i < path.length; i++) {
    const bc = path[i]!.extensions?.find((e) => e.extnID === BASIC_CONSTRAINTS)?.parsedValue as pkijs.BasicConstraints | undefined;
    if (!bc?.cA) throw untrusted(`issuer ${i} is not a CA (basicConstraints)`);
    const pathLen = typeof bc.pathLenConstraint === 'number' ? bc.pathLenConstraint : bc.pathLenConstraint instanceof asn1js.Integer ? bc.pathLenConstraint.valueBlock.valueDec : undefined;
    // Intermediate CAs below path[i]: path[1..i-1].
    if (pathLen !== undefined && i - 1 > pathLen) throw untrusted(`issuer ${i} allows ${pathLen} intermediate CAs below it, the path has ${i - 1}`);
  }
  return { chain, issuer: chain[1]! };
}
