/**
 * Issue 31: racing requests on one document.
 * - Item 6: ten parallel drawn-signature submits, each with another image: one is recorded, and the sealed
 *   PDF shows the image whose SHA-256 the audit trail's `document_signed` entry names (losers' files are gone).
 * - Item 9: ten parallel finalizes seal once: one 200, the others 409 `finalize_in_progress` (Retry-After)
 *   or 400 `document_locked`; the blob store holds exactly the three files the log names, no orphan.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { linkOf, makePdf, readOutbox, waitFor } from '../../helpers/signing.ts';
import { documentStream } from '../../../domain/signing/document.ts';
import { normalizeSignaturePng } from '../../../workflows/signing/service.ts';

let s: TestServer;
let key: string;
let tenantId: string;
const tmp = mkdtempSync(join(tmpdir(), 'sello-races-'));
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

beforeAll(async () => {
  s = await startTestServer({ config: { WORKFLOW_POLL_MS: 20 } });
  ({ key, tenantId } = await s.tenantWithKey('pro'));
});
afterAll(async () => {
  await s?.close();
});

/** A sent one-signer document and the signer's link token. */
async function sentDocument(email: string): Promise<{ id: string; token: string }> {
  const r = await s.fetch('/v1/signing/create', {
    method: 'POST',
    key,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ document: (await makePdf(1)).toString('base64'), title: 'Contrato', signers: [{ email, name: 'Ana' }] }),
  });
  expect(r.status).toBe(201);
  const id = ((await r.json()) as { data: { document_id: string } }).data.document_id;
  const mail = await waitFor(() => readOutbox(s.dataDir).find((m) => m.raw.includes(id)), 15_000, 'invitation');
  return { id, token: new URL(s.url + linkOf(mail)).searchParams.get('t')! };
}

const submit = (id: string, fields: Record<string, string>) =>
  fetch(`${s.url}/sign/${id}/sign`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ consent: 'yes', ...fields }).toString() });

const finalize = (id: string) => s.fetch(`/v1/signing/documents/${id}/finalize`, { method: 'POST', key });

describe('racing requests on one document (issue 31)', () => {
  it('10 parallel drawn signatures: the sealed PDF shows the audited image', { timeout: 240_000 }, async () => {
    const { id, token } = await sentDocument('ana@example.com');
    // Ten images of distinct solid colours (no alpha: the PDF embeds them without a soft mask).
    const pngs = await Promise.all(
      Array.from({ length: 10 }, (_, i) => sharp({ create: { width: 240, height: 80, channels: 3, background: { r: 20 * i, g: 255 - 20 * i, b: (97 * i) % 256 } } }).png().toBuffer()),
    );
    const results = await Promise.all(pngs.map((png) => submit(id, { t: token, method: 'drawn', drawn_png: `data:image/png;base64,${png.toString('base64')}` })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((x) => x === 200), statuses.join(',')).toHaveLength(1);

    const doc = (await (await s.fetch(`/v1/signing/documents/${id}`, { key })).json()) as { data: { audit_trail: { event: string; image_sha256?: string }[] } };
    const signedEntries = doc.data.audit_trail.filter((e) => e.event === 'document_signed');
    expect(signedEntries).toHaveLength(1);
    const audited = signedEntries[0]!.image_sha256!;
    expect(audited).toMatch(/^[0-9a-f]{64}$/);
    // The raw log agrees with the API's audit trail.
    const { events } = await s.ctx.events.readStream(documentStream(id));
    expect(events.filter((e) => e.type === 'signing.document_signed').map((e) => (e.data as { image_sha256: string }).image_sha256)).toEqual([audited]);

    const normalized = await Promise.all(pngs.map((p) => normalizeSignaturePng(p)));
    const winner = normalized.findIndex((p) => sha256(p) === audited);
    expect(winner).toBeGreaterThanOrEqual(0);
    // Only the recorded attempt's file is kept.
    const images = (await s.ctx.blobs.list(`signing/${tenantId}/${id}/`)).filter((k) => k.includes('/signature-'));
    expect(images).toHaveLength(1);
    expect(sha256((await s.ctx.blobs.get(images[0]!))!)).toBe(audited);

    const fin = await finalize(id);
    expect(fin.status).toBe(200);
    const pdf = Buffer.from(await (await s.fetch(`/v1/signing/documents/${id}/download?format=pdf`, { key })).arrayBuffer());
    const file = join(tmp, `${id}.pdf`);
    writeFileSync(file, pdf);
    const list = execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' }).split('\n').slice(2).filter(Boolean).map((l) => l.trim().split(/\s+/));
    const imageIdx = list.map((cols, i) => (cols[2] === 'image' ? i : -1)).filter((i) => i >= 0);
    expect(imageIdx.length).toBeGreaterThanOrEqual(1);
    execFileSync('pdfimages', ['-png', file, join(tmp, id)]);
    const extracted = readdirSync(tmp).filter((f) => f.startsWith(`${id}-`) && f.endsWith('.png')).sort();
    const want = await sharp(normalized[winner]!).removeAlpha().raw().toBuffer();
    for (const i of imageIdx) {
      const got = await sharp(readFileSync(join(tmp, extracted[i]!))).removeAlpha().raw().toBuffer();
      // Pixel for pixel the audited image, and none of the nine others.
      expect(got.equals(want)).toBe(true);
      for (const [j, other] of normalized.entries()) if (j !== winner) expect(got.equals(await sharp(other).removeAlpha().raw().toBuffer())).toBe(false);
    }
  });

  it('finalize refuses a stored image that is not the audited one, sealing nothing, and works once it is', { timeout: 240_000 }, async () => {
    const { id, token } = await sentDocument('dora@example.com');
    const drawn = await sharp({ create: { width: 200, height: 60, channels: 3, background: { r: 10, g: 20, b: 200 } } }).png().toBuffer();
    expect((await submit(id, { t: token, method: 'drawn', drawn_png: `data:image/png;base64,${drawn.toString('base64')}` })).status).toBe(200);
    const [imageKey] = (await s.ctx.blobs.list(`signing/${tenantId}/${id}/`)).filter((k) => k.includes('/signature-'));
    const kept = (await s.ctx.blobs.get(imageKey!))!;
    // Someone with access to the blob store swaps the image.
    await s.ctx.blobs.put(imageKey!, await sharp({ create: { width: 200, height: 60, channels: 3, background: { r: 200, g: 0, b: 0 } } }).png().toBuffer());
    const refused = await finalize(id);
    expect(refused.status).toBe(500);
    const body = (await refused.json()) as any;
    expect(body.success).toBe(false);
    expect(body.error.code).toBe('signature_image_mismatch');
    expect((await s.ctx.blobs.list(`signing/${tenantId}/${id}/`)).filter((k) => k.includes('/final-'))).toEqual([]);
    // The claim was released: with the audited image back, finalize seals at once.
    await s.ctx.blobs.put(imageKey!, kept);
    expect((await finalize(id)).status).toBe(200);
  });

  it('10 parallel finalizes seal once and leave no orphan file', { timeout: 240_000 }, async () => {
    const { id, token } = await sentDocument('beto@example.com');
    expect((await submit(id, { t: token, method: 'typed', typed_name: 'Beto' })).status).toBe(200);
    const answers = await Promise.all(Array.from({ length: 10 }, () => finalize(id)));
    const bodies = await Promise.all(answers.map(async (r) => ({ status: r.status, retryAfter: r.headers.get('retry-after'), body: (await r.json()) as any })));
    const ok = bodies.filter((b) => b.status === 200);
    expect(ok, JSON.stringify(bodies.map((b) => [b.status, b.body.error?.code]))).toHaveLength(1);
    for (const b of bodies.filter((x) => x.status !== 200)) {
      expect(b.body.success).toBe(false);
      if (b.status === 409) {
        expect(b.body.error.code).toBe('finalize_in_progress');
        expect(Number(b.retryAfter)).toBeGreaterThanOrEqual(1);
      } else {
        expect([b.status, b.body.error.code]).toEqual([400, 'document_locked']);
      }
    }
    const { events } = await s.ctx.events.readStream(documentStream(id));
    const finalized = events.filter((e) => e.type === 'signing.document_finalized');
    expect(finalized).toHaveLength(1);
    const d = finalized[0]!.data as { final_sha256: string; audit_sha256: string; certificate_sha256: string };
    const finals = (await s.ctx.blobs.list(`signing/${tenantId}/${id}/`)).filter((k) => /\/final-[0-9a-f]{64}\.pdf$/.test(k));
    expect(finals.sort()).toEqual([d.final_sha256, d.audit_sha256, d.certificate_sha256].map((h) => `signing/${tenantId}/${id}/final-${h}.pdf`).sort());
    expect(ok[0]!.body.data.final_sha256).toBe(d.final_sha256);
    // Once done, finalize is document_locked (the claim was released, not left to lapse).
    const again = await finalize(id);
    expect(again.status).toBe(400);
    expect(((await again.json()) as any).error.code).toBe('document_locked');
  });
});
