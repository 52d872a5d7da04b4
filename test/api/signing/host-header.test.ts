/**
 * Issue 31 item 5: a forged `Host` header never reaches links. With `PUBLIC_BASE_URL` unset, the e-mailed
 * signing links, `signing_url`, `download_url`, `certificate_url`, the preview URL and the usage export's
 * `download_url` are on the address the server bound, or on an origin of the `PUBLIC_ORIGINS` allow-list
 * when the request names its host; never on `http://attacker.example`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { linkOf, makePdf, readOutbox, waitFor } from '../../helpers/signing.ts';
import { loadConfig } from '../../../apps/api/config.ts';

let s: TestServer;
let key: string;
let port: number;

beforeAll(async () => {
  s = await startTestServer({ config: { WORKFLOW_POLL_MS: 20, PUBLIC_ORIGINS: 'https://firma.example.mx, http://localhost:8080' } });
  ({ key } = await s.tenantWithKey('pro'));
  port = Number(new URL(s.url).port);
});
afterAll(async () => {
  await s?.close();
});

/** One HTTP call with the `Host` header of our choosing (fetch may not set it). */
function call(method: string, path: string, host: string, body?: unknown, auth = true): Promise<{ status: number; body: any }> {
  const data = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: {
          host,
          ...(auth ? { authorization: `Bearer ${key}` } : {}),
          ...(data ? { 'content-type': 'application/json', 'content-length': String(data.length) } : {}),
          'x-forwarded-host': 'attacker.example',
          'x-forwarded-proto': 'https',
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

async function createAndSend(host: string, email: string) {
  const pdf = await makePdf(1);
  const r = await call('POST', '/v1/signing/create', host, { document: pdf.toString('base64'), title: 'Contrato', signers: [{ email, name: 'Ana' }] });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data as { document_id: string; signing_url: string };
}

describe('links come from configuration, never from Host (issue 31 item 5)', () => {
  it('a forged Host gets links on the bound address: answers, the e-mailed link, preview, download and certificate', async () => {
    const doc = await createAndSend('attacker.example', 'ana@example.com');
    expect(doc.signing_url).toBe(`${s.url}/sign/${doc.document_id}`);

    const mail = await waitFor(() => readOutbox(s.dataDir).find((m) => m.raw.includes(doc.document_id)), 15_000, 'invitation');
    expect(mail.body).not.toContain('attacker.example');
    const link = linkOf(mail);
    expect(mail.body).toContain(`${s.url}${link}`);

    const got = await call('GET', `/v1/signing/documents/${doc.document_id}`, 'attacker.example:8443');
    expect(got.body.data.signing_url).toBe(`${s.url}/sign/${doc.document_id}`);
    const preview = await call('GET', `/v1/signing/documents/${doc.document_id}/public-preview`, 'attacker.example');
    expect(preview.status).toBe(200);
    expect(preview.body.data.preview_url.startsWith(`${s.url}/sign/preview/${doc.document_id}?`)).toBe(true);

    // Sign through the e-mailed link, then finalize with the forged Host.
    const t = new URL(s.url + link).searchParams.get('t')!;
    const signed = await fetch(`${s.url}/sign/${doc.document_id}/sign`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ t, consent: 'yes', method: 'typed', typed_name: 'Ana' }).toString() });
    expect(signed.status).toBe(200);
    const fin = await call('POST', `/v1/signing/documents/${doc.document_id}/finalize`, 'attacker.example');
    expect(fin.status, JSON.stringify(fin.body)).toBe(200);
    expect(fin.body.data.download_url).toBe(`${s.url}/v1/signing/documents/${doc.document_id}/download`);
    expect(fin.body.data.certificate_url).toBe(`${s.url}/v1/signing/documents/${doc.document_id}/certificate`);
    const after = await call('GET', `/v1/signing/documents/${doc.document_id}`, 'attacker.example');
    expect(JSON.stringify(after.body)).not.toContain('attacker.example');
  });

  it('an allow-listed host gets its configured origin (scheme and port from configuration)', async () => {
    const doc = await createAndSend('FIRMA.example.mx', 'beto@example.com');
    expect(doc.signing_url).toBe(`https://firma.example.mx/sign/${doc.document_id}`);
    const mail = await waitFor(() => readOutbox(s.dataDir).find((m) => m.raw.includes(doc.document_id)), 15_000, 'invitation');
    expect(mail.body).toContain(`https://firma.example.mx${linkOf(mail)}`);
    // The same host on another port is not on the list.
    expect((await createAndSend('firma.example.mx:9999', 'carla@example.com')).signing_url.startsWith(`${s.url}/`)).toBe(true);
    expect((await createAndSend('localhost:8080', 'dora@example.com')).signing_url.startsWith('http://localhost:8080/sign/')).toBe(true);
  });

  it("a usage export's download_url is on the bound address whatever Host says", async () => {
    const today = new Date(s.ctx.clock.now()).toISOString().slice(0, 10);
    const created = await call('POST', '/v1/usage/export', 'attacker.example', { format: 'csv', start_date: today, end_date: today });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const done = await waitFor(async () => {
      const r = await call('GET', `/v1/usage/export/${created.body.export_id}`, 'attacker.example');
      return r.body.status === 'completed' ? r.body : null;
    }, 30_000, 'export completed');
    expect(done.download_url.startsWith(`${s.url}/v1/usage/export/${created.body.export_id}/download?`)).toBe(true);
    expect((await fetch(done.download_url)).status).toBe(200);
  });

  it('refuses to start with a PUBLIC_ORIGINS entry that is not an origin', () => {
    for (const bad of ['attacker.example', 'ftp://x.example', 'https://x.example/path', 'https://u:p@x.example']) {
      expect(() => loadConfig({}, { PUBLIC_ORIGINS: bad })).toThrow(/PUBLIC_ORIGINS/);
    }
    expect([...loadConfig({}, { PUBLIC_ORIGINS: 'https://Firma.Example.mx:443/, http://a.example:81' }).PUBLIC_ORIGINS]).toEqual([
      ['firma.example.mx', 'https://firma.example.mx'],
      ['a.example:81', 'http://a.example:81'],
    ]);
  });
});
