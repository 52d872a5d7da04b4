/**
 * The operator's view of a signing lifecycle in the Temporal Web UI (playwright-core driving Debian's
 * /usr/bin/chromium, headless): an API server with `WORKFLOWS=temporal` on the shared development server
 * (`npm run engines -- up`; a task queue of this run's own), a document created and sent over HTTP, then
 * the UI at `TEMPORAL_UI_URL` finds its lifecycle by document id and by the tenant's search attribute,
 * and shows the invitation activity, the reminder and expiry timers, the summary and the memo.
 * Screenshots go to test/artifacts/ (temporal-ui-*.png). docs/operations.md ("Workflows on Temporal:
 * what an operator sees") is what this test checks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { BrowserContext, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { serverMissing } from '../helpers/servers.ts';
import { temporalAddress } from '../helpers/temporal.ts';
import { makePdf, readOutbox, waitFor } from '../helpers/signing.ts';
import { ARTIFACTS, HAVE_CHROMIUM, launchBrowser, warnIfNoChromium, type Browser } from '../helpers/browser.ts';

const haveChromium = HAVE_CHROMIUM;
warnIfNoChromium('Temporal UI browser test');
const UI = (process.env.TEMPORAL_UI_URL ?? 'http://127.0.0.1:8233').replace(/\/$/, '');
const NAMESPACE = process.env.TEMPORAL_NAMESPACE ?? 'default';

const address = haveChromium ? await temporalAddress('Temporal UI browser test') : null;
/** The dev server's Web UI answers (a headless dev server has none). */
async function uiAnswers(): Promise<boolean> {
  const status = await fetch(UI, { signal: AbortSignal.timeout(5000) }).then((r) => r.status, (err: Error) => err.message);
  return status === 200 || serverMissing('Temporal UI browser test', `no Temporal Web UI at ${UI} (${status})`);
}
const ready = address !== null && (await uiAnswers());

let s: TestServer;
let temporal: { connection: Connection; client: Client };
let browser: BrowserContext;
let chromium: Browser | undefined;
/** Tenant A's document, invited (signing.notify ran, reminder timer armed); tenant B's, a draft. */
const a = { tenantId: '', key: '', docId: '' };
const b = { tenantId: '', key: '', docId: '' };

async function createDocument(key: string, title: string): Promise<string> {
  const form = new FormData();
  form.set('document', new Blob([new Uint8Array(await makePdf(1, { tags: [1] }))], { type: 'application/pdf' }), 'contrato.pdf');
  form.set('title', title);
  form.set('signers', JSON.stringify([{ email: 'lucia@example.com', name: 'Lucía Hernández' }]));
  const r = await s.fetch('/v1/signing/documents', { method: 'POST', body: form, key });
  expect(r.status).toBe(201);
  return ((await r.json()) as { data: { document_id: string } }).data.document_id;
}

const listUrl = (query: string) => `${UI}/namespaces/${NAMESPACE}/workflows?query=${encodeURIComponent(query)}`;
/** The list's row of a workflow (the table's rows carry the id, status, run id, type and times as text). */
const rowOf = (page: Page, workflowId: string) => page.getByRole('row').filter({ hasText: workflowId });

describe.skipIf(!ready)('signing lifecycle in the Temporal UI (Chromium)', () => {
  beforeAll(async () => {
    const taskQueue = `ui-test-${process.pid}-${Date.now()}`;
    s = await startTestServer({ config: { WORKFLOWS: 'temporal', TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: NAMESPACE, TEMPORAL_TASK_QUEUE: taskQueue } });
    const connection = await Connection.connect({ address: address! });
    temporal = { connection, client: new Client({ connection, namespace: NAMESPACE }) };
    Object.assign(a, await s.tenantWithKey('pro'));
    Object.assign(b, await s.tenantWithKey('pro'));
    a.docId = await createDocument(a.key, 'Contrato de arrendamiento');
    b.docId = await createDocument(b.key, 'Acuerdo de confidencialidad');
    const sent = await s.fetch(`/v1/signing/documents/${a.docId}/send-invitations`, { method: 'POST', key: a.key, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ reminder_days: 2 }) });
    expect(sent.status).toBe(200);
    await waitFor(() => readOutbox(s.dataDir).find((m) => m.to.includes('lucia@example.com')), 30_000, 'the invitation e-mail');
    // The history holds the completed invitation activity and both timers before any page is opened.
    await waitFor(
      async () => {
        const events = (await temporal.client.workflow.getHandle(a.docId).fetchHistory()).events ?? [];
        return events.some((e) => e.activityTaskCompletedEventAttributes) && events.filter((e) => e.timerStartedEventAttributes).length >= 2;
      },
      30_000,
      'signing.notify completed and the reminder timer started in the history',
    );
    chromium = await launchBrowser({ width: 1600, height: 1000 });
    browser = chromium.ctx;
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    // Close both lifecycles through the API (they end once their activities reported), so nothing stays
    // running on the shared server for a task queue no worker will poll again; terminate what does not end.
    if (s && temporal) {
      for (const d of [a, b]) {
        if (!d.docId) continue;
        await s.fetch(`/v1/signing/documents/${d.docId}/cancel`, { method: 'POST', key: d.key, headers: { 'content-type': 'application/json' }, body: '{}' });
        const handle = temporal.client.workflow.getHandle(d.docId);
        const ended = await waitFor(async () => (await handle.describe()).status.name !== 'RUNNING', 30_000, `${d.docId} to complete`).catch(() => false);
        if (!ended) await handle.terminate('temporal-ui.test.ts cleanup').catch(() => undefined);
      }
    }
    await temporal?.connection.close();
    await s?.close();
  }, 120_000);

  it('finds the lifecycle by document id: the list filtered by WorkflowId, then its page', async () => {
    const page = await browser.newPage();
    await page.goto(listUrl(`WorkflowId="${a.docId}"`));
    const row = rowOf(page, a.docId);
    await row.waitFor({ timeout: 30_000 });
    expect(await page.getByRole('row').filter({ hasText: /doc_[0-9a-f]{24}/ }).count()).toBe(1);
    expect(await row.innerText()).toMatch(/Running[\s\S]*signing-lifecycle/);
    await row.getByRole('link', { name: a.docId }).click();
    await page.waitForURL(`**/workflows/${a.docId}/**`);
    await page.getByRole('heading', { name: a.docId }).waitFor({ timeout: 30_000 });
    const header = await page.locator('main').innerText();
    expect(header).toMatch(/Running/);
    expect(header).toMatch(/Workflow Type\s+signing-lifecycle/);
    await page.close();
  });

  it("finds one tenant's lifecycles by the SelloTenantId search attribute, not another tenant's", async () => {
    const page = await browser.newPage();
    await page.goto(listUrl(`SelloTenantId="${a.tenantId}"`));
    await rowOf(page, a.docId).waitFor({ timeout: 30_000 });
    expect(await page.locator('main').innerText()).toMatch(new RegExp(`SelloTenantId =\\s*"${a.tenantId}"`)); // the filter, shown above the list
    expect(await rowOf(page, a.docId).innerText()).toMatch(/Running[\s\S]*signing-lifecycle/);
    expect(await rowOf(page, b.docId).count()).toBe(0);
    await page.screenshot({ path: join(ARTIFACTS, 'temporal-ui-tenant-list.png') });
    // The query docs/operations.md gives operators: this tenant's running signing lifecycles.
    await page.goto(listUrl(`SelloTenantId="${a.tenantId}" AND WorkflowType="signing-lifecycle" AND ExecutionStatus="Running"`));
    await rowOf(page, a.docId).waitFor({ timeout: 30_000 });
    expect(await rowOf(page, b.docId).count()).toBe(0);
    await page.goto(listUrl(`SelloTenantId="${b.tenantId}"`));
    await rowOf(page, b.docId).waitFor({ timeout: 30_000 });
    expect(await rowOf(page, a.docId).count()).toBe(0);
    await page.close();
  });

  it('shows the history: the invitation activity signing.notify, the reminder and expiry timers, the decisions', async () => {
    const page = await browser.newPage();
    await page.goto(`${UI}/namespaces/${NAMESPACE}/workflows/${a.docId}`);
    const history = page.getByRole('heading', { name: 'Event History' });
    await history.waitFor({ timeout: 30_000 });
    const event = (type: string, ...details: (string | RegExp)[]) => details.reduce((l, d) => l.filter({ hasText: d }), page.getByRole('row').filter({ hasText: type }));
    await event('Activity Task Completed').first().waitFor({ timeout: 30_000 });
    expect(await event('Workflow Execution Started', 'signing-lifecycle', `Signing lifecycle of document ${a.docId}: invitations, reminders, expiry`).count()).toBe(1);
    expect(await event('Activity Task Scheduled', 'signing.notify', /signing\.notify \(notify-\d+-sgr_[0-9a-f]+\)/).count()).toBe(1);
    expect(await event('Activity Task Completed', '{"sent":true}').count()).toBe(1);
    expect(await event('Timer Started', 'timer reminder', '2 days').count()).toBe(1);
    expect(await event('Timer Started', 'timer expiry', /(29|30) days/).count()).toBe(1);
    expect(await event('Workflow Execution Signaled', 'event').count()).toBeGreaterThanOrEqual(1); // the document's later events (invitations_sent)
    expect(await event('Local Activity', 'sello.decide').count()).toBeGreaterThanOrEqual(3);
    // Tall enough for the header (id, status, type), the timeline and the latest events in one picture.
    await page.setViewportSize({ width: 1600, height: 1800 });
    await page.screenshot({ path: join(ARTIFACTS, 'temporal-ui-history.png') });
    await page.setViewportSize({ width: 1600, height: 1000 });

    // User Metadata: the summary (rendered in a sandboxed frame) and the events with a summary, with their state.
    await page.getByRole('tab', { name: /User Metadata/ }).click();
    await page.getByText('Events with Metadata').waitFor({ timeout: 30_000 });
    await page.getByText(/^signing\.notify \(notify-/).waitFor({ timeout: 30_000 });
    const metadata = await page.locator('main').innerText();
    expect(metadata).toMatch(/Activity\s+signing\.notify \(notify-\d+-sgr_[0-9a-f]+\)\s+Completed/);
    expect(metadata).toMatch(/Timer\s+timer reminder\s+Started/);
    expect(metadata).toMatch(/Timer\s+timer expiry\s+Started/);
    const frames = page.locator('iframe[title="output"]');
    await frames.first().waitFor({ timeout: 30_000 });
    const rendered = async () => Promise.all((await frames.all()).map((f) => f.contentFrame().locator('body').innerText()));
    await waitFor(async () => (await rendered()).some((t) => t.includes(`Signing lifecycle of document ${a.docId}: invitations, reminders, expiry`)), 30_000, 'the summary rendered');
    await page.screenshot({ path: join(ARTIFACTS, 'temporal-ui-user-metadata.png') });

    // Memo: the same description, and the process manager's state after its last decision.
    await page.getByRole('tab', { name: /^Memo/ }).click();
    await page.getByText(`"description": "Signing lifecycle of document ${a.docId}`).waitFor({ timeout: 30_000 });
    const memo = await page.locator('main').innerText();
    expect(memo).toContain('"reminderDays": 2');
    expect(memo).toContain('"remindersOn": true');
    await page.close();
  });
});
