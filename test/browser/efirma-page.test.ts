/**
 * Signing with e.firma in a real browser (issue 29; playwright-core driving Debian's chromium): three
 * e.firma signers of one document in order open their invitation links, pick their `.cer` and `.key`
 * through the page's labels and type the key's password; the key is decrypted (node-forge, PBES2 3DES)
 * and used (WebCrypto) in the page. Signer 1 at 1280 px, signer 2 at 390 px, signer 3 first picks a
 * `.key` of another certificate, then types a wrong password (each a clear message, nothing recorded)
 * and then signs. The certificates come from a test PKI made with `openssl` and a local OCSP responder.
 * The signing step (click to the confirmation: browser and server) is timed, p50 printed; screenshots
 * go to test/artifacts/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { haveValidators, linkOf, makePdf, pdfsig, readOutbox, waitFor } from '../helpers/signing.ts';
import { ARTIFACTS, HAVE_CHROMIUM, launchBrowser, type Browser } from '../helpers/browser.ts';
import { createTestPki, haveOpenssl, type LocalService, type TestPki, type TestSigner } from '../helpers/efirma-pki.ts';
import { documentStream, foldDocument } from '../../domain/signing/document.ts';

const CURPS = { ana: 'LOAA850101HDFPNN02', mario: 'PEMM900215HJCRRR02', teresa: 'HEGT761003MDFRNN07', rosa: 'RUSE800505MNLZNL05' };
if (!HAVE_CHROMIUM) console.log('skip: /usr/bin/chromium is absent; e.firma browser test skipped');
if (!haveOpenssl) console.log('skip: openssl is absent; e.firma browser test skipped');

let s: TestServer;
let key: string;
let browser: Browser;
let pki: TestPki;
let ocsp: LocalService;

async function createAndSend(signers: unknown[], title: string, pages = 2): Promise<string> {
  const form = new FormData();
  form.set('document', new Blob([new Uint8Array(await makePdf(pages))], { type: 'application/pdf' }), 'contrato.pdf');
  form.set('title', title);
  form.set('signers', JSON.stringify(signers));
  const r = await s.fetch('/v1/signing/documents', { method: 'POST', body: form, key });
  expect(r.status, await r.clone().text()).toBe(201);
  const id = ((await r.json()) as any).data.document_id as string;
  expect((await s.fetch(`/v1/signing/documents/${id}/send-invitations`, { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(200);
  return id;
}

const invitation = async (email: string) => linkOf(await waitFor(() => readOutbox(s.dataDir).find((m) => m.to.includes(email)), 15_000, `invitation of ${email}`));

async function openPage(link: string, width: number): Promise<Page> {
  const page = await browser.ctx.newPage();
  await page.setViewportSize({ width, height: width < 600 ? 844 : 900 });
  await page.goto(s.url + link);
  await page.waitForFunction(() => Array.from(document.images).every((i) => i.complete && i.naturalWidth > 0), undefined, { timeout: 20_000 });
  return page;
}

/** Picks the files and types the password through the labels, ticks consent. */
async function fill(page: Page, cer: TestSigner, keyFile: TestSigner, password: string): Promise<void> {
  await page.getByLabel('Certificado de e.firma (.cer)').setInputFiles(cer.cerPath);
  await page.getByLabel('Clave privada (.key)').setInputFiles(keyFile.keyPath);
  await page.getByLabel('Contraseña de la clave privada').fill(password);
  const consent = page.getByLabel(/Acepto firmar este documento electrónicamente/);
  if (!(await consent.isChecked())) await consent.check();
}

/** Clicks "Firmar con e.firma" and waits for the confirmation; returns the milliseconds the step took. */
async function signAndWait(page: Page): Promise<{ ms: number; browserMs: number }> {
  const t0 = performance.now();
  await page.getByRole('button', { name: 'Firmar con e.firma' }).click();
  const done = page.locator('#efirma-done');
  await done.waitFor({ timeout: 30_000 }).catch(async (e) => {
    throw new Error(`not signed: ${await page.locator('#efirma-error').textContent()} (${String(e)})`);
  });
  const ms = performance.now() - t0;
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Gracias, tu firma quedó registrada');
  return { ms, browserMs: Number(await done.getAttribute('data-browser-ms')) };
}

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

describe.skipIf(!HAVE_CHROMIUM || !haveOpenssl)('signing with e.firma in Chromium', () => {
  const people: Record<string, TestSigner> = {};
  beforeAll(async () => {
    pki = createTestPki();
    ocsp = await pki.startOcsp();
    s = await startTestServer({ config: { WORKFLOW_POLL_MS: 20, EFIRMA_TRUST_LIST: pki.trustListPath, EFIRMA_OCSP_URL: ocsp.url } });
    ({ key } = await s.tenantWithKey('pro'));
    people.ana = pki.makeSigner({ name: 'ANA LOPEZ ALVAREZ', rfc: 'LOAA850101AB1', curp: CURPS.ana });
    people.mario = pki.makeSigner({ name: 'MARIO PEREZ MORA', rfc: 'PEMM900215KL2', curp: CURPS.mario });
    people.teresa = pki.makeSigner({ name: 'TERESA HERNANDEZ GARCIA', rfc: 'HEGT7610034S2', curp: CURPS.teresa });
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
    await ocsp?.stop().catch(() => undefined);
    pki?.cleanup();
  });

  it('three e.firma signers in order at 1280 and 390 px; a key of another certificate and a wrong password are refused on the page', async () => {
    const timings: { ms: number; browserMs: number }[] = [];
    const id = await createAndSend(
      [
        { email: 'ana@example.com', name: 'Ana López', order: 1, signature_type: 'efirma', rfc: people.ana!.rfc, curp: CURPS.ana, fields: [{ page: 2, x: 60, y: 90, width: 220, height: 60 }] },
        { email: 'mario@example.com', name: 'Mario Pérez', order: 2, signature_type: 'efirma', rfc: people.mario!.rfc, fields: [{ page: 2, x: 320, y: 90, width: 220, height: 60 }] },
        { email: 'teresa@example.com', name: 'Teresa Hernández', order: 3, signature_type: 'efirma', curp: CURPS.teresa },
      ],
      'Contrato de crédito simple',
    );

    // Signer 1, desktop. What the page sends is recorded: the certificate, then only the signature value.
    const desk = await openPage(await invitation('ana@example.com'), 1280);
    const sent: { url: string; body: Record<string, unknown> }[] = [];
    const problems: string[] = [];
    desk.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    desk.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    desk.on('request', (r) => {
      if (r.method() === 'POST') sent.push({ url: r.url(), body: JSON.parse(r.postData() ?? '{}') as Record<string, unknown> });
    });
    expect(await desk.getByRole('heading', { name: 'Firmar con e.firma' }).count()).toBe(1);
    expect(await desk.getByLabel('Tu nombre completo, como firma').count()).toBe(0); // no typed/drawn form for an e.firma signer
    await fill(desk, people.ana!, people.ana!, people.ana!.password);
    await desk.getByRole('heading', { name: 'Firmar con e.firma' }).scrollIntoViewIfNeeded();
    await desk.screenshot({ path: join(ARTIFACTS, 'efirma-page-es-1280.png') });
    timings.push(await signAndWait(desk));
    await desk.screenshot({ path: join(ARTIFACTS, 'efirma-signed-es-1280.png') });
    await desk.close();
    expect(sent.map((x) => [new URL(x.url).pathname, Object.keys(x.body).sort()])).toEqual([
      [`/sign/${id}/efirma/prepare`, ['certificate', 't']],
      [`/sign/${id}/efirma/complete`, ['consent', 'prepare_id', 'signature', 't']],
    ]);
    expect(sent[0]!.body.certificate).toBe(people.ana!.cer.toString('base64'));
    // No script error and no CSP refusal (forge runs under the nonce without eval).
    expect(problems).toEqual([]);
    const everything = JSON.stringify(sent);
    expect(everything).not.toContain(people.ana!.password);
    expect(everything).not.toContain(people.ana!.key.toString('base64').slice(40, 100));
    expect(Buffer.from(String(sent[1]!.body.signature), 'base64').length).toBe(256); // RSA-2048 signature value, nothing else

    // Signer 2, phone.
    const phone = await openPage(await invitation('mario@example.com'), 390);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await fill(phone, people.mario!, people.mario!, people.mario!.password);
    await phone.getByRole('heading', { name: 'Firmar con e.firma' }).scrollIntoViewIfNeeded();
    await phone.screenshot({ path: join(ARTIFACTS, 'efirma-page-es-390.png') });
    timings.push(await signAndWait(phone));
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await phone.screenshot({ path: join(ARTIFACTS, 'efirma-signed-es-390.png') });
    await phone.close();

    // Signer 3: the .key of another e.firma, then a wrong password: clear messages, nothing sent or recorded.
    const third = await openPage(await invitation('teresa@example.com'), 1280);
    let posts = 0;
    third.on('request', (r) => {
      if (r.method() === 'POST' && r.url().includes('/efirma/')) posts++;
    });
    await fill(third, people.teresa!, people.ana!, people.ana!.password);
    await third.getByRole('button', { name: 'Firmar con e.firma' }).click();
    await expect.poll(() => third.locator('#efirma-error').textContent()).toContain('La clave privada (.key) no corresponde al certificado (.cer)');
    await fill(third, people.teresa!, people.teresa!, 'contraseña-equivocada');
    await third.getByRole('button', { name: 'Firmar con e.firma' }).click();
    await expect.poll(() => third.locator('#efirma-error').textContent()).toContain('La contraseña no abre tu clave privada');
    expect(await third.getByRole('alert').filter({ hasText: 'La contraseña no abre tu clave privada' }).count()).toBe(1);
    await third.locator('#efirma-error').scrollIntoViewIfNeeded();
    await third.screenshot({ path: join(ARTIFACTS, 'efirma-wrong-password-es-1280.png') });
    await third.setViewportSize({ width: 390, height: 844 });
    await third.locator('#efirma-error').scrollIntoViewIfNeeded();
    await third.screenshot({ path: join(ARTIFACTS, 'efirma-wrong-password-es-390.png') });
    expect(posts).toBe(0);
    const before = ((await (await s.fetch(`/v1/signing/documents/${id}`, { key })).json()) as any).data;
    expect(before.signers.map((x: any) => x.status)).toEqual(['signed', 'signed', 'sent']);
    await third.setViewportSize({ width: 1280, height: 900 });
    await third.getByLabel('Contraseña de la clave privada').fill(people.teresa!.password);
    timings.push(await signAndWait(third));
    await third.close();

    const doc = ((await (await s.fetch(`/v1/signing/documents/${id}`, { key })).json()) as any).data;
    expect(doc.status).toBe('signed');
    expect(doc.signers.map((x: any) => x.efirma?.holder_name)).toEqual(['ANA LOPEZ ALVAREZ', 'MARIO PEREZ MORA', 'TERESA HERNANDEZ GARCIA']);
    expect(doc.audit_trail.filter((e: any) => e.event === 'document_signed').map((e: any) => e.user_agent)).toEqual([expect.stringContaining('Chrome'), expect.stringContaining('Chrome'), expect.stringContaining('Chrome')]);
    const st = foldDocument((await s.ctx.events.readStream(documentStream(id))).events);
    const pdf = (await s.ctx.blobs.get(st.working_pdf_blob!))!;
    const file = join(ARTIFACTS, 'efirma-three-signers.pdf');
    writeFileSync(file, pdf);
    if (haveValidators()) {
      const out = pdfsig(file);
      expect(out.match(/Signature is Valid\./g)?.length, out).toBe(3);
    }

    // A few more one-signer documents at desktop width for the p50 of the signing step.
    for (let i = 0; i < 4; i++) {
      const one = await createAndSend([{ email: `bench${i}@example.com`, name: 'Ana López', signature_type: 'efirma', rfc: people.ana!.rfc }], `Pagaré ${i + 1}`, 1);
      const page = await openPage(await invitation(`bench${i}@example.com`), 1280);
      await fill(page, people.ana!, people.ana!, people.ana!.password);
      timings.push(await signAndWait(page));
      await page.close();
      expect(((await (await s.fetch(`/v1/signing/documents/${one}`, { key })).json()) as any).data.status).toBe('signed');
    }
    const total = timings.map((t) => t.ms);
    const inBrowser = timings.map((t) => t.browserMs);
    console.log(`e.firma signing step (click to confirmation, browser + server), n=${total.length}: p50 ${p50(total).toFixed(0)} ms, max ${Math.max(...total).toFixed(0)} ms; of it in the browser (decrypt, compare, sign): p50 ${p50(inBrowser).toFixed(0)} ms`);
  }, 240_000);

  it('the server\'s refusals read clearly on the page: a CSD, an expired certificate, a foreign CA, a revoked one, OCSP down; nothing signed', async () => {
    const rosa = { rfc: 'RUSE800505QW3', curp: CURPS.rosa };
    const csd = pki.makeSigner({ name: 'ROSA SUAREZ ENRIQUEZ', ...rosa, csd: true });
    const expired = pki.makeSigner({ name: 'ROSA SUAREZ ENRIQUEZ', ...rosa, expired: true });
    const revoked = pki.makeSigner({ name: 'ROSA SUAREZ ENRIQUEZ', ...rosa });
    pki.revoke(revoked);
    const other = createTestPki();
    const foreign = other.makeSigner({ name: 'ROSA SUAREZ ENRIQUEZ', ...rosa });
    const good = pki.makeSigner({ name: 'ROSA SUAREZ ENRIQUEZ', ...rosa });
    try {
      const id = await createAndSend([{ email: 'rosa@example.com', name: 'Rosa Suárez', signature_type: 'efirma', rfc: rosa.rfc }], 'Contrato de arrendamiento', 1);
      const page = await openPage(await invitation('rosa@example.com'), 390);
      const attempt = async (signer: TestSigner, text: string, shot?: string) => {
        await fill(page, signer, signer, signer.password);
        await page.getByRole('button', { name: 'Firmar con e.firma' }).click();
        await expect.poll(() => page.locator('#efirma-error').textContent(), { timeout: 15_000 }).toContain(text);
        expect(await page.getByRole('button', { name: 'Firmar con e.firma' }).isEnabled()).toBe(true);
        if (shot) {
          await page.locator('#efirma-error').scrollIntoViewIfNeeded();
          await page.screenshot({ path: join(ARTIFACTS, shot) });
        }
      };
      await attempt(csd, 'Ese certificado es un Certificado de Sello Digital (CSD), no una e.firma', 'efirma-csd-es-390.png');
      await attempt(expired, 'Tu e.firma está vencida');
      await attempt(foreign, 'El certificado no fue emitido por el SAT');
      await attempt(revoked, 'Tu e.firma fue revocada según el SAT');
      await ocsp.stop();
      await attempt(good, 'No pudimos consultar con el SAT si tu e.firma está vigente', 'efirma-ocsp-down-es-390.png');
      await page.close();
      // In English when the document is.
      const form = new FormData();
      form.set('document', new Blob([new Uint8Array(await makePdf(1))], { type: 'application/pdf' }), 'loan.pdf');
      form.set('title', 'Loan agreement');
      form.set('language', 'en');
      form.set('signers', JSON.stringify([{ email: 'liz@example.com', name: 'Liz Doe', signature_type: 'efirma' }]));
      const en = ((await (await s.fetch('/v1/signing/documents', { method: 'POST', body: form, key })).json()) as any).data.document_id as string;
      expect((await s.fetch(`/v1/signing/documents/${en}/send-invitations`, { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(200);
      const enPage = await openPage(await invitation('liz@example.com'), 1280);
      await enPage.getByLabel('e.firma certificate (.cer)').setInputFiles(good.cerPath);
      await enPage.getByLabel('Private key (.key)').setInputFiles(good.keyPath);
      await enPage.getByLabel('Private key password').fill('not-the-password');
      await enPage.getByLabel(/I agree to sign this document electronically/).check();
      await enPage.getByRole('button', { name: 'Sign with e.firma' }).click();
      await expect.poll(() => enPage.locator('#efirma-error').textContent()).toContain('The password does not open your private key.');
      await enPage.locator('#efirma-error').scrollIntoViewIfNeeded();
      await enPage.screenshot({ path: join(ARTIFACTS, 'efirma-wrong-password-en-1280.png') });
      await enPage.close();
      const doc = ((await (await s.fetch(`/v1/signing/documents/${id}`, { key })).json()) as any).data;
      expect(doc.signers[0].status).toBe('sent');
      expect(doc.audit_trail.some((e: any) => e.event === 'document_signed')).toBe(false);
    } finally {
      other.cleanup();
    }
  }, 120_000);
});
