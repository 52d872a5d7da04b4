/**
 * /docs in a real browser (issue 30, items 1 and 7): Sello's title, logo and favicon, the document loaded
 * from `/openapi.json` (the URL the README names), and an upload operation whose "Try it out" offers
 * file pickers. Screenshots at 1280 px go to test/artifacts (look at them).
 */
import path from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { ARTIFACTS, HAVE_CHROMIUM, launchBrowser, warnIfNoChromium, type Browser } from '../helpers/browser.ts';


const d = HAVE_CHROMIUM ? describe : describe.skip;
warnIfNoChromium('docs page browser test');

d('/docs in a real browser (Playwright + Debian chromium)', () => {
  let s: TestServer;
  let ctx: BrowserContext;
  let browser: Browser;

  beforeAll(async () => {
    s = await startTestServer();
    browser = await launchBrowser({ width: 1280, height: 900 });
    ctx = browser.ctx;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it("shows Sello's title, logo and favicon, loads /openapi.json and offers file pickers on an upload", async () => {
    const page = await ctx.newPage();
    const loaded: string[] = [];
    page.on('request', (r) => loaded.push(new URL(r.url()).pathname));
    await page.goto(`${s.url}/docs/`, { waitUntil: 'load' });
    await page.waitForSelector('.opblock-tag', { timeout: 90_000 });
    expect(await page.title()).toBe('Sello API reference');
    expect(loaded).toContain('/openapi.json');
    expect(loaded).not.toContain('/docs/json');
    // The top bar names the document's URL and shows Sello's logo, not Swagger's.
    const selected = await page.$eval('.topbar select', (el) => (el as HTMLSelectElement).selectedOptions[0]?.textContent ?? '');
    expect(selected).toBe('Sello API (/openapi.json)');
    const logo = await page.waitForSelector('.topbar-wrapper a.link img', { timeout: 10_000 });
    expect(await logo.getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(await logo.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    const icons = await page.$$eval('link[rel="icon"]', (links) => links.map((l) => (l as HTMLLinkElement).href));
    expect(icons.some((h) => h.endsWith('/docs/static/theme/sello-favicon.svg'))).toBe(true);
    await page.screenshot({ path: path.join(ARTIFACTS, 'docs-1280.png') });

    // An upload: POST /v1/face/verify, "Try it out" shows two file inputs (image1, image2).
    await page.goto(`${s.url}/docs/#/face/verifyFaces`, { waitUntil: 'load' });
    const op = await page.waitForSelector('#operations-face-verifyFaces', { timeout: 90_000 });
    if (!(await op.$('.opblock-body'))) await (await op.$('.opblock-summary'))!.click();
    await (await op.waitForSelector('button.try-out__btn'))!.click();
    await op.waitForSelector('input[type=file]', { timeout: 60_000 });
    expect(await op.$$eval('input[type=file]', (inputs) => inputs.length)).toBe(2);
    expect(await op.$eval('.opblock-summary-operation-id', (el) => el.textContent ?? '')).toBe('verifyFaces');
    await op.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(ARTIFACTS, 'docs-1280-upload.png') });
    await page.close();
  }, 300_000);
});
