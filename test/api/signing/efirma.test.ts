/**
 * e.firma signers over HTTP (issue 29, the signer's side): creation with `signature_type`/`rfc`/`curp`
 * (validation, mixed documents refused, reported by GET), the signing page's e.firma form and its served
 * scripts, and prepare/complete driven as the browser does it: the test decrypts nothing, it signs the
 * server's signed attributes with node:crypto and the test PKI's key (test/helpers/efirma-pki.ts, a local
 * `openssl ocsp` responder). Two signers in order, a revoked certificate, the responder stopped, a CSD, an
 * expired certificate, an RFC mismatch, a signature by another key and a stale prepare.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, createPrivateKey, sign as cryptoSign } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { haveValidators, linkOf, makePdf, pdfsig, qpdfCheck, readOutbox, waitFor } from '../../helpers/signing.ts';
import { createTestPki, haveOpenssl, type LocalService, type TestPki, type TestSigner } from '../../helpers/efirma-pki.ts';
import { documentStream, foldDocument } from '../../../domain/signing/document.ts';

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
    expect(await typed.text()).toContain('Este documento se firma con e.firma');
    const after = ((await (await s.fetch(`/v1/signing/documents/${created.document_id}`, { key })).json()) as any).data;
    expect(after.signers[0].status).toBe('sent');

    // The JSON routes: documented in OpenAPI, a malformed body is a structured 400, and without a trust list 503.
    const spec = (await (await s.fetch('/openapi.json')).json()) as any;
    expect(Object.keys(spec.paths)).toEqual(expect.arrayContaining(['/sign/{document_id}/efirma/prepare', '/sign/{document_id}/efirma/complete']));
    const malformed = await fetch(`${s.url}/sign/${created.document_id}/efirma/complete`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ t }) });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as any).success).toBe(false);
    const unconfigured = await fetch(`${s.url}/sign/${created.document_id}/efirma/prepare`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ t, certificate: 'MAA=' }) });
    expect(unconfigured.status).toBe(503);
    expect(((await unconfigured.json()) as any).error.code).toBe('efirma_not_configured');
  });

  it('an English document says "Sign with e.firma"; the e.firma routes count against the public rate limit', async () => {
    const limited = await startTestServer({ config: { WORKFLOW_POLL_MS: 20, PUBLIC_RATE_LIMIT_PER_ADDRESS: 4 } });
    try {
      const { key: k } = await limited.tenantWithKey('pro');
      const form = new FormData();
      form.set('document', new Blob([new Uint8Array(await makePdf(1))], { type: 'application/pdf' }), 'contract.pdf');
      form.set('title', 'Loan agreement');
      form.set('language', 'en');
      form.set('signers', JSON.stringify([{ email: 'liz@example.com', name: 'Liz Doe', signature_type: 'efirma' }]));
      const id = ((await (await limited.fetch('/v1/signing/documents', { method: 'POST', body: form, key: k })).json()) as any).data.document_id as string;
      expect((await limited.fetch(`/v1/signing/documents/${id}/send-invitations`, { method: 'POST', key: k, headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(200);
      const link = linkOf(await waitFor(() => readOutbox(limited.dataDir).find((m) => m.to.includes('liz@example.com')), 15_000, 'invitation'));
      const html = await (await fetch(limited.url + link)).text();
      expect(html).toContain('<h2 id="efirma-h">Sign with e.firma</h2>');
      expect(html).toContain('<label for="efirma-key">Private key (.key)</label>');
      expect(html).toContain('The password does not open your private key.');
      const t = new URL(limited.url + link).searchParams.get('t')!;
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const r = await fetch(`${limited.url}/sign/${id}/efirma/prepare`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ t, certificate: 'MAA=' }) });
        statuses.push(r.status);
        if (r.status === 429) expect(((await r.json()) as any).error.code).toBe('rate_limit_exceeded');
      }
      // The page itself was the first request of the minute: three more pass the limiter, the fourth is refused.
      expect(statuses).toEqual([503, 503, 503, 429]);
    } finally {
      await limited.close();
    }
  });
});

/** What the browser does with the server's signed attributes: RSASSA-PKCS1-v1_5 SHA-256 with the decrypted `.key`. */
export function browserSign(signer: TestSigner, signedAttributesB64: string): string {
  const key = createPrivateKey({ key: signer.key, format: 'der', type: 'pkcs8', passphrase: signer.password });
  return cryptoSign('sha256', Buffer.from(signedAttributesB64, 'base64'), key).toString('base64');
}

if (!haveOpenssl) console.log('skip: openssl is absent; e.firma prepare/complete tests skipped');

describe.skipIf(!haveOpenssl)('e.firma prepare and complete over HTTP (test PKI, local OCSP responder)', () => {
  let pki: TestPki;
  let ocsp: LocalService;
  const tmp = mkdtempSync(join(tmpdir(), 'sello-efirma-'));
  /** The platform's clock, moved forward to outlive a prepared signature. */
  const clock = { offset: 0, now: () => Date.now() + clock.offset };
  const people: Record<string, TestSigner> = {};

  beforeAll(async () => {
    pki = createTestPki();
    ocsp = await pki.startOcsp();
    s = await startTestServer({ config: { WORKFLOW_POLL_MS: 20, EFIRMA_TRUST_LIST: pki.trustListPath, EFIRMA_OCSP_URL: ocsp.url, EFIRMA_OCSP_TIMEOUT_MS: 1500, EFIRMA_OCSP_ATTEMPTS: 1 }, overrides: { clock } });
    ({ key } = await s.tenantWithKey('pro'));
    people.ana = pki.makeSigner({ name: 'ANA LOPEZ ALVAREZ', rfc: 'LOAA850101AB1', curp: CURPS.ana });
    people.beto = pki.makeSigner({ name: 'MARIO PEREZ MORA', rfc: 'PEMM900215KL2', curp: CURPS.beto });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    await ocsp?.stop().catch(() => undefined);
    pki?.cleanup();
  });

  /** Creates and sends a document of e.firma signers; returns its id. */
  async function efirmaDoc(signers: unknown[], pages = 2): Promise<string> {
    const r = await createDoc(s, key, await makePdf(pages), signers.map((x) => ({ signature_type: 'efirma', ...(x as object) })));
    expect(r.status, await r.clone().text()).toBe(201);
    const id = ((await r.json()) as any).data.document_id as string;
    await send(id);
    return id;
  }
  const linkFor = async (email: string) => linkOf(await waitFor(() => readOutbox(s.dataDir).find((m) => m.to.includes(email)), 15_000, `invitation of ${email}`));
  const tokenOf = (link: string) => new URL(s.url + link).searchParams.get('t')!;
  const post = async (id: string, step: 'prepare' | 'complete', body: Record<string, unknown>) => {
    const r = await fetch(`${s.url}/sign/${id}/efirma/${step}`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'EfirmaTest/1.0' }, body: JSON.stringify(body) });
    return { status: r.status, body: (await r.json()) as any, headers: r.headers };
  };
  const prepare = (id: string, link: string, signer: TestSigner) => post(id, 'prepare', { t: tokenOf(link), certificate: signer.cer.toString('base64') });
  const complete = (id: string, link: string, prepareId: string, signature: string) => post(id, 'complete', { t: tokenOf(link), prepare_id: prepareId, signature, consent: 'yes' });
  async function signAs(id: string, link: string, signer: TestSigner) {
    const p = await prepare(id, link, signer);
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    const c = await complete(id, link, p.body.data.prepare_id, browserSign(signer, p.body.data.signed_attributes));
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    return c.body.data;
  }
  const view = async (id: string) => ((await (await s.fetch(`/v1/signing/documents/${id}`, { key })).json()) as any).data;
  const state = async (id: string) => foldDocument((await s.ctx.events.readStream(documentStream(id))).events);

  it('two e.firma signers in order: each PAdES signature appended incrementally, reported with certificate and OCSP', async () => {
    const id = await efirmaDoc([
      { email: 'ana@example.com', name: 'Ana López', order: 1, rfc: people.ana!.rfc, curp: CURPS.ana, fields: [{ page: 1, x: 60, y: 80, width: 200, height: 60 }] },
      { email: 'mario@example.com', name: 'Mario Pérez', order: 2, rfc: people.beto!.rfc },
    ]);
    const anaLink = await linkFor('ana@example.com');
    const first = await prepare(id, anaLink, people.ana!);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(first.body.data).toMatchObject({ prepare_id: expect.stringMatching(/^efp_[0-9a-f]{32}$/), signed_attributes: expect.any(String) });
    expect(Date.parse(first.body.data.expires_at)).toBeGreaterThan(Date.now());
    // The DER signed attributes are a SET (0x31) holding the message digest of the prepared revision.
    expect(Buffer.from(first.body.data.signed_attributes, 'base64')[0]).toBe(0x31);
    const done1 = await complete(id, anaLink, first.body.data.prepare_id, browserSign(people.ana!, first.body.data.signed_attributes));
    expect(done1.status, JSON.stringify(done1.body)).toBe(200);
    expect(done1.body.data).toMatchObject({ status: 'partially_signed', heading: 'Gracias, tu firma quedó registrada', signature_id: expect.stringMatching(/^sig_/) });
    // The same prepared signature cannot be used twice.
    const again = await complete(id, anaLink, first.body.data.prepare_id, browserSign(people.ana!, first.body.data.signed_attributes));
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('already_signed');

    const marioLink = await linkFor('mario@example.com');
    await signAs(id, marioLink, people.beto!);
    const v = await view(id);
    expect(v.status).toBe('signed');
    expect(v.signers.map((x: any) => [x.signature_type, x.status, x.efirma?.certificate_serial, x.efirma?.ocsp_status])).toEqual([
      ['efirma', 'signed', people.ana!.serialHex, 'good'],
      ['efirma', 'signed', people.beto!.serialHex, 'good'],
    ]);
    expect(v.signers[0].efirma).toMatchObject({ holder_name: 'ANA LOPEZ ALVAREZ', rfc: people.ana!.rfc, curp: CURPS.ana, issuer: expect.stringContaining('AC DEL SERVICIO DE ADMINISTRACION TRIBUTARIA PRUEBAS') });
    const signedEntries = v.audit_trail.filter((e: any) => e.event === 'document_signed');
    expect(signedEntries.map((e: any) => [e.efirma.certificate_serial, e.efirma.ocsp_status])).toEqual([
      [people.ana!.serialHex, 'good'],
      [people.beto!.serialHex, 'good'],
    ]);

    // The working PDF: two signatures, each valid; the first one no longer covers the whole file.
    const st = await state(id);
    expect(st.signers.map((x) => x.efirma?.working_pdf_blob)).toEqual([expect.stringContaining('/efirma/working-'), st.working_pdf_blob]);
    const pdf = (await s.ctx.blobs.get(st.working_pdf_blob!))!;
    expect(createHash('sha256').update(pdf).digest('hex')).toBe(st.working_pdf_sha256);
    expect((await s.ctx.blobs.get(st.signers[0]!.efirma!.ocsp_blob))!.length).toBeGreaterThan(100);
    if (haveValidators()) {
      const file = join(tmp, `${id}.pdf`);
      writeFileSync(file, pdf);
      const out = pdfsig(file);
      expect(out.match(/Signature is Valid\./g)?.length, out).toBe(2);
      expect(out).toContain('ANA LOPEZ ALVAREZ');
      expect(out).toContain('MARIO PEREZ MORA');
      const [, sig1 = '', sig2 = ''] = out.split(/Signature #\d+:/);
      expect(sig1).toMatch(/Signer Certificate Common Name: ANA LOPEZ ALVAREZ[\s\S]*Not total document signed/);
      expect(sig2).toMatch(/Signer Certificate Common Name: MARIO PEREZ MORA[\s\S]*\n\s*- Total document signed/);
      expect(qpdfCheck(file).status).toBe(0);
    }
    // The event log holds the holder sealed (RFC, CURP, certificate hash and name never in clear), the OCSP result in clear.
    const log = Buffer.concat(['events.sqlite', 'events.sqlite-wal'].map((f) => (existsSync(join(s.dataDir, f)) ? readFileSync(join(s.dataDir, f)) : Buffer.alloc(0))));
    expect(log.includes(ocsp.url)).toBe(true);
    for (const secret of [people.ana!.rfc, CURPS.ana, 'ANA LOPEZ ALVAREZ', st.signers[0]!.efirma!.certificate_sha256]) expect(log.includes(secret), secret).toBe(false);
    // No prepared-signature files are left behind.
    expect((await s.ctx.blobs.list(`signing/${st.tenant_id}/${id}/efirma/prepare-`)).length).toBe(0);
  }, 120_000);

  it('a simple signer, a CSD, an expired certificate, another RFC: refused with their codes, nothing signed', async () => {
    const csd = pki.makeSigner({ name: 'ROSA SUAREZ ENRIQUEZ', rfc: 'RUSE800505QW3', curp: CURPS.rosa, csd: true });
    const expired = pki.makeSigner({ name: 'ROSA SUAREZ ENRIQUEZ', rfc: 'RUSE800505QW3', curp: CURPS.rosa, expired: true });
    const id = await efirmaDoc([
      { email: 'rosa@example.com', name: 'Rosa Suárez', order: 1, rfc: 'RUSE800505QW3' },
      { email: 'later@example.com', name: 'Later', order: 2 },
    ]);
    const link = await linkFor('rosa@example.com');
    const cases: [TestSigner, number, string][] = [
      [csd, 422, 'efirma_not_fiel'],
      [expired, 422, 'efirma_certificate_expired'],
      [people.ana!, 422, 'efirma_identity_mismatch'],
    ];
    for (const [signer, status, code] of cases) {
      const r = await prepare(id, link, signer);
      expect([r.status, r.body.error?.code], JSON.stringify(r.body)).toEqual([status, code]);
    }
    const junk = await post(id, 'prepare', { t: tokenOf(link), certificate: Buffer.from('not a certificate').toString('base64') });
    expect([junk.status, junk.body.error.code]).toEqual([422, 'efirma_certificate_invalid']);
    const notB64 = await post(id, 'prepare', { t: tokenOf(link), certificate: '***' });
    expect([notB64.status, notB64.body.error.code]).toEqual([400, 'invalid_signer']);
    const badLink = await post(id, 'prepare', { t: 'sl_' + 'x'.repeat(43), certificate: people.ana!.cer.toString('base64') });
    expect(badLink.status).toBe(401);
    const unknown = await complete(id, link, 'efp_' + '0'.repeat(32), Buffer.alloc(256).toString('base64'));
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'efirma_prepare_not_found']);
    // A simple signer has no e.firma route.
    const simple = ((await (await createDoc(s, key, await makePdf(1), [{ email: 'simple@example.com', name: 'Simple' }])).json()) as any).data.document_id;
    await send(simple);
    const sl = await linkFor('simple@example.com');
    const r = await prepare(simple, sl, people.ana!);
    expect([r.status, r.body.error.code]).toEqual([409, 'efirma_not_expected']);
    expect((await view(id)).signers.map((x: any) => x.status)).toEqual(['sent', 'pending']);
  }, 120_000);

  it('a signature made by another key is refused; the right one then completes', async () => {
    const id = await efirmaDoc([{ email: 'ana2@example.com', name: 'Ana López', curp: CURPS.ana }]);
    const link = await linkFor('ana2@example.com');
    const p = await prepare(id, link, people.ana!);
    expect(p.status).toBe(200);
    const wrong = await complete(id, link, p.body.data.prepare_id, browserSign(people.beto!, p.body.data.signed_attributes));
    expect([wrong.status, wrong.body.error.code]).toEqual([422, 'efirma_signature_invalid']);
    expect((await view(id)).signers[0].status).toBe('sent');
    const st = await state(id);
    expect((await s.ctx.blobs.list(`signing/${st.tenant_id}/${id}/efirma/working-`)).length).toBe(0);
    const ok = await complete(id, link, p.body.data.prepare_id, browserSign(people.ana!, p.body.data.signed_attributes));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data.status).toBe('signed');
  }, 60_000);

  it('a company e.firma signs for a signer required by the legal representative\'s RFC; both parties are reported', async () => {
    const company = pki.makeSigner({ name: 'TERESA HERNANDEZ GARCIA', rfc: 'HEGT7610034S2', curp: CURPS.teresa, company: { rfc: 'AAA010101AAA', name: 'ACME FINANCIERA SA DE CV' } });
    const id = await efirmaDoc([{ email: 'legal@example.com', name: 'Teresa Hernández', rfc: 'HEGT7610034S2', curp: CURPS.teresa }]);
    await signAs(id, await linkFor('legal@example.com'), company);
    const v = await view(id);
    expect(v.signers[0].efirma).toMatchObject({ holder_name: 'ACME FINANCIERA SA DE CV', rfc: 'AAA010101AAA', representative_rfc: 'HEGT7610034S2', curp: null, representative_curp: CURPS.teresa, ocsp_status: 'good' });
  }, 60_000);

  it('a prepared signature expires after 5 minutes, and one prepared before a cancellation cannot complete; no files stay', async () => {
    const id = await efirmaDoc([{ email: 'late@example.com', name: 'Ana López' }]);
    const link = await linkFor('late@example.com');
    const p = await prepare(id, link, people.ana!);
    expect(p.status).toBe(200);
    clock.offset = 5 * 60_000 + 1_000;
    try {
      const late = await complete(id, link, p.body.data.prepare_id, browserSign(people.ana!, p.body.data.signed_attributes));
      expect([late.status, late.body.error.code]).toEqual([404, 'efirma_prepare_not_found']);
      // A new prepare sweeps the expired one's files.
      const again = await prepare(id, link, people.ana!);
      expect(again.status).toBe(200);
      const st = await state(id);
      const files = await s.ctx.blobs.list(`signing/${st.tenant_id}/${id}/efirma/`);
      expect(files.sort()).toEqual([expect.stringContaining(`prepare-${again.body.data.prepare_id}.json`), expect.stringContaining(`prepare-${again.body.data.prepare_id}.pdf`)].sort());
      const cancelled = await s.fetch(`/v1/signing/documents/${id}/cancel`, { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ reason: 'cambio de condiciones' }) });
      expect(cancelled.status).toBe(200);
      const refused = await complete(id, link, again.body.data.prepare_id, browserSign(people.ana!, again.body.data.signed_attributes));
      expect([[400, 'document_cancelled'], [401, 'invalid_link']]).toContainEqual([refused.status, refused.body.error.code]);
      expect((await view(id)).signers[0].status).toBe('sent');
      expect((await s.ctx.blobs.list(`signing/${st.tenant_id}/${id}/efirma/working-`)).length).toBe(0);
    } finally {
      clock.offset = 0;
    }
  }, 60_000);

  it('two parallel signers prepare on one version: the second to complete gets 409 and signs after preparing again', async () => {
    const id = await efirmaDoc([
      { email: 'p1@example.com', name: 'Ana López', order: 1 },
      { email: 'p2@example.com', name: 'Mario Pérez', order: 1 },
    ]);
    const [l1, l2] = [await linkFor('p1@example.com'), await linkFor('p2@example.com')];
    const [a, b] = [await prepare(id, l1, people.ana!), await prepare(id, l2, people.beto!)];
    expect([a.status, b.status]).toEqual([200, 200]);
    expect((await complete(id, l1, a.body.data.prepare_id, browserSign(people.ana!, a.body.data.signed_attributes))).status).toBe(200);
    const stale = await complete(id, l2, b.body.data.prepare_id, browserSign(people.beto!, b.body.data.signed_attributes));
    expect([stale.status, stale.body.error.code]).toEqual([409, 'efirma_prepare_stale']);
    expect(stale.body.error.message).toMatch(/sign again/);
    await signAs(id, l2, people.beto!);
    expect((await view(id)).status).toBe('signed');
  }, 60_000);

  it('a revoked certificate is refused; with the OCSP responder stopped: 503 efirma_ocsp_unavailable, nothing signed', async () => {
    const revoked = pki.makeSigner({ name: 'TERESA HERNANDEZ GARCIA', rfc: 'HEGT7610034S2', curp: CURPS.teresa });
    pki.revoke(revoked);
    const id = await efirmaDoc([{ email: 'teresa@example.com', name: 'Teresa Hernández' }]);
    const link = await linkFor('teresa@example.com');
    const r = await prepare(id, link, revoked);
    expect([r.status, r.body.error.code], JSON.stringify(r.body)).toEqual([422, 'efirma_certificate_revoked']);
    await ocsp.stop();
    const down = await prepare(id, link, people.ana!);
    expect([down.status, down.body.error.code], JSON.stringify(down.body)).toEqual([503, 'efirma_ocsp_unavailable']);
    expect(down.headers.get('retry-after')).toBeTruthy();
    const v = await view(id);
    expect(v.signers[0].status).toBe('sent');
    expect(v.audit_trail.some((e: any) => e.event === 'document_signed')).toBe(false);
  }, 60_000);
});
