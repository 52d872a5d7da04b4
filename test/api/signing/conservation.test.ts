/**
 * NOM-151 conservation record (issue 29 item 5), over HTTP: with CONSERVATION_TSA_URL set, finalize
 * time-stamps the SHA-256 of the final PDF at a local RFC 3161 TSA (`openssl ts -reply`);
 * the token is downloadable (`GET /v1/signing/documents/{id}/conservation`), `openssl ts -verify` accepts it
 * against the final PDF's digest, and `/v1/signing/verify` reports it valid for that file and not for a changed
 * one. With the provider down, finalize answers 503 `conservation_unavailable` with Retry-After, records nothing
 * and leaves no file; once the provider is back the same document finalizes. A blocked document (erasure
 * request, docs/privacy.md) serves its token to admin keys only, each download recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { linkOf, makePdf, readOutbox, waitFor } from '../../helpers/signing.ts';

const haveOpenssl = spawnSync('openssl', ['version']).status === 0;
if (!haveOpenssl) console.log('skip: openssl is not installed (the local TSA needs `openssl ts`)');
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** A throw-away RFC 3161 TSA: a self-signed time-stamping certificate and `openssl ts -reply` per request. */
function makeTsa(dir: string): { certPath: string; reply(query: Buffer): Promise<Buffer> } {
  const o = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  o(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'tsa.key', '-out', 'tsa.crt', '-days', '2', '-subj', '/CN=Sello test TSA',
    '-addext', 'extendedKeyUsage=critical,timeStamping', '-addext', 'basicConstraints=CA:FALSE', '-addext', 'keyUsage=critical,digitalSignature']);
  writeFileSync(join(dir, 'serial'), '01\n');
  writeFileSync(join(dir, 'tsa.cnf'), `[ tsa ]\ndefault_tsa = tsa1\n[ tsa1 ]\ndir = ${dir}\nserial = $dir/serial\ncrypto_device = builtin\nsigner_cert = $dir/tsa.crt\nsigner_key = $dir/tsa.key\nsigner_digest = sha256\ndefault_policy = 1.2.3.4.1\ndigests = sha256, sha384, sha512\naccuracy = secs:1\nordering = no\ntsa_name = no\ness_cert_id_chain = no\ness_cert_id_alg = sha256\ncerts = $dir/tsa.crt\n`);
  let n = 0;
  return {
    certPath: join(dir, 'tsa.crt'),
    async reply(query) {
      n += 1;
      const q = join(dir, `q${n}.tsq`);
      const r = join(dir, `r${n}.tsr`);
      writeFileSync(q, query);
      await new Promise<void>((resolve, reject) => execFile('openssl', ['ts', '-reply', '-config', join(dir, 'tsa.cnf'), '-queryfile', q, '-out', r], { cwd: dir }, (e) => (e ? reject(e) : resolve())));
      return readFileSync(r);
    },
  };
}

/**
 * The provider: an HTTP front on a fixed port answering with the TSA, that can be taken down (the port then
 * refuses connections) and brought back on the same port, as a provider's outage looks to the API.
 */
class Provider {
  private server: Server | null = null;
  port = 0;
  requests = 0;
  constructor(private readonly tsa: ReturnType<typeof makeTsa>) {}
  get url(): string {
    return `http://127.0.0.1:${this.port}/tsa`;
  }
  async up(): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.requests++;
        this.tsa
          .reply(Buffer.concat(chunks))
          .then((b) => res.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(b))
          .catch(() => res.writeHead(500).end());
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', () => resolve()));
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }
  async down(): Promise<void> {
    const s = this.server;
    this.server = null;
    s?.closeAllConnections();
    await new Promise((r) => (s ? s.close(r) : r(undefined)));
  }
}

async function signedDocument(s: TestServer, key: string, email: string): Promise<string> {
  const form = new FormData();
  form.set('document', new Blob([new Uint8Array(await makePdf(1))], { type: 'application/pdf' }), 'nom151.pdf');
  form.set('title', 'Contrato de arrendamiento');
  form.set('signers', JSON.stringify([{ email, name: 'Tess' }]));
  const id = ((await (await s.fetch('/v1/signing/documents', { method: 'POST', body: form, key })).json()) as any).data.document_id as string;
  await s.fetch(`/v1/signing/documents/${id}/send-invitations`, { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: '{}' });
  const mail = await waitFor(() => readOutbox(s.dataDir).find((m) => m.to.includes(email)), 15_000, 'invitation');
  const t = new URL(s.url + linkOf(mail)).searchParams.get('t')!;
  const r = await fetch(`${s.url}/sign/${id}/sign`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ t, consent: 'yes', method: 'typed', typed_name: 'Tess' }).toString() });
  expect(r.status).toBe(200);
  return id;
}

async function verify(s: TestServer, key: string, pdf: Buffer): Promise<any> {
  const form = new FormData();
  form.set('document', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'v.pdf');
  const r = await s.fetch('/v1/signing/verify', { method: 'POST', body: form, key });
  expect(r.status).toBe(200);
  return ((await r.json()) as any).data;
}

describe.skipIf(!haveOpenssl)('NOM-151 conservation record', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sello-nom151-'));
  let tsa: ReturnType<typeof makeTsa>;
  let provider: Provider;
  let s: TestServer;

  beforeAll(async () => {
    tsa = makeTsa(dir);
    provider = new Provider(tsa);
    await provider.up();
    s = await startTestServer({ config: { WORKFLOW_POLL_MS: 20, CONSERVATION_TSA_URL: provider.url, CONSERVATION_TSA_ATTEMPTS: 2, CONSERVATION_TSA_TIMEOUT_MS: 1000 } });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    await provider?.down();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finalize records a token over the final PDF: downloadable, accepted by openssl ts -verify, valid in verify; a flipped byte is not', async () => {
    const { key } = await s.tenantWithKey('pro');
    const id = await signedDocument(s, key, 'tess@example.com');
    const before409 = await s.fetch(`/v1/signing/documents/${id}/conservation`, { key });
    expect(before409.status).toBe(409);
    expect(((await before409.json()) as any).error.code).toBe('invalid_document_status');

    const t0 = Date.now();
    const asked = provider.requests;
    const fin = await s.fetch(`/v1/signing/documents/${id}/finalize`, { method: 'POST', key });
    expect(fin.status).toBe(200);
    const f = ((await fin.json()) as any).data;
    expect(provider.requests - asked).toBe(1);
    expect(f.conservation.url).toMatch(new RegExp(`/v1/signing/documents/${id}/conservation$`));
    expect(f.conservation.tsa_url).toBe(provider.url);
    expect(Math.abs(Date.parse(f.conservation.gen_time) - t0)).toBeLessThan(60_000);

    const pdf = Buffer.from(await (await s.fetch(`/v1/signing/documents/${id}/download`, { key })).arrayBuffer());
    expect(sha256(pdf)).toBe(f.final_sha256);
    const res = await s.fetch(`/v1/signing/documents/${id}/conservation`, { key });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pkcs7-mime');
    expect(res.headers.get('content-disposition')).toContain(`${id}-conservation.tst`);
    const token = Buffer.from(await res.arrayBuffer());
    expect(sha256(token)).toBe(f.conservation.token_sha256);

    // openssl's verdict: the token time-stamps the final PDF's SHA-256 and chains to the TSA certificate.
    const tokenFile = join(dir, `${id}.tst`);
    writeFileSync(tokenFile, token);
    const ok = spawnSync('openssl', ['ts', '-verify', '-digest', sha256(pdf), '-in', tokenFile, '-token_in', '-CAfile', tsa.certPath, '-untrusted', tsa.certPath], { encoding: 'utf8' });
    expect(`${ok.stdout}${ok.stderr}`).toContain('Verification: OK');
    const otherDigest = sha256(Buffer.concat([pdf, Buffer.from('x')]));
    const bad = spawnSync('openssl', ['ts', '-verify', '-digest', otherDigest, '-in', tokenFile, '-token_in', '-CAfile', tsa.certPath, '-untrusted', tsa.certPath], { encoding: 'utf8' });
    expect(`${bad.stdout}${bad.stderr}`).not.toContain('Verification: OK');

    const v = await verify(s, key, pdf);
    expect(v.unmodified).toBe(true);
    expect(v.conservation).toEqual({ present: true, valid: true, gen_time: f.conservation.gen_time, tsa: 'Sello test TSA', tsa_url: provider.url, token_sha256: f.conservation.token_sha256, error: null });

    // One flipped byte inside the signed content: the seal no longer verifies, the file still names the
    // document, and the token does not time-stamp this file.
    const flipped = Buffer.from(pdf);
    const at = pdf.indexOf('stream\n') + 20;
    flipped[at] = flipped[at]! ^ 0x01;
    const vf = await verify(s, key, flipped);
    expect(vf.signature_valid).toBe(false);
    expect(vf.claimed_document_id).toBe(id);
    expect(vf.conservation.present).toBe(true);
    expect(vf.conservation.valid).toBe(false);
    expect(vf.conservation.error).toMatch(/imprint/);

    // The file with the audit pages is another file: its verification carries no conservation verdict.
    const withAudit = Buffer.from(await (await s.fetch(`/v1/signing/documents/${id}/download?format=pdf_with_audit`, { key })).arrayBuffer());
    expect((await verify(s, key, withAudit)).conservation).toBeNull();

    // Tenant-scoped: another account's key does not see it.
    const other = await s.tenantWithKey('pro');
    const foreign = await s.fetch(`/v1/signing/documents/${id}/conservation`, { key: other.key });
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as any).error.code).toBe('document_not_found');
    expect((await verify(s, other.key, pdf)).conservation).toBeNull();
  }, 180_000);

  it('provider down: 503 conservation_unavailable with Retry-After, nothing recorded or left; finalizes once it is back', async () => {
    const { key, tenantId } = await s.tenantWithKey('pro');
    const id = await signedDocument(s, key, 'tess2@example.com');
    await provider.down();
    try {
      const fin = await s.fetch(`/v1/signing/documents/${id}/finalize`, { method: 'POST', key });
      expect(fin.status).toBe(503);
      expect(fin.headers.get('retry-after')).toBe('30');
      const body = (await fin.json()) as any;
      expect(body.error.code).toBe('conservation_unavailable');
      expect(body.error.details.attempts).toBe(2);
      const doc = (await (await s.fetch(`/v1/signing/documents/${id}`, { key })).json()) as any;
      expect(doc.data.status).toBe('signed');
      expect(doc.data.audit_trail.map((a: any) => a.event)).not.toContain('document_finalized');
      const files = await s.ctx.blobs.list(`signing/${tenantId}/${id}/`);
      expect(files.filter((k) => /\/(final-|conservation-)/.test(k))).toEqual([]);
    } finally {
      await provider.up();
    }
    // The claim was released: the document finalizes at once when the provider answers again.
    const again = await s.fetch(`/v1/signing/documents/${id}/finalize`, { method: 'POST', key });
    expect(again.status).toBe(200);
    const f = ((await again.json()) as any).data;
    const token = await s.fetch(`/v1/signing/documents/${id}/conservation`, { key });
    expect(token.status).toBe(200);
    expect(sha256(Buffer.from(await token.arrayBuffer()))).toBe(f.conservation.token_sha256);
    const files = await s.ctx.blobs.list(`signing/${tenantId}/${id}/`);
    expect(files.filter((k) => /\/conservation-/.test(k))).toHaveLength(1);
  }, 180_000);

  it('a document finalized without a provider has no record: 404 conservation_not_found, verify says not present', async () => {
    const plain = await startTestServer({ config: { WORKFLOW_POLL_MS: 20 } });
    try {
      const { key } = await plain.tenantWithKey('pro');
      const id = await signedDocument(plain, key, 'tess3@example.com');
      const fin = await plain.fetch(`/v1/signing/documents/${id}/finalize`, { method: 'POST', key });
      expect(fin.status).toBe(200);
      expect(((await fin.json()) as any).data.conservation).toBeNull();
      const r = await plain.fetch(`/v1/signing/documents/${id}/conservation`, { key });
      expect(r.status).toBe(404);
      expect(((await r.json()) as any).error.code).toBe('conservation_not_found');
      const pdf = Buffer.from(await (await plain.fetch(`/v1/signing/documents/${id}/download`, { key })).arrayBuffer());
      expect((await verify(plain, key, pdf)).conservation).toEqual({ present: false, valid: false, gen_time: null, tsa: null, tsa_url: null, token_sha256: null, error: null });
    } finally {
      await plain.close();
    }
  }, 180_000);
  it('a document blocked by an erasure request: its token goes to admin keys only, each download recorded', async () => {
    const tenant = await s.createTenant('enterprise');
    const admin = await s.createKey(tenant, ['read', 'write', 'admin']);
    const reader = (await s.createKey(tenant, ['read', 'write'])).key;
    const put = await s.fetch('/v1/privacy/retention', { method: 'PUT', key: admin.key, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ signed_documents_days: 30 }) });
    expect(put.status).toBe(200);
    const email = 'eva.nom151@example.com';
    const id = await signedDocument(s, admin.key, email);
    expect((await s.fetch(`/v1/signing/documents/${id}/finalize`, { method: 'POST', key: admin.key })).status).toBe(200);
    const er = await s.fetch('/v1/privacy/erasures', { method: 'POST', key: admin.key, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
    expect(er.status).toBe(202);
    const refused = await s.fetch(`/v1/signing/documents/${id}/conservation`, { key: reader });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as any).error.code).toBe('document_blocked');
    const ok = await s.fetch(`/v1/signing/documents/${id}/conservation`, { key: admin.key });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('application/pkcs7-mime');
    const doc = (await (await s.fetch(`/v1/signing/documents/${id}`, { key: admin.key })).json()) as any;
    expect(doc.data.blocked.downloads.map((d: any) => [d.file, d.key_id])).toEqual([['conservation', admin.keyId]]);
  }, 180_000);
});
