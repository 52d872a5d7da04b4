/**
 * e.firma trust list and OCSP (issue 29), against the test PKI made with `openssl` (test/helpers/efirma-pki.ts):
 * path validation accepts the test SAT chain and refuses an impostor hierarchy with the very same names, an
 * expired certificate and one issued by a non-CA; OCSP against a local `openssl ocsp` responder answers good
 * and revoked (delegated or issuer-signed answers), unknown for a certificate missing from the CA's index, and
 * every unusable answer (stopped or slow responder, a responder the issuer did not authorize, junk, HTTP 500,
 * oversized) is `efirma_ocsp_unavailable`, never a status.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import * as pkijs from 'pkijs';
import { createTestPki, haveOpenssl, type TestPki, type TestSigner } from '../../helpers/efirma-pki.ts';
import { loadTrustList, verifyChain, type TrustList } from '../../../infra/signing/efirma/trust-list.ts';
import { checkOcsp, MAX_OCSP_RESPONSE_BYTES } from '../../../infra/signing/efirma/ocsp.ts';
import { SigningError } from '../../../domain/signing/errors.ts';

if (!haveOpenssl) console.log('skip: openssl is not installed (the test PKI and OCSP responder are the openssl CLI)');

async function codeOf(p: Promise<unknown>): Promise<{ code: string; status: number; details: Record<string, unknown> } | null> {
  try {
    await p;
    return null;
  } catch (e) {
    if (e instanceof SigningError) return { code: e.code, status: e.status, details: e.details };
    throw e;
  }
}

/** A throw-away HTTP server answering every request with `answer`. */
async function fakeResponder(answer: (res: import('node:http').ServerResponse) => void): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/ocsp`,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

describe.skipIf(!haveOpenssl)('e.firma trust list and OCSP', () => {
  let pki: TestPki;
  let impostor: TestPki;
  let trust: TrustList;
  let person: TestSigner;
  let revoked: TestSigner;
  let expired: TestSigner;
  let fake: TestSigner;
  const fast = { timeoutMs: 2_000, attempts: 1 };

  beforeAll(() => {
    pki = createTestPki();
    impostor = createTestPki();
    trust = loadTrustList([pki.trustListPath]);
    person = pki.makeSigner({ name: 'GUADALUPE PÉREZ LÓPEZ', rfc: 'PELG800101AB1', curp: 'PELG800101MDFRPD09' });
    revoked = pki.makeSigner({ name: 'TOMAS HERNANDEZ GARCIA', rfc: 'HEGT7610034S2', curp: 'HEGT761003MDFRNN09', company: { rfc: 'AAA010101AAA' } });
    expired = pki.makeSigner({ name: 'JUAN VENCIDO RUIZ', rfc: 'VERJ700101AB2', curp: 'VERJ700101HDFNZN01', expired: true });
    fake = impostor.makeSigner({ name: 'GUADALUPE PÉREZ LÓPEZ', rfc: 'PELG800101AB1', curp: 'PELG800101MDFRPD09' });
    pki.revoke(revoked);
  });
  afterAll(() => {
    pki?.cleanup();
    impostor?.cleanup();
  });

  it('loads the trust list from a PEM bundle or DER files, and refuses a file without certificates', () => {
    expect(trust.roots).toHaveLength(1);
    expect(trust.intermediates).toHaveLength(1);
    expect(trust.roots[0]!.equals(pki.rootDer)).toBe(true);
    expect(trust.intermediates[0]!.equals(pki.intermediateDer)).toBe(true);
    const rootCer = join(pki.dir, 'root.cer');
    const intCer = join(pki.dir, 'int.cer');
    writeFileSync(rootCer, pki.rootDer);
    writeFileSync(intCer, pki.intermediateDer);
    const fromDer = loadTrustList([rootCer, intCer]);
    expect(fromDer.roots[0]!.equals(pki.rootDer) && fromDer.intermediates[0]!.equals(pki.intermediateDer)).toBe(true);
    const junk = join(pki.dir, 'junk.pem');
    writeFileSync(junk, 'not a certificate');
    expect(() => loadTrustList([junk])).toThrow(/junk\.pem/);
    expect(() => loadTrustList([intCer])).toThrow(/no root/);
  });

  it('accepts the chain of a test FIEL: leaf, intermediate, root', async () => {
    const { chain, issuer } = await verifyChain(person.cer, trust, new Date());
    expect(chain).toHaveLength(3);
    expect(chain[0]!.equals(person.cer)).toBe(true);
    expect(chain[1]!.equals(pki.intermediateDer)).toBe(true);
    expect(chain[2]!.equals(pki.rootDer)).toBe(true);
    expect(issuer.equals(pki.intermediateDer)).toBe(true);
  });

  it('refuses an impostor hierarchy with the same names, an expired certificate, a time outside the CAs\' validity, and a non-CA issuer', async () => {
    // The impostor's CAs carry exactly the test SAT's names: only keys and signatures tell them apart.
    expect(pkijs.Certificate.fromBER(new Uint8Array(fake.cer).buffer).issuer.isEqual(pkijs.Certificate.fromBER(new Uint8Array(person.cer).buffer).issuer)).toBe(true);
    const imp = await codeOf(verifyChain(fake.cer, trust, new Date()));
    expect(String(imp?.details.reason)).toMatch(/certificate path/);
    expect(imp?.code).toBe('efirma_untrusted');
    expect(await codeOf(verifyChain(fake.cer, loadTrustList([impostor.trustListPath]), new Date()))).toBeNull();
    const exp = await codeOf(verifyChain(expired.cer, trust, new Date()));
    expect(exp).toMatchObject({ code: 'efirma_untrusted', status: 422 });
    expect((await codeOf(verifyChain(person.cer, trust, new Date(Date.now() + 20 * 365 * 86_400_000))))?.code).toBe('efirma_untrusted');
    // A certificate "issued" by the OCSP responder (CA:FALSE): names chain and the signature verifies, but the issuer is no CA.
    const o = (args: string[]) => execFileSync('openssl', args, { cwd: pki.dir, stdio: 'pipe' });
    o(['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'nonca-leaf.key', '-out', 'nonca-leaf.csr', '-subj', '/CN=FALSO/x500UniqueIdentifier=FALS800101AB1']);
    o(['x509', '-req', '-in', 'nonca-leaf.csr', '-CA', 'ocsp.crt', '-CAkey', 'ocsp.key', '-set_serial', '0x77', '-days', '30', '-outform', 'DER', '-out', 'nonca-leaf.cer']);
    const withResponder: TrustList = { roots: trust.roots, intermediates: [...trust.intermediates, pki.responderDer] };
    const nonCa = await codeOf(verifyChain(readFileSync(join(pki.dir, 'nonca-leaf.cer')), withResponder, new Date()));
    expect(String(nonCa?.details.reason)).toMatch(/not a CA/);
    expect(nonCa?.code).toBe('efirma_untrusted');
    // A trusted CA is not a signer's certificate.
    expect((await codeOf(verifyChain(pki.intermediateDer, trust, new Date())))?.code).toBe('efirma_untrusted');
    expect((await codeOf(verifyChain(Buffer.from('junk'), trust, new Date())))?.code).toBe('efirma_untrusted');
  });

  it('OCSP: good from the delegated responder, revoked with its time, good signed by the issuer itself', async () => {
    const ocsp = await pki.startOcsp();
    try {
      const good = await checkOcsp(person.cer, pki.intermediateDer, { url: ocsp.url, ...fast });
      expect(good.status).toBe('good');
      expect(good.revokedAt).toBeNull();
      expect(good.responderUrl).toBe(ocsp.url);
      expect(Math.abs(good.producedAt.getTime() - Date.now())).toBeLessThan(120_000);
      expect(good.thisUpdate.getTime()).toBeLessThanOrEqual(Date.now() + 5_000);
      expect(good.responderCertificates.some((c) => c.equals(pki.responderDer))).toBe(true);
      const parsed = pkijs.OCSPResponse.fromBER(new Uint8Array(good.responseDer).buffer);
      expect(parsed.responseStatus.valueBlock.valueDec).toBe(0);
      const bad = await checkOcsp(revoked.cer, pki.intermediateDer, { url: ocsp.url, ...fast });
      expect(bad.status).toBe('revoked');
      expect(bad.revokedAt).toBeInstanceOf(Date);
      expect(Math.abs(bad.revokedAt!.getTime() - Date.now())).toBeLessThan(10 * 60_000);
    } finally {
      await ocsp.stop();
    }
    const byIssuer = await pki.startOcsp({ signer: 'issuer' });
    try {
      expect((await checkOcsp(person.cer, pki.intermediateDer, { url: byIssuer.url, ...fast })).status).toBe('good');
      expect((await checkOcsp(revoked.cer, pki.intermediateDer, { url: byIssuer.url, ...fast })).status).toBe('revoked');
    } finally {
      await byIssuer.stop();
    }
  });

  it('OCSP: unknown for a certificate the CA database does not hold', async () => {
    const o = (args: string[]) => execFileSync('openssl', args, { cwd: pki.dir, stdio: 'pipe' });
    o(['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'stray.key', '-out', 'stray.csr', '-subj', '/CN=SIN REGISTRO/x500UniqueIdentifier=SIRE800101AB1']);
    o(['x509', '-req', '-in', 'stray.csr', '-CA', 'int.crt', '-CAkey', 'int.key', '-set_serial', '0x7777', '-days', '30', '-outform', 'DER', '-out', 'stray.cer']);
    const ocsp = await pki.startOcsp();
    try {
      expect((await checkOcsp(readFileSync(join(pki.dir, 'stray.cer')), pki.intermediateDer, { url: ocsp.url, ...fast })).status).toBe('unknown');
    } finally {
      await ocsp.stop();
    }
  });

  it('OCSP: a stopped responder is efirma_ocsp_unavailable (503) after every attempt, quickly', async () => {
    const ocsp = await pki.startOcsp();
    await ocsp.stop();
    const t0 = Date.now();
    const e = await codeOf(checkOcsp(person.cer, pki.intermediateDer, { url: ocsp.url, timeoutMs: 500, attempts: 2 }));
    expect(e).toMatchObject({ code: 'efirma_ocsp_unavailable', status: 503, details: { attempts: 2, url: ocsp.url } });
    expect(String(e!.details.reason)).toMatch(/could not be reached/);
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it('OCSP: a responder slower than the timeout is unavailable, not waited for', async () => {
    const slow = await pki.startOcsp({ delayMs: 3_000 });
    try {
      const t0 = Date.now();
      const e = await codeOf(checkOcsp(person.cer, pki.intermediateDer, { url: slow.url, timeoutMs: 300, attempts: 2 }));
      expect(e?.code).toBe('efirma_ocsp_unavailable');
      expect(String(e!.details.reason)).toMatch(/in time/);
      expect(Date.now() - t0).toBeLessThan(2_500);
    } finally {
      await slow.stop();
    }
  });

  it('OCSP: answers signed by a responder the issuer did not certify are refused, not trusted', async () => {
    const rogue = await pki.startOcsp({ signer: 'untrusted' });
    try {
      const e = await codeOf(checkOcsp(person.cer, pki.intermediateDer, { url: rogue.url, ...fast }));
      expect(e?.code).toBe('efirma_ocsp_unavailable');
      expect(String(e!.details.reason)).toMatch(/not authorized/);
      // The real responder's answer for another issuer (the impostor's CA) does not count either.
      const real = await pki.startOcsp();
      try {
        const e2 = await codeOf(checkOcsp(fake.cer, impostor.intermediateDer, { url: real.url, ...fast }));
        expect(e2?.code).toBe('efirma_ocsp_unavailable');
      } finally {
        await real.stop();
      }
    } finally {
      await rogue.stop();
    }
  });

  it('OCSP: a replayed answer (another request\'s nonce) is refused', async () => {
    const ocsp = await pki.startOcsp();
    let earlier: Buffer;
    try {
      earlier = (await checkOcsp(person.cer, pki.intermediateDer, { url: ocsp.url, ...fast })).responseDer;
    } finally {
      await ocsp.stop();
    }
    const replay = await fakeResponder((res) => res.writeHead(200, { 'content-type': 'application/ocsp-response' }).end(earlier));
    try {
      const e = await codeOf(checkOcsp(person.cer, pki.intermediateDer, { url: replay.url, ...fast }));
      expect(e?.code).toBe('efirma_ocsp_unavailable');
      expect(String(e!.details.reason)).toMatch(/nonce/);
    } finally {
      await replay.close();
    }
  });

  it('OCSP: junk, HTTP errors, an error status and oversized answers are unavailable', async () => {
    const cases: Array<[string, (res: import('node:http').ServerResponse) => void, RegExp]> = [
      ['junk', (res) => res.writeHead(200, { 'content-type': 'application/ocsp-response' }).end('definitely not DER'), /not one DER/],
      ['http 500', (res) => res.writeHead(500).end('boom'), /HTTP 500/],
      // OCSPResponse { responseStatus tryLater (3) }
      ['tryLater', (res) => res.writeHead(200, { 'content-type': 'application/ocsp-response' }).end(Buffer.from('30030a0103', 'hex')), /tryLater/],
      ['oversized', (res) => res.writeHead(200, { 'content-type': 'application/ocsp-response' }).end(Buffer.alloc(MAX_OCSP_RESPONSE_BYTES + 1)), /larger than/],
    ];
    for (const [name, answer, reason] of cases) {
      const f = await fakeResponder(answer);
      try {
        const e = await codeOf(checkOcsp(person.cer, pki.intermediateDer, { url: f.url, ...fast }));
        expect(e?.code, name).toBe('efirma_ocsp_unavailable');
        expect(String(e!.details.reason), name).toMatch(reason);
      } finally {
        await f.close();
      }
    }
  });
});
