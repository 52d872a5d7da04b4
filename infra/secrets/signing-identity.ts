/**
 * The service's document-signing identity (PAdES signatures of finalized documents): an operator-supplied
 * PKCS#12 (`SIGNING_P12_PATH` + `SIGNING_P12_PASSWORD`), or, in embedded mode, a self-issued CA and a
 * signing certificate generated on first start and kept in `DATA_DIR/signing-identity.p12`, a PKCS#12
 * whose private key is encrypted (PBES2 / AES-256, node-forge) with a random password kept in
 * `DATA_DIR/signing-identity.key` (mode 0600, the one key-file loader). The private key never sits in
 * clear on disk and is never logged.
 */
import { createHash, createPrivateKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import forge from 'node-forge';
import { loadOrCreateKeyFile } from './key-file.ts';

export interface SigningIdentity {
  /** The signing certificate (DER). */
  certificate: Buffer;
  /** Issuer chain (DER), nearest first; the self-issued CA in embedded mode. */
  chain: Buffer[];
  /** The private key, PKCS#8 DER (held in memory only). */
  privateKeyPkcs8: Buffer;
  /** SHA-256 (hex) of the signing certificate: how `verify` recognises the service's signatures. */
  certificateSha256: string;
  /** Subject common name, printed on certificates of completion. */
  subjectName: string;
}

const DOC_SIGNING_EKU = '1.3.6.1.4.1.311.10.3.12'; // Microsoft "Document Signing" extended key usage

function toForgeKey(pem: string) {
  return forge.pki.privateKeyFromPem(pem);
}

function serial(): string {
  // Positive 16-byte serial (RFC 5280 4.1.2.2: at most 20 octets, positive).
  const b = randomBytes(16);
  b[0] = b[0]! & 0x7f;
  return b.toString('hex');
}

/** Generates a self-issued CA and a signing certificate (RSA 3072 / 2048, SHA-256) valid `years`. */
export function generateSigningIdentity(commonName = 'Sello document signing', years = 10): { p12: (password: string) => Buffer } {
  const mk = (bits: number) => generateKeyPairSync('rsa', { modulusLength: bits, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
  const caKeys = mk(3072);
  const leafKeys = mk(2048);
  const now = new Date();
  const until = new Date(now.getTime() + years * 365 * 86_400_000);
  const caAttrs = [{ name: 'commonName', value: `${commonName} CA` }, { name: 'organizationName', value: 'Sello (self-issued)' }];
  const ca = forge.pki.createCertificate();
  ca.publicKey = forge.pki.publicKeyFromPem(caKeys.publicKey);
  ca.serialNumber = serial();
  ca.validity.notBefore = new Date(now.getTime() - 60_000);
  ca.validity.notAfter = until;
  ca.setSubject(caAttrs);
  ca.setIssuer(caAttrs);
  ca.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  ca.sign(toForgeKey(caKeys.privateKey), forge.md.sha256.create());
  const leaf = forge.pki.createCertificate();
  leaf.publicKey = forge.pki.publicKeyFromPem(leafKeys.publicKey);
  leaf.serialNumber = serial();
  leaf.validity.notBefore = new Date(now.getTime() - 60_000);
  leaf.validity.notAfter = until;
  leaf.setSubject([{ name: 'commonName', value: commonName }, { name: 'organizationName', value: 'Sello (self-issued)' }]);
  leaf.setIssuer(caAttrs);
  leaf.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true, critical: true },
    { name: 'extKeyUsage', [DOC_SIGNING_EKU]: true },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
  ]);
  leaf.sign(toForgeKey(caKeys.privateKey), forge.md.sha256.create());
  return {
    p12: (password: string) => {
      const asn1 = forge.pkcs12.toPkcs12Asn1(toForgeKey(leafKeys.privateKey), [leaf, ca], password, { algorithm: 'aes256', friendlyName: commonName });
      return Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
    },
  };
}

/**
 * Reads a PKCS#12 (key + certificate chain).
 * @throws Error when the password is wrong or the file holds no key or no certificate matching it.
 */
export function parseP12(p12: Buffer, password: string): SigningIdentity {
  const asn1 = forge.asn1.fromDer(forge.util.createBuffer(p12.toString('binary')));
  const parsed = forge.pkcs12.pkcs12FromAsn1(asn1, false, password);
  const keyBags = [
    ...(parsed.getBags({ bagType: forge.pki.oids.pkcs8ShroudedKeyBag! })[forge.pki.oids.pkcs8ShroudedKeyBag!] ?? []),
    ...(parsed.getBags({ bagType: forge.pki.oids.keyBag! })[forge.pki.oids.keyBag!] ?? []),
  ];
  const key = keyBags[0]?.key as forge.pki.rsa.PrivateKey | undefined;
  if (!key) throw new Error('the PKCS#12 holds no private key');
  const certs = (parsed.getBags({ bagType: forge.pki.oids.certBag! })[forge.pki.oids.certBag!] ?? []).map((b) => b.cert!).filter(Boolean);
  const leaf = certs.find((c) => (c.publicKey as forge.pki.rsa.PublicKey).n.equals(key.n));
  if (!leaf) throw new Error('the PKCS#12 holds no certificate for its private key');
  const der = (c: forge.pki.Certificate) => Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(c)).getBytes(), 'binary');
  const pkcs8 = createPrivateKey(forge.pki.privateKeyToPem(key)).export({ type: 'pkcs8', format: 'der' });
  const certificate = der(leaf);
  return {
    certificate,
    chain: certs.filter((c) => c !== leaf).map(der),
    privateKeyPkcs8: pkcs8,
    certificateSha256: createHash('sha256').update(certificate).digest('hex'),
    subjectName: String(leaf.subject.getField('CN')?.value ?? 'Sello'),
  };
}

export interface SigningIdentityConfig {
  DATA_DIR: string;
  SIGNING_P12_PATH?: string | undefined;
  SIGNING_P12_PASSWORD?: string | undefined;
}

/**
 * The configured identity, or the embedded one (created now when absent; two processes starting at
 * once end with the same identity: the complete file is hard-linked into place, so the loser reads the winner's).
 * @throws Error when the configured PKCS#12 cannot be read or opened.
 */
export function loadSigningIdentity(config: SigningIdentityConfig): SigningIdentity {
  if (config.SIGNING_P12_PATH) return parseP12(readFileSync(config.SIGNING_P12_PATH), config.SIGNING_P12_PASSWORD ?? '');
  const dir = resolve(config.DATA_DIR);
  const password = loadOrCreateKeyFile(join(dir, 'signing-identity.key')).toString('hex');
  const file = join(dir, 'signing-identity.p12');
  try {
    return parseP12(readFileSync(file), password);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dirname(file), { recursive: true });
  // Written whole to a private temporary file, then hard-linked into place: the link either appears with
  // the complete file or fails with EEXIST (another process or worker thread won), never half-written.
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(tmp, generateSigningIdentity().p12(password), { mode: 0o600, flag: 'wx' });
  try {
    linkSync(tmp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(tmp);
  }
  return parseP12(readFileSync(file), password);
}
