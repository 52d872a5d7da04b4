/**
 * The durable timers of the signing lifecycle, driven by the platform's clock (moved forward by the
 * test): reminders every `reminder_days` to signers who have not signed, then expiry when `expiry_date`
 * passes first (`document_expired` in the log, webhook `document.expired`, `document_expired` errors).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { linkOf, makePdf, readOutbox, waitFor } from '../../helpers/signing.ts';

const DAY = 86_400_000;
const clock = { offset: 0, now: () => Date.now() + clock.offset };
let s: TestServer;
let key: string;
let tenantId: string;

beforeAll(async () => {
  s = await startTestServer({ config: { WORKFLOW_POLL_MS: 20 }, overrides: { clock } });
  ({ key, tenantId } = await s.tenantWithKey('pro'));
});
afterAll(async () => {
  await s?.close();
});

describe('signing timers', () => {
  it('reminds every reminder_days, then expires at the end of expiry_date', async () => {
    const tomorrow = new Date(clock.now() + DAY).toISOString().slice(0, 10);
    const form = new FormData();
    form.set('document', new Blob([new Uint8Array(await makePdf(1))], { type: 'application/pdf' }), 'a.pdf');
    form.set('title', 'Expiring');
    form.set('signers', JSON.stringify([{ email: 'slow@example.com', name: 'Slow Signer' }]));
    form.set('expiry_date', tomorrow);
    const c = (await (await s.fetch('/v1/signing/documents', { method: 'POST', body: form, key })).json()) as any;
    const id = c.data.document_id as string;
    expect(c.data.expiry_date).toBe(`${tomorrow}T23:59:59.999Z`);
    await s.fetch(`/v1/signing/documents/${id}/send-invitations`, { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ reminder_days: 1 }) });
    const mails = () => readOutbox(s.dataDir).filter((m) => m.to.includes('slow@example.com'));
    await waitFor(() => mails().length === 1, 15_000, 'invitation');

    // One day later: one reminder with a fresh personal link.
    clock.offset += DAY + 60_000;
    await waitFor(() => mails().length === 2, 15_000, 'reminder');
    const reminder = mails()[1]!;
    expect(reminder.body).toContain('Hola, Slow Signer');
    expect(reminder.subject).toMatch(/Recordatorio/);
    expect(linkOf(reminder)).not.toBe(linkOf(mails()[0]!));
    const mid = (await (await s.fetch(`/v1/signing/documents/${id}`, { key })).json()) as any;
    expect(mid.data.signers[0].reminder_sent_at).toBeTruthy();
    expect(mid.data.audit_trail.map((e: any) => e.event)).toContain('reminder_sent');

    // Past the end of expiry_date: expired by the durable timer, webhook document.expired.
    clock.offset += 2 * DAY;
    const hook = await waitFor(async () => (await s.ctx.events.readStream(`webhook-events-${tenantId}`)).events.find((e) => e.type === 'document.expired'), 15_000, 'document.expired');
    expect(hook.data).toMatchObject({ document_id: id, expired_at: `${tomorrow}T23:59:59.999Z` });
    const after = (await (await s.fetch(`/v1/signing/documents/${id}`, { key })).json()) as any;
    expect(after.data.status).toBe('expired');
    expect(after.data.audit_trail.at(-1)).toMatchObject({ event: 'document_expired' });

    const send = await s.fetch(`/v1/signing/documents/${id}/cancel`, { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(send.status).toBe(400);
    expect(((await send.json()) as any).error).toMatchObject({ code: 'document_expired', details: { document_id: id, expired_at: `${tomorrow}T23:59:59.999Z` } });
    const page = await fetch(s.url + linkOf(reminder));
    expect([400, 403]).toContain(page.status);
    // No reminder after expiry.
    const count = mails().length;
    clock.offset += 3 * DAY;
    await new Promise((r) => setTimeout(r, 500));
    expect(mails().length).toBe(count);
  });
});
