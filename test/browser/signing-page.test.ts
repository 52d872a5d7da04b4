/**
 * The signing page in a real browser (playwright-core driving Debian's /usr/bin/chromium, headless):
 * two signers in order open the real invitation links from the outbox, read every page, one draws a
 * signature with the mouse at desktop width, the other signs with the keyboard only at phone width;
 * a third document is declined. Screenshots go to test/artifacts/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { linkOf, makePdf, readOutbox, waitFor } from '../helpers/signing.ts';
import { ARTIFACTS, HAVE_CHROMIUM, launchBrowser, warnIfNoChromium, type Browser } from '../helpers/browser.ts';

const have = HAVE_CHROMIUM;
warnIfNoChromium('signing page browser tests');

let s: TestServer;
let key: string;
let browser: BrowserContext;
let chromium: Browser;

async function createAndSend(signers: unknown[], title: string, pages = 2): Promise<string> {
  const form = new FormData();
  form.set('document', new Blob([new Uint8Array(await makePdf(pages, { tags: [1] }))], { type: 'application/pdf' }), 'contrato.pdf');
  form.set('title', title);
  form.set('signers', JSON.stringify(signers));
  form.set('message', 'Gracias por su preferencia.');
  const id = ((await (await s.fetch('/v1/signing/documents', { method: 'POST', body: form, key })).json()) as any).data.document_id as string;
  const r = await s.fetch(`/v1/signing/documents/${id}/send-invitations`, { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ custom_message: 'Firme antes del viernes.' }) });
  expect(r.status).toBe(200);
  return id;
}

async function allImagesLoaded(page: Page): Promise<number> {
  await page.waitForFunction(() => Array.from(document.images).every((i) => i.complete && i.naturalWidth > 0), undefined, { timeout: 20_000 });
  return page.evaluate(() => document.images.length);
}

describe.skipIf(!have)('signing page in Chromium', () => {
  beforeAll(async () => {
    s = await startTestServer({ config: { WORKFLOW_POLL_MS: 20 } });
    ({ key } = await s.tenantWithKey('pro'));
    chromium = await launchBrowser(null, ['--disable-quic', '--disable-sync']);
    browser = chromium.ctx;
  });
  afterAll(async () => {
    await chromium?.close();
    await s?.close();
  });

  it('two signers in order: drawn at desktop width, typed with the keyboard at phone width', async () => {
    const id = await createAndSend(
      [
        { email: 'lucia@example.com', name: 'Lucía Hernández', role: 'cliente', order: 1 },
        { email: 'mario@example.com', name: 'Mario Pérez', role: 'proveedor', order: 2 },
      ],
      'Contrato de arrendamiento',
      3,
    );
    const m1 = await waitFor(() => readOutbox(s.dataDir).find((m) => m.to.includes('lucia@example.com')), 15_000, 'lucia invitation');
    const page = await browser.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(s.url + linkOf(m1));
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Contrato de arrendamiento');
    expect(await allImagesLoaded(page)).toBe(3);
    expect(await page.getByText('Firme antes del viernes.').count()).toBe(1);
    expect(await page.getByText('Gracias por su preferencia.').count()).toBe(1);
    // The sender's messages are styled by the page's stylesheet (the CSP refuses style attributes): pre-wrap.
    expect(await page.locator('#sender-message .message').evaluate((el) => getComputedStyle(el).whiteSpace)).toBe('pre-wrap');
    await page.screenshot({ path: join(ARTIFACTS, 'signing-page-es-1280.png'), fullPage: false });
    // Every control has an accessible name (a <label for>, aria-label or text), images have alt text.
    const unnamed = await page.evaluate(() =>
      Array.from(document.querySelectorAll('input:not([type=hidden]), textarea, button, canvas, img'))
        .filter((el) => {
          const id = el.getAttribute('id');
          const labelled = id ? document.querySelector(`label[for="${id}"]`) : null;
          return !(labelled || el.getAttribute('aria-label') || el.getAttribute('alt') || (el.tagName === 'BUTTON' && el.textContent!.trim()));
        })
        .map((el) => el.outerHTML.slice(0, 80)),
    );
    expect(unnamed).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('es-MX');
    expect(await page.getByRole('img', { name: 'Página 3 de 3 de Contrato de arrendamiento' }).count()).toBe(1);
    await page.getByLabel('Dibujar mi firma').check();
    const pad = page.getByRole('img', { name: 'Área para dibujar la firma' });
    const box = (await pad.boundingBox())!;
    await page.mouse.move(box.x + 30, box.y + 120);
    await page.mouse.down();
    for (let i = 1; i <= 30; i++) await page.mouse.move(box.x + 30 + i * 12, box.y + 120 - Math.sin(i / 3) * 50 - i, { steps: 2 });
    await page.mouse.up();
    // Submitting without consent is stopped by the browser (required checkbox).
    await page.getByRole('button', { name: 'Firmar documento' }).click();
    expect(page.url()).toContain('?t=');
    await page.getByLabel(/Acepto firmar este documento electrónicamente/).check();
    await page.getByRole('heading', { name: 'Firmar', exact: true }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, 'signing-page-desktop.png'), fullPage: false });
    await page.getByRole('button', { name: 'Firmar documento' }).click();
    await page.waitForURL(`**/sign/${id}/sign`);
    expect(await page.getByRole('heading', { level: 1 }).textContent(), await page.locator('.error').allTextContents().then((t) => t.join(' | '))).toBe('Gracias, tu firma quedó registrada');
    await page.close();

    const m2 = await waitFor(() => readOutbox(s.dataDir).find((m) => m.to.includes('mario@example.com')), 15_000, 'mario invitation');
    const phone = await browser.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(s.url + linkOf(m2));
    expect(await allImagesLoaded(phone)).toBe(3);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await phone.screenshot({ path: join(ARTIFACTS, 'signing-page-phone.png'), fullPage: false });
    await phone.screenshot({ path: join(ARTIFACTS, 'signing-page-es-390.png'), fullPage: false });
    // Keyboard only: focus the typed name, replace it, tab to the consent box, space, enter on the button.
    await phone.getByLabel('Tu nombre completo, como firma').focus();
    await phone.keyboard.press('Control+A');
    await phone.keyboard.type('Mario Pérez G.');
    await phone.getByLabel(/Acepto firmar este documento electrónicamente/).focus();
    await phone.keyboard.press('Space');
    expect(await phone.getByLabel(/Acepto firmar este documento electrónicamente/).isChecked()).toBe(true);
    await phone.getByRole('button', { name: 'Firmar documento' }).focus();
    await phone.screenshot({ path: join(ARTIFACTS, 'signing-page-phone-form.png'), fullPage: false });
    await phone.keyboard.press('Enter');
    await phone.waitForURL(`**/sign/${id}/sign`);
    expect(await phone.getByRole('heading', { level: 1 }).textContent()).toBe('Gracias, tu firma quedó registrada');
    await phone.close();

    const doc = (await (await s.fetch(`/v1/signing/documents/${id}`, { key })).json()) as any;
    expect(doc.data.status).toBe('signed');
    expect(doc.data.signers.map((x: any) => [x.status, x.fields?.length ?? 0])).toEqual([['signed', 1], ['signed', 0]]);
    expect(doc.data.audit_trail.filter((e: any) => e.event === 'document_signed').map((e: any) => e.user_agent)).toEqual([expect.stringContaining('Chrome'), expect.stringContaining('Chrome')]);
    const fin = await s.fetch(`/v1/signing/documents/${id}/finalize`, { method: 'POST', key });
    expect(fin.status).toBe(200);
  }, 180_000);

  it('the invitation e-mail reads in Spanish at 1280 and 390 px (its HTML part in the browser)', async () => {
    await createAndSend([{ email: 'elena@example.com', name: 'Elena Ruiz' }], 'Contrato de compraventa', 1);
    const m = await waitFor(() => readOutbox(s.dataDir).find((x) => x.to.includes('elena@example.com')), 15_000, 'elena invitation');
    // The text/html part, quoted-printable decoded to bytes, then read as UTF-8.
    const part = /Content-Type: text\/html[^\n]*\r?\n(?:[^\n]+\r?\n)*\r?\n([\s\S]*?)\r?\n--/i.exec(m.raw)![1]!;
    const html = Buffer.from(part.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_x, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8');
    const page = await browser.newPage();
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.setContent(html);
      expect(await page.evaluate(() => document.documentElement.lang)).toBe('es-MX');
      expect(await page.getByRole('link', { name: 'Revisar y firmar' }).count()).toBe(1);
      expect(await page.textContent('body')).toContain('Te invitaron a firmar «Contrato de compraventa».');
      expect(await page.textContent('body')).toMatch(/Vence el \d{1,2} de [a-z]+ de \d{4}/);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await page.screenshot({ path: join(ARTIFACTS, `mail-invitation-es-${width}.png`), fullPage: true });
    }
    await page.close();
  });

  it('a signer declines from the page with a reason', async () => {
    const id = await createAndSend([{ email: 'rosa@example.com', name: 'Rosa Díaz' }], 'Acuerdo de confidencialidad', 1);
    const m = await waitFor(() => readOutbox(s.dataDir).find((x) => x.to.includes('rosa@example.com')), 15_000, 'rosa invitation');
    const page = await browser.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(s.url + linkOf(m));
    await allImagesLoaded(page);
    await page.getByLabel(/Por qué lo rechazas/).fill('La cláusula 4 no es aceptable.');
    await page.getByRole('button', { name: 'Rechazar la firma' }).click();
    await page.waitForURL(`**/sign/${id}/decline`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Rechazaste firmar');
    await page.screenshot({ path: join(ARTIFACTS, 'signing-page-declined.png') });
    await page.goto(s.url + linkOf(m));
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Rechazaste este documento');
    await page.close();
    const doc = (await (await s.fetch(`/v1/signing/documents/${id}`, { key })).json()) as any;
    expect(doc.data).toMatchObject({ status: 'cancelled', cancellation: { by: 'signer', reason: 'La cláusula 4 no es aceptable.' } });
  });
});
