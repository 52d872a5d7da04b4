/** The embedded PAdES signing identity: generated once, kept encrypted, shared by concurrent loaders. */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { loadSigningIdentity, parseP12 } from '../../infra/secrets/signing-identity.ts';

describe('signing identity', () => {
  it('is generated once into DATA_DIR, encrypted, mode 0600, and reused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sello-id-'));
    const a = loadSigningIdentity({ DATA_DIR: dir });
    const b = loadSigningIdentity({ DATA_DIR: dir });
    expect(b.certificateSha256).toBe(a.certificateSha256);
    expect(a.chain).toHaveLength(1);
    const cert = new X509Certificate(a.certificate);
    const ca = new X509Certificate(a.chain[0]!);
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.subject).toContain('CN=Sello document signing');
    expect(ca.ca).toBe(true);
    const p12 = join(dir, 'signing-identity.p12');
    expect(statSync(p12).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'signing-identity.key')).mode & 0o777).toBe(0o600);
    // The PKCS#12 does not open without the key file's password.
    expect(() => parseP12(readFileSync(p12), 'wrong password')).toThrow();
    const password = readFileSync(join(dir, 'signing-identity.key'), 'utf8').trim();
    expect(parseP12(readFileSync(p12), password).certificateSha256).toBe(a.certificateSha256);
    // No PEM private key lies in clear in the data directory.
    expect(readFileSync(p12).toString('latin1')).not.toContain('PRIVATE KEY');
  });

  it('reads an operator-supplied PKCS#12', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sello-id-'));
    const embedded = loadSigningIdentity({ DATA_DIR: dir });
    const password = readFileSync(join(dir, 'signing-identity.key'), 'utf8').trim();
    const other = loadSigningIdentity({ DATA_DIR: mkdtempSync(join(tmpdir(), 'sello-id-')), SIGNING_P12_PATH: join(dir, 'signing-identity.p12'), SIGNING_P12_PASSWORD: password });
    expect(other.certificateSha256).toBe(embedded.certificateSha256);
    expect(() => loadSigningIdentity({ DATA_DIR: dir, SIGNING_P12_PATH: join(dir, 'signing-identity.p12'), SIGNING_P12_PASSWORD: 'nope' })).toThrow();
  });
});
