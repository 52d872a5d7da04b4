/**
 * Issue 31 item 9: control characters (CR, LF, tab, NUL, DEL, C1) are refused in signing document titles,
 * signer names and roles and typed signatures, as deployments' names already were (one rule:
 * domain/shared/text.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { linkOf, makePdf, readOutbox, waitFor } from '../../helpers/signing.ts';

let s: TestServer;
let key: string;
let pdf: Buffer;

beforeAll(async () => {
  s = await startTestServer({ config: { WORKFLOW_POLL_MS: 20 } });
  ({ key } = await s.tenantWithKey('pro'));
  pdf = await makePdf(1);
});
afterAll(async () => {
  await s?.close();
});

async function multipart(title: string, signers: unknown[]) {
  const form = new FormData();
  form.set('document', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'doc.pdf');
  form.set('title', title);
  form.set('signers', JSON.stringify(signers));
  const r = await s.fetch('/v1/signing/documents', { method: 'POST', body: form, key });
  return { status: r.status, body: (await r.json()) as any };
}
async function alt(body: Record<string, unknown>) {
  const r = await s.fetch('/v1/signing/create', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ document: pdf.toString('base64'), send: false, ...body }) });
  return { status: r.status, body: (await r.json()) as any };
}
const ANA = { email: 'ana@example.com', name: 'Ana' };

describe('control characters in titles and names (issue 31)', () => {
  it('multipart create refuses them in the title, a signer name or role', async () => {
    for (const title of ['Contrato\r\nBcc: x@evil.example', 'Con\ttrato', 'Contrato\u0000', 'Contrato\u0085']) {
      const r = await multipart(title, [ANA]);
      expect([r.status, r.body.error.code, r.body.error.details.field], JSON.stringify(title)).toEqual([400, 'validation_error', 'title']);
      expect(r.body.error.message).toContain('control characters');
    }
    for (const signer of [{ ...ANA, name: 'Ana\r\nCc: x@evil.example' }, { ...ANA, name: 'Ana\u007f' }, { ...ANA, role: 'client\n' + 'x' }]) {
      const r = await multipart('Contrato', [signer]);
      expect([r.status, r.body.error.code], JSON.stringify(signer)).toEqual([400, 'invalid_signer']);
      expect(r.body.error.message).toContain('control characters');
    }
    // Accented names and a title with surrounding blanks (trimmed) are fine.
    const ok = await multipart('  Contrato de arrendamiento  ', [{ ...ANA, name: 'Zoë Núñez-López' }]);
    expect(ok.status).toBe(201);
    expect(ok.body.data.title).toBe('Contrato de arrendamiento');
  });

  it('POST /v1/signing/create refuses them in title, signers[].title and names', async () => {
    expect((await alt({ title: 'A\nB', signers: [ANA] })).status).toBe(400);
    expect((await alt({ signers: [{ ...ANA, title: 'A\rB' }] })).status).toBe(400);
    const named = await alt({ title: 'T', signers: [{ ...ANA, name: 'Ana\nBeto' }] });
    expect(named.status).toBe(400);
    expect(named.body.success).toBe(false);
    expect((await alt({ title: 'T', signers: [ANA] })).status).toBe(201);
  });

  it('the signing page refuses a typed name with control characters', async () => {
    const r = await s.fetch('/v1/signing/create', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ document: pdf.toString('base64'), title: 'T', signers: [{ email: 'carla@example.com', name: 'Carla' }] }) });
    const id = ((await r.json()) as any).data.document_id as string;
    const mail = await waitFor(() => readOutbox(s.dataDir).find((m) => m.raw.includes(id)), 15_000, 'invitation');
    const t = new URL(s.url + linkOf(mail)).searchParams.get('t')!;
    const post = (typed: string) => fetch(`${s.url}/sign/${id}/sign`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ t, consent: 'yes', method: 'typed', typed_name: typed }).toString() });
    const bad = await post('Carla\r\nX');
    // The form again, with its message (in the page's language), and nothing recorded.
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('name="typed_name"');
    expect((await post('Carla')).status).toBe(200);
  });
});
