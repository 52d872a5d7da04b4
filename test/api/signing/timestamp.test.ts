/**
 * PAdES B-T: with SIGNING_TSA_URL set, the CMS carries an RFC 3161 signature timestamp from a local TSA
 * (answering with `openssl ts -reply`); the token's imprint is the SHA-256 of the signature value and its
 * time is now; `openssl ts -verify` accepts it. A TSA that does not answer makes finalize 503
 * `timestamp_unavailable` (never the local clock), and the document stays `signed`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import * as pkijs from 'pkijs';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { haveValidators, linkOf, makePdf, pdfsig, readOutbox, waitFor } from '../../helpers/signing.ts';
import { createTestPki, haveOpenssl, type LocalService, type TestPki } from '../../helpers/efirma-pki.ts';
import { findSignatures, tstInfoOf } from '../../../domain/signing/pades.ts';

if (!haveOpenssl) console.log('skip: openssl is not installed (the local TSA needs `openssl ts`)');
let pki: TestPki;
let tsa: LocalService & { certPath: string };
let dir = '';

async function signedDocument(s: TestServer, key: string, email: string): Promise<string> {
  const form = new FormData();
  form.set('document', new Blob([new Uint8Array(await makePdf(1))], { type: 'application/pdf' }), 'ts.pdf');
  form.set('title', 'Timestamped');
  form.set('signers', JSON.stringify([{ email, name: 'Tess' }]));
  const id = ((await (await s.fetch('/v1/signing/documents', { method: 'POST', body: form, key })).json()) as any).data.document_id as string;
  await s.fetch(`/v1/signing/documents/${id}/send-invitations`, { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: '{}' });
  const mail = await waitFor(() => readOutbox(s.dataDir).find((m) => m.to.includes(email)), 15_000, 'invitation');
  const t = new URL(s.url + linkOf(mail)).searchParams.get('t')!;
  const r = await fetch(`${s.url}/sign/${id}/sign`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ t, consent: 'yes', method: 'typed', typed_name: 'Tess' }).toString() });
  expect(r.status).toBe(200);
  return id;
}

describe.skipIf(!haveOpenssl)('PAdES B-T with a local RFC 3161 TSA', () => {
  beforeAll(async () => {
    pki = createTestPki();
    dir = pki.dir;
    tsa = await pki.startTsa();
  });
  afterAll(async () => {
    await tsa?.stop();
    pki?.cleanup();
  });

  it('finalize embeds a signature timestamp whose imprint and time are right', async () => {
    const s = await startTestServer({ config: { WORKFLOW_POLL_MS: 20, SIGNING_TSA_URL: tsa.url } });
    try {
      const { key } = await s.tenantWithKey('pro');
      const id = await signedDocument(s, key, 'tess@example.com');
      const before = Date.now();
      const fin = await s.fetch(`/v1/signing/documents/${id}/finalize`, { method: 'POST', key });
      expect(fin.status).toBe(200);
      expect(tsa.requests()).toBe(3); // pdf, pdf_with_audit, certificate
      const pdf = Buffer.from(await (await s.fetch(`/v1/signing/documents/${id}/download`, { key })).arrayBuffer());
      const [sig] = findSignatures(pdf);
      const ci = pkijs.ContentInfo.fromBER(new Uint8Array(sig!.cms).buffer);
      const sd = new pkijs.SignedData({ schema: ci.content });
      const si = sd.signerInfos[0]!;
      const attr = si.unsignedAttrs!.attributes.find((a) => a.type === '1.2.840.113549.1.9.16.2.14')!;
      expect(attr).toBeTruthy();
      const token = new pkijs.ContentInfo({ schema: attr.values[0] });
      const info = tstInfoOf(token);
      const sigValue = Buffer.from(si.signature.valueBlock.valueHexView);
      expect(Buffer.from(info.messageImprint.hashedMessage.valueBlock.valueHexView).toString('hex')).toBe(createHash('sha256').update(sigValue).digest('hex'));
      expect(Math.abs(info.genTime.getTime() - before)).toBeLessThan(60_000);
      // openssl's own verdict on the token, against the TSA certificate.
      const tokenFile = join(dir, 'token.der');
      writeFileSync(tokenFile, Buffer.from(token.toSchema().toBER(false)));
      const v = spawnSync('openssl', ['ts', '-verify', '-in', tokenFile, '-token_in', '-digest', createHash('sha256').update(sigValue).digest('hex'), '-CAfile', tsa.certPath, '-untrusted', tsa.certPath], { encoding: 'utf8' });
      expect(`${v.stdout}${v.stderr}`).toContain('Verification: OK');
      if (haveValidators()) {
        const f = join(dir, 'bt.pdf');
        writeFileSync(f, pdf);
        const out = pdfsig(f);
        expect(out).toContain('Signature is Valid.');
        expect(out).toContain('Total document signed');
      }
      const verify = new FormData();
      verify.set('document', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'bt.pdf');
      const vr = (await (await s.fetch('/v1/signing/verify', { method: 'POST', body: verify, key })).json()) as any;
      expect(vr.data.timestamp).toBe(info.genTime.toISOString());
    } finally {
      await s.close();
    }
  }, 180_000);

  it('a TSA that does not answer fails finalize with 503; the document stays signed', async () => {
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', () => r()));
    const port = (dead.address() as { port: number }).port;
    await new Promise((r) => dead.close(r));
    const s = await startTestServer({ config: { WORKFLOW_POLL_MS: 20, SIGNING_TSA_URL: `http://127.0.0.1:${port}/tsa`, SIGNING_TSA_ATTEMPTS: 2, SIGNING_TSA_TIMEOUT_MS: 500 } });
    try {
      const { key } = await s.tenantWithKey('pro');
      const id = await signedDocument(s, key, 'tess2@example.com');
      const fin = await s.fetch(`/v1/signing/documents/${id}/finalize`, { method: 'POST', key });
      expect(fin.status).toBe(503);
      expect(fin.headers.get('retry-after')).toBe('30');
      expect(((await fin.json()) as any).error.code).toBe('timestamp_unavailable');
      const doc = (await (await s.fetch(`/v1/signing/documents/${id}`, { key })).json()) as any;
      expect(doc.data.status).toBe('signed');
    } finally {
      await s.close();
    }
  }, 180_000);
});
