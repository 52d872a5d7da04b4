/**
 * Spanish where Mexicans read it (issue 30, item 2) and names the certificate can print (issue 31,
 * item 9), over HTTP: the document's `language`/`time_zone` (default Spanish, Mexico City; the tenant's
 * setting otherwise), the invitation and decline e-mails, the signing page (its `lang`, the sender's
 * message styled under the page's CSP, the link's expiry beside the document's), and the certificate of
 * completion read back with pdftotext.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { linkOf, makePdf, readOutbox, waitFor, type OutboxMail } from '../../helpers/signing.ts';
import { setTenantLocale } from '../../../domain/tenancy/operations.ts';
import { formatDateTime } from '../../../domain/shared/locale.ts';

let s: TestServer;
let key: string;

async function create(fields: Record<string, string>, signers: unknown[] = [{ email: 'lucia@example.com', name: 'Lucía Hernández' }], apiKey = key) {
  const form = new FormData();
  form.set('document', new Blob([new Uint8Array(await makePdf(1))], { type: 'application/pdf' }), 'contrato.pdf');
  form.set('title', 'Contrato de arrendamiento');
  form.set('signers', JSON.stringify(signers));
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  const r = await s.fetch('/v1/signing/documents', { method: 'POST', body: form, key: apiKey });
  return { status: r.status, body: (await r.json()) as any };
}

async function send(id: string, apiKey = key, customMessage = 'Firme antes del viernes.\nGracias.') {
  const r = await s.fetch(`/v1/signing/documents/${id}/send-invitations`, { method: 'POST', key: apiKey, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ custom_message: customMessage }) });
  expect(r.status).toBe(200);
}

/** The mail's decoded UTF-8 text (the outbox helper decodes quoted-printable byte by byte). */
const utf8 = (m: OutboxMail) => Buffer.from(m.body, 'latin1').toString('utf8');
const mailTo = (addr: string) => waitFor(() => readOutbox(s.dataDir).find((m) => m.to.includes(addr)), 15_000, `mail to ${addr}`);

describe('signing in the reader’s language', () => {
  beforeAll(async () => {
    s = await startTestServer({ config: { WORKFLOW_POLL_MS: 20 } });
    ({ key } = await s.tenantWithKey('pro'));
  });
  afterAll(async () => {
    await s?.close();
  });

  it('Spanish and Mexico City by default: document, invitation e-mail, signing page', async () => {
    const c = await create({ expiry_date: '2099-12-31', message: 'Mensaje del contrato' });
    expect(c.status).toBe(201);
    expect(c.body.data).toMatchObject({ language: 'es', time_zone: 'America/Mexico_City' });
    const id = c.body.data.document_id as string;
    await send(id);
    const mail = await mailTo('lucia@example.com');
    const text = utf8(mail);
    expect(text).toContain('Hola, Lucía Hernández:');
    expect(text).toContain('Te invitaron a firmar «Contrato de arrendamiento».');
    expect(text).toContain('Revisar y firmar');
    expect(text).toContain('<html lang="es-MX">');
    // The link's expiry in words, Mexico City time; no raw ISO instant anywhere in the mail.
    expect(text).toMatch(/vence el \d{1,2} de [a-z]+ de \d{4}/);
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);

    const res = await fetch(s.url + linkOf(mail));
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).not.toContain('unsafe-inline');
    const html = await res.text();
    expect(html).toContain('<html lang="es-MX">');
    expect(html).toContain('Hola, Lucía Hernández (lucia@example.com).');
    expect(html).toContain('Firmar documento');
    // The sender's message is on the page, styled by the nonce'd stylesheet (a style attribute would be
    // blocked by the CSP): no style="..." in the page at all.
    // (the sending's custom message first, then the document's, as the invitation shows them)
    expect(html).toMatch(/<p class="message">Firme antes del viernes.\nGracias.\n\nMensaje del contrato<\/p>/);
    expect(html).not.toMatch(/\sstyle="/);
    const nonce = /style-src 'nonce-([^']+)'/.exec(csp)![1]!;
    expect(html).toContain(`<style nonce="${nonce}">`);
    expect(html).toMatch(/\.message\{white-space:pre-wrap/);
    // The link lasts 30 days, the document until 2099: the page gives both dates and why they differ.
    const doc = (await (await s.fetch(`/v1/signing/documents/${id}`, { key })).json()) as any;
    const link = doc.data.audit_trail.find((e: any) => e.event === 'link_issued');
    expect(link).toBeTruthy();
    const linkExpires = formatDateTime(new Date(Date.parse(doc.data.audit_trail.find((e: any) => e.event === 'link_issued').timestamp) + 30 * 86_400_000).toISOString(), { language: 'es', timeZone: 'America/Mexico_City' }, 'date');
    expect(html).toContain(linkExpires.split(' de ')[0]!); // the day of the link's expiry
    expect(html).toContain(`puede firmarse hasta el ${formatDateTime('2099-12-31T23:59:59.999Z', { language: 'es', timeZone: 'America/Mexico_City' })}`);
    expect(html).toContain('cada enlace dura como máximo 30 días');
    expect(html).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
  });

  it('English when the document says so, in its time zone; bad language or zone is 400', async () => {
    const c = await create({ language: 'en-US', time_zone: 'America/Tijuana' }, [{ email: 'ann@example.com', name: 'Ann Smith' }]);
    expect(c.status).toBe(201);
    expect(c.body.data).toMatchObject({ language: 'en', time_zone: 'America/Tijuana' });
    await send(c.body.data.document_id, key, 'Please sign by Friday.');
    const mail = await mailTo('ann@example.com');
    expect(mail.subject).toContain('Please_sign'); // (an RFC 2047 encoded word)
    expect(utf8(mail)).toMatch(/it expires [A-Z][a-z]+ \d{1,2}, \d{4} at .*Pacific/);
    const html = await (await fetch(s.url + linkOf(mail))).text();
    expect(html).toContain('<html lang="en-US">');
    expect(html).toContain('Sign document');
    expect(html).toContain('Please sign by Friday.');
    // The document's expiry (default 30 days) is not later than the link's: no note.
    expect(html).not.toContain('link-expiry-note');

    const badLang = await create({ language: 'fr' });
    expect(badLang.status).toBe(400);
    expect(badLang.body.error).toMatchObject({ code: 'validation_error', details: { field: 'language' } });
    const badZone = await create({ time_zone: 'Mars/Olympus' });
    expect(badZone.status).toBe(400);
    expect(badZone.body.error).toMatchObject({ code: 'validation_error', details: { field: 'time_zone' } });
  });

  it("the tenant's setting applies to documents without their own language", async () => {
    const t = await s.tenantWithKey('pro');
    await setTenantLocale({ store: s.ctx.events, tenantId: t.tenantId, language: 'en', timeZone: 'America/Cancun' });
    await s.ctx.tenancy.catchUp();
    const c = await create({}, [{ email: 'tenant-en@example.com', name: 'Tess' }], t.key);
    expect(c.body.data).toMatchObject({ language: 'en', time_zone: 'America/Cancun' });
    const own = await create({ language: 'es' }, [{ email: 'tenant-es@example.com', name: 'Tomás' }], t.key);
    expect(own.body.data).toMatchObject({ language: 'es', time_zone: 'America/Cancun' });

    // The operator's command (README): `npm run cli -- tenant locale`, while the server runs.
    const u = await s.tenantWithKey('pro');
    // (a process of its own, run asynchronously: this test process also runs the server)
    const cli = (...args: string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const p = spawn(process.execPath, ['--no-warnings', '--import', 'tsx', 'apps/cli/cli.ts', ...args], { env: { ...process.env, DATA_DIR: s.dataDir, LOG_LEVEL: 'silent' } });
        let stdout = '';
        let stderr = '';
        p.stdout.on('data', (d) => (stdout += d));
        p.stderr.on('data', (d) => (stderr += d));
        p.on('close', (status) => resolve({ status, stdout, stderr }));
      });
    const [set, bad] = await Promise.all([
      cli('tenant', 'locale', '--tenant', u.tenantId, '--language', 'en-US', '--time-zone', 'America/Hermosillo'),
      cli('tenant', 'locale', '--tenant', u.tenantId, '--language', 'fr'),
    ]);
    expect(set.status, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ tenant_id: u.tenantId, language: 'en', time_zone: 'America/Hermosillo' });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('invalid_locale');
    await waitFor(async () => (await create({}, [{ email: 'cli-en@example.com', name: 'Cleo' }], u.key)).body.data.language === 'en', 10_000, 'the CLI setting reaching the server');
  }, 180_000);

  it('a decline is mailed to the owner in Spanish, and the signer sees Spanish pages', async () => {
    const c = await create({ notify_email: 'owner-es@example.com' }, [{ email: 'rosa@example.com', name: 'Rosa Díaz' }]);
    const id = c.body.data.document_id as string;
    await send(id);
    const link = linkOf(await mailTo('rosa@example.com'));
    const t = new URL(s.url + link).searchParams.get('t')!;
    const r = await fetch(`${s.url}/sign/${id}/decline`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ t, reason: 'La cláusula 4 no es aceptable.' }).toString() });
    expect(r.status).toBe(200);
    expect(await r.text()).toContain('Rechazaste firmar');
    const mail = await mailTo('owner-es@example.com');
    expect(mail.subject).toMatch(/Rechazado/);
    const text = utf8(mail);
    expect(text).toContain('Rosa Díaz <rosa@example.com> rechazó firmar «Contrato de arrendamiento»');
    expect(text).toContain('La cláusula 4 no es aceptable.');
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
    // The link no longer works: a Spanish refusal.
    const again = await fetch(s.url + link);
    expect(await again.text()).toContain('Rechazaste este documento');
  });

  it('when everyone signed, the owner is told in Spanish who signed when, and how to finalize', async () => {
    const c = await create({ notify_email: 'owner-done@example.com' }, [{ email: 'pedro@example.com', name: 'Pedro Ramírez' }]);
    const id = c.body.data.document_id as string;
    await send(id);
    const t = new URL(s.url + linkOf(await mailTo('pedro@example.com'))).searchParams.get('t')!;
    const r = await fetch(`${s.url}/sign/${id}/sign`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ t, consent: 'yes', method: 'typed', typed_name: 'Pedro Ramírez' }).toString() });
    expect(r.status).toBe(200);
    const mail = await mailTo('owner-done@example.com');
    expect(mail.subject).toMatch(/Firmado_por_todos/);
    const text = utf8(mail);
    expect(text).toContain(`Todos los firmantes firmaron «Contrato de arrendamiento» (${id}); la última firma fue el `);
    expect(text).toMatch(/Pedro Ramírez <pedro@example.com>: firmó el \d{1,2} de [a-z]+ de \d{4}/);
    expect(text).toContain(`POST /v1/signing/documents/${id}/finalize`);
    expect(text).toContain('<html lang="es-MX">');
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
  }, 60_000);

  it('names the certificate cannot print are refused with 422; Latin and CJK names print as written', async () => {
    const emoji = await create({}, [{ email: 'zoe@example.com', name: 'Zoë 李小龍 😀' }]);
    expect(emoji.status).toBe(422);
    expect(emoji.body.error).toMatchObject({ code: 'unsupported_characters', details: { field: 'signers.0.name', characters: ['😀'], code_points: ['U+1F600'] } });
    const hangul = await s.fetch('/v1/signing/create', {
      method: 'POST',
      key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ document: (await makePdf(1)).toString('base64'), title: 'Contrato 📄', signers: [{ name: 'Ana', email: 'ana-k@example.com' }] }),
    });
    expect(hangul.status).toBe(422);
    expect(((await hangul.json()) as any).error).toMatchObject({ code: 'unsupported_characters', details: { field: 'title' } });

    const c = await create({}, [{ email: 'zoe@example.com', name: 'Zoë 李小龍', role: 'cliente' }]);
    expect(c.status).toBe(201);
    const id = c.body.data.document_id as string;
    await send(id);
    const link = linkOf(await mailTo('zoe@example.com'));
    const t = new URL(s.url + link).searchParams.get('t')!;
    // A typed signature with an emoji is refused on the page (in Spanish), without signing.
    const refused = await fetch(`${s.url}/sign/${id}/sign`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ t, consent: 'yes', method: 'typed', typed_name: 'Zoë 😀' }).toString() });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('contiene caracteres que el certificado no puede imprimir: 😀');
    const signed = await fetch(`${s.url}/sign/${id}/sign`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ t, consent: 'yes', method: 'typed', typed_name: 'Zoë 李小龍' }).toString() });
    expect(signed.status).toBe(200);
    expect(await signed.text()).toContain('Gracias, tu firma quedó registrada');
    const fin = await s.fetch(`/v1/signing/documents/${id}/finalize`, { method: 'POST', key });
    expect(fin.status).toBe(200);
    const cert = Buffer.from(await (await s.fetch(`/v1/signing/documents/${id}/certificate`, { key })).arrayBuffer());
    const f = join(s.dataDir, 'cert-zoe.pdf');
    writeFileSync(f, cert);
    const text = spawnSync('pdftotext', [f, '-'], { encoding: 'utf8' });
    if (text.status !== 0) {
      console.log('skip: pdftotext not installed; certificate text not checked');
      return;
    }
    const out = text.stdout;
    expect(out).toContain('Certificado de conclusión');
    expect(out).toContain('1. Zoë 李小龍 <zoe@example.com> · cliente');
    expect(out).toContain('Firmado por Zoë 李小龍');
    expect(out).not.toContain('???');
    expect(out).toMatch(/Firmó el \d{1,2} [a-z]{3} \d{4}/);
    // Fonts are embedded as subsets: the certificate stays small.
    expect(cert.length).toBeLessThan(200_000);
    const fonts = spawnSync('pdffonts', [f], { encoding: 'utf8' });
    if (fonts.status === 0) expect(fonts.stdout).toMatch(/NotoSans/);
    // A picture of the certificate's first page, to look at (test/artifacts/certificate-es.png).
    const artifacts = join(import.meta.dirname, '../../artifacts');
    mkdirSync(artifacts, { recursive: true });
    spawnSync('pdftoppm', ['-r', '80', '-png', '-f', '1', '-l', '1', '-singlefile', f, join(artifacts, 'certificate-es')]);
  }, 180_000);
});
