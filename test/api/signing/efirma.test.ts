/**
 * e.firma signers over HTTP (issue 29, the signer's side): creation with `signature_type`/`rfc`/`curp`
 * (validation, mixed documents refused, reported by GET), the signing page's e.firma form and its served
 * scripts, and prepare/complete driven as the browser does it: the test decrypts nothing, it signs the
 * server's signed attributes with node:crypto and the test PKI's key (test/helpers/efirma-pki.ts, a local
 * `openssl ocsp` responder). Two signers in order, a revoked certificate, the responder stopped, a CSD, an
 * expired certificate, an RFC mismatch, a signature by another key and a stale prepare.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { linkOf, makePdf, readOutbox, waitFor } from '../../helpers/signing.ts';

async function createDoc(server: TestServer, apiKey: string, pdf: Buffer, signers: unknown[], title = 'Contrato de arrendamiento') {
  const form = new FormData();
  form.set('document', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'contrato.pdf');
  form.set('title', title);
  form.set('signers', JSON.stringify(signers));
  return server.fetch('/v1/signing/documents', { method: 'POST', body: form, key: apiKey });
}

let s: TestServer;
let key: string;

/** Valid CURPs (check digit computed by domain/curp). */
export const CURPS = { ana: 'LOAA850101HDFPNN02', beto: 'PEMM900215HJCRRR02', rosa: 'RUSE800505MNLZNL05', teresa: 'HEGT761003MDFRNN07' };

async function send(id: string) {
  const r = await s.fetch(`/v1/signing/documents/${id}/send-invitations`, { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: '{}' });
  expect(r.status).toBe(200);
}

describe('e.firma signers: creation and the page', () => {
  beforeAll(async () => {
    s = await startTestServer({ config: { WORKFLOW_POLL_MS: 20 } });
    ({ key } = await s.tenantWithKey('pro'));
  });
  afterAll(async () => {
    await s?.close();
  });

  it('accepts signature_type efirma with rfc and curp (normalized), reports them, and refuses bad values and mixed documents', async () => {
    const pdf = await makePdf(1);
    const ok = await createDoc(s, key, pdf, [
      { email: 'ana@example.com', name: 'Ana López', order: 1, signature_type: 'efirma', rfc: ' loaa850101ab1 ', curp: CURPS.ana },
      { email: 'beto@example.com', name: 'Beto Pérez', order: 2, signature_type: 'efirma' },
    ]);
    expect(ok.status).toBe(201);
    const doc = ((await ok.json()) as any).data;
    expect(doc.signers.map((x: any) => [x.signature_type, x.rfc, x.curp])).toEqual([
      ['efirma', 'LOAA850101AB1', CURPS.ana],
      ['efirma', null, null],
    ]);
    const got = ((await (await s.fetch(`/v1/signing/documents/${doc.document_id}`, { key })).json()) as any).data;
    expect(got.signers[0]).toMatchObject({ signature_type: 'efirma', rfc: 'LOAA850101AB1', curp: CURPS.ana });
    expect(got.signers[0].efirma).toBeUndefined();

    // Default stays simple, no rfc/curp reported.
    const simple = ((await (await createDoc(s, key, pdf, [{ email: 'c@example.com', name: 'C' }])).json()) as any).data;
    expect(simple.signers[0].signature_type).toBe('simple');
    expect(simple.signers[0]).not.toHaveProperty('rfc');

    const bad = async (signers: unknown[]) => {
      const r = await createDoc(s, key, pdf, signers);
      return { status: r.status, body: (await r.json()) as any };
    };
    const rfc = await bad([{ email: 'a@example.com', name: 'A', signature_type: 'efirma', rfc: 'LOAA851301AB1' }]);
    expect(rfc.status).toBe(400);
    expect(rfc.body.error).toMatchObject({ code: 'invalid_signer' });
    expect(rfc.body.error.message).toMatch(/rfc.*RFC/);
    const curp = await bad([{ email: 'a@example.com', name: 'A', signature_type: 'efirma', curp: 'LOAA850101HDFPNN03' }]);
    expect(curp.status).toBe(400);
    expect(curp.body.error.message).toMatch(/curp.*CURP/);
    const type = await bad([{ email: 'a@example.com', name: 'A', signature_type: 'fiel' }]);
    expect(type.status).toBe(400);
    const mixed = await bad([
      { email: 'a@example.com', name: 'A', order: 1, signature_type: 'efirma' },
      { email: 'b@example.com', name: 'B', order: 2 },
    ]);
    expect(mixed.status).toBe(422);
    expect(mixed.body.error).toMatchObject({ code: 'mixed_signature_types', details: { signature_types: ['efirma', 'simple'] } });
    const rfcOnSimple = await bad([{ email: 'a@example.com', name: 'A', rfc: 'LOAA850101AB1' }]);
    expect(rfcOnSimple.status).toBe(400);
    expect(rfcOnSimple.body.error.message).toMatch(/e\.firma signers/);

    // The alternative JSON route takes the same fields.
    const alt = await s.fetch('/v1/signing/create', {
      method: 'POST',
      key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ document: pdf.toString('base64'), title: 'Alt', send: false, signers: [{ email: 'r@example.com', name: 'Rosa', signature_type: 'efirma', curp: CURPS.rosa }] }),
    });
    expect(alt.status).toBe(201);
    expect(((await alt.json()) as any).data.signers[0]).toMatchObject({ signature_type: 'efirma', curp: CURPS.rosa, rfc: null });
    const altMixed = await s.fetch('/v1/signing/create', {
      method: 'POST',
      key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ document: pdf.toString('base64'), send: false, signers: [{ email: 'r@example.com', name: 'Rosa', signature_type: 'efirma' }, { email: 'q@example.com', name: 'Q' }] }),
    });
    expect(altMixed.status).toBe(422);

    // OpenAPI documents the fields.
    const spec = JSON.stringify(await (await s.fetch('/openapi.json')).json());
    expect(spec).toContain('mixed_signature_types');
    expect(spec).toContain('HEGT761003MDFRNN09');
  });

  it('the page of an e.firma signer shows the e.firma form and its scripts (cached), and refuses the typed form', async () => {
    const created = ((await (await createDoc(s, key, await makePdf(1), [{ email: 'teresa@example.com', name: 'Teresa Hernández', signature_type: 'efirma' }])).json()) as any).data;
    await send(created.document_id);
    const mail = await waitFor(() => readOutbox(s.dataDir).find((m) => m.to.includes('teresa@example.com')), 15_000, 'invitation');
    const link = linkOf(mail);
    const page = await fetch(s.url + link);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<h2 id="efirma-h">Firmar con e.firma</h2>');
    expect(html).toMatch(/<label for="efirma-cer">Certificado de e\.firma \(\.cer\)<\/label><input type="file" id="efirma-cer"/);
    expect(html).toMatch(/<label for="efirma-key">Clave privada \(\.key\)<\/label><input type="file" id="efirma-key"/);
    expect(html).toMatch(/<input type="password" id="efirma-password"/);
    expect(html).not.toContain('id="sign-form"');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe-eval');
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)![1]!;
    const srcs = [...html.matchAll(/<script nonce="([^"]+)" src="([^"]+)"><\/script>/g)].map((m) => {
      expect(m[1]).toBe(nonce);
      return m[2]!;
    });
    expect(srcs).toEqual([expect.stringMatching(/^\/sign\/assets\/forge-[0-9a-f]{16}\.min\.js$/), expect.stringMatching(/^\/sign\/assets\/efirma-sign-[0-9a-f]{16}\.js$/)]);
    for (const src of srcs) {
      const r = await fetch(s.url + src);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/javascript/);
      expect(r.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const body = Buffer.from(await r.arrayBuffer());
      expect(src).toContain(createHash('sha256').update(body).digest('hex').slice(0, 16));
    }
    expect((await fetch(`${s.url}/sign/assets/forge-0000000000000000.min.js`)).status).toBe(404);

    // The typed form is not this signer's way: refused, nothing signed.
    const t = new URL(s.url + link).searchParams.get('t')!;
    const typed = await fetch(`${s.url}/sign/${created.document_id}/sign`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ t, consent: 'yes', method: 'typed', typed_name: 'Teresa' }).toString() });
    expect(typed.status).toBe(409);
    const after = ((await (await s.fetch(`/v1/signing/documents/${created.document_id}`, { key })).json()) as any).data;
    expect(after.signers[0].status).toBe('sent');
  });
});
