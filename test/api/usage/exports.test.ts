import { readFileSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, eventually } from '../../contract/workflows.contract.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { temporalAddress } from '../../helpers/temporal.ts';
import { usageStream, type ApiCallRecorded } from '../../../domain/usage/usage.ts';
import { readModelVariants, postgresReachable } from './harness.ts';
import { minioReachable, objectNames, s3BlobConfig, TestBuckets } from '../../helpers/minio.ts';

const variants = await readModelVariants('usage exports');
const pgOk = await postgresReachable('usage exports');
// The files on MinIO too (BLOB_STORE=s3): written by the export workflow, streamed back by the download route.
const minioOk = await minioReachable('usage exports on MinIO blobs');
const buckets = new TestBuckets('sello-exports');
afterAll(async () => {
  if (minioOk) await buckets.removeAll();
});
type Blobs = { name: string; bucket: string; prefix: string } | null;
const runs: Array<{ v: (typeof variants)[number]; blobs: Blobs; temporal?: string | null }> = [
  ...variants.map((v) => ({ v, blobs: null })),
  { v: variants[0]!, blobs: { name: 'MinIO', bucket: buckets.name(), prefix: 'usage-api' } },
  // The export workflow (write, e-mail, expire after 30 days by the platform's clock) on Temporal.
  { v: variants[0]!, blobs: null, temporal: await temporalAddress('usage exports on Temporal') },
];
const json = (body: unknown) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const DAY = 86_400_000;

/** Awkward user agents: formulas, quotes, commas, line breaks, non-ASCII. */
const AGENTS = ['=cmd|\' /C calc\'!A0', '+SUM(1,2)', '-2+3', '@import', 'has "quotes", and commas', 'line\r\nbreak', 'ñandú ✓ 日本', 'curl/8.5'];

for (const { v, blobs, temporal } of runs) {
  const d = (v.name === 'postgres' && !pgOk) || (blobs && !minioOk) || temporal === null ? describe.skip : describe;
  d(`/v1/usage/export over HTTP (${v.name} read models${blobs ? `, ${blobs.name} blobs` : ''}${temporal ? ', workflows on Temporal' : ''})`, () => {
    let s: TestServer;
    const NOW = Date.UTC(2026, 10, 20, 12);
    const clock = new ManualClock(NOW);
    let t: { tenantId: string; key: string };
    const calls: ApiCallRecorded['data'][] = [];

    beforeAll(async () => {
      const rm = v.readModels();
      const workflows = temporal ? { WORKFLOWS: 'temporal', TEMPORAL_ADDRESS: temporal, TEMPORAL_TASK_QUEUE: `usage-exports-${process.pid}-${Date.now()}`, TEMPORAL_CLOCK_RECHECK_MS: 100 } : {};
      s = await startTestServer({ config: { WORKFLOW_POLL_MS: 20, ...workflows, ...(blobs ? s3BlobConfig(blobs.bucket, blobs.prefix) : {}) }, overrides: { clock, ...(rm ? { readModels: rm } : {}) } });
      t = await s.tenantWithKey('pro');
      // 6,000 calls in one minute (paged within the minute), 500 in another minute of the same hour, 300 over 3 days.
      const busy = Date.UTC(2026, 10, 10, 9, 30);
      for (let i = 0; i < 6000; i++) calls.push(call(busy + (i % 60_000), i));
      for (let i = 0; i < 500; i++) calls.push(call(busy + 5 * 60_000 + i, 6000 + i));
      for (let i = 0; i < 300; i++) calls.push(call(Date.UTC(2026, 10, 11) + i * 800_000, 6500 + i));
      calls.push(call(Date.UTC(2026, 10, 9, 23, 59, 59, 999), 9000)); // outside the range (day before)
      calls.sort((a, b) => a.created_at.localeCompare(b.created_at));
      for (let i = 0; i < calls.length; i += 2000) {
        await s.ctx.events.append(usageStream(t.tenantId), calls.slice(i, i + 2000).map((data) => ({ type: 'ApiCallRecorded', data, metadata: { tenant_id: t.tenantId } })));
      }
      await s.ctx.projections.catchUp();
    });
    afterAll(async () => {
      await s?.close();
      await v.cleanup();
    });

    function call(ms: number, i: number): ApiCallRecorded['data'] {
      return {
        request_id: `req-${i}`, tenant_id: t.tenantId, key_id: 'key_1', endpoint: i % 3 ? '/v1/face/detect' : '/v1/ocr/extract/id', method: 'POST', status_code: i % 7 ? 200 : 400,
        response_time: (i % 100) / 1000, request_size: i, response_size: 2 * i, ip_address: '203.0.113.7', user_agent: AGENTS[i % AGENTS.length]!, credits_charged: i % 7 ? 1 : 0,
        created_at: new Date(ms).toISOString(),
      };
    }
    const post = async (body: unknown, key = t.key) => {
      const res = await s.fetch('/v1/usage/export', { method: 'POST', key, ...json(body) });
      return { status: res.status, body: (await res.json()) as any };
    };
    const status = async (id: string, key = t.key) => {
      const res = await s.fetch(`/v1/usage/export/${id}`, { key });
      return { status: res.status, body: (await res.json()) as any };
    };
    const completed = (id: string) => eventually(async () => ((await status(id)).body.status === 'completed' ? (await status(id)).body : null), 60_000, `export ${id}`);

    it('writes an RFC 4180 UTF-8 CSV of the range, streamed, with formulas neutralised, behind a signed expiring link, and e-mails it', async () => {
      const created = await post({ format: 'csv', start_date: '2026-11-10', end_date: '2026-11-13', include_details: true, email_to: 'finance@example.com' });
      expect(created.status).toBe(202);
      expect(created.body).toMatchObject({ success: true, status: 'processing', download_url: null });
      expect(Date.parse(created.body.estimated_completion)).toBeGreaterThanOrEqual(NOW);
      const done = await completed(created.body.export_id);
      const expected = calls.filter((c) => c.created_at >= '2026-11-10' && c.created_at < '2026-11-14');
      expect(done.row_count).toBe(expected.length);
      expect(done.progress).toBe(100);
      expect(done.expires_at).toBe(new Date(Date.parse(done.completed_at) + 90 * DAY).toISOString());
      const res = await fetch(done.download_url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/csv');
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(bytes.length).toBe(done.size_bytes);
      expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]); // UTF-8 BOM
      const text = bytes.toString('utf8');
      expect(text.includes('\r\n')).toBe(true);
      const rows = parseCsv(text, { bom: true, columns: true, relax_column_count: false }) as Record<string, string>[];
      expect(rows).toHaveLength(expected.length);
      expect(rows.map((r) => r.request_id)).toEqual(expected.map((c) => c.request_id)); // time order, none lost or repeated
      for (const [i, r] of rows.entries()) {
        const c = expected[i]!;
        expect(r.endpoint).toBe(c.endpoint);
        expect(Number(r.status_code)).toBe(c.status_code);
        const ua = c.user_agent!;
        expect(r.user_agent).toBe(/^[=+\-@\t\r]/.test(ua) ? `'${ua}` : ua);
      }
      // No cell starts with a formula character once parsed.
      expect(rows.some((r) => Object.values(r).some((x) => /^[=+@]/.test(x)))).toBe(false);

      // The e-mail carries a working link.
      const outbox = path.join(s.dataDir, 'outbox');
      const mail = await eventually(() => (existsSync(outbox) ? readdirSync(outbox).map((f) => readFileSync(path.join(outbox, f), 'utf8')).find((m) => m.includes(created.body.export_id)) : undefined), 5_000, 'export e-mail');
      expect(mail).toContain('finance@example.com');
      const link = /(http:\/\/\S+download\?expires=\d+&(?:amp;)?signature=[0-9a-f=\r\n]+)/.exec(mail.replace(/=\r?\n/g, '').replace(/=3D/g, '='))?.[1]?.replace('&amp;', '&');
      expect(link).toBeDefined();
      const viaMail = await fetch(link!.replace(/^http:\/\/[^/]+/, s.url));
      expect(viaMail.status).toBe(200);

      // Links: a wrong signature, a stale expiry, another id.
      const u = new URL(done.download_url);
      const sig = u.searchParams.get('signature')!;
      const tampered = `${u.origin}${u.pathname}?expires=${u.searchParams.get('expires')}&signature=${sig.replace(/.$/, sig.endsWith('0') ? '1' : '0')}`;
      expect((await fetch(tampered)).status).toBe(403);
      expect((await fetch(`${u.origin}${u.pathname}?expires=${Number(u.searchParams.get('expires')) + 10}&signature=${sig}`)).status).toBe(403);
      const other = await s.tenantWithKey('pro');
      expect((await status(created.body.export_id, other.key)).status).toBe(404);
      clock.advance(2 * 3_600_000); // the returned link (1 hour) has expired
      expect((await fetch(done.download_url)).status).toBe(403);
      clock.advance(-2 * 3_600_000);
    });

    it('JSON lines, and deletion of the file by the durable timer after the plan’s history (Basic: 30 days)', async () => {
      const basic = await s.tenantWithKey('basic');
      const mine = [call(NOW - DAY, 1), call(NOW - DAY + 1, 2)].map((c) => ({ ...c, tenant_id: basic.tenantId }));
      await s.ctx.events.append(usageStream(basic.tenantId), mine.map((data) => ({ type: 'ApiCallRecorded', data, metadata: { tenant_id: basic.tenantId } })));
      await s.ctx.projections.catchUp();
      const created = await post({ format: 'json', start_date: '2026-11-19', end_date: '2026-11-19' }, basic.key);
      expect(created.status).toBe(202);
      const id = created.body.export_id;
      const done = await eventually(async () => ((await status(id, basic.key)).body.status === 'completed' ? (await status(id, basic.key)).body : null), 30_000, 'jsonl export');
      expect(done.format).toBe('json'); // as requested (it read jsonl); the file is JSON Lines
      const lines = (await (await fetch(done.download_url)).text()).trim().split('\n').map((l) => JSON.parse(l));
      expect(lines.map((l) => l.request_size)).toEqual([1, 2]);
      expect(Object.keys(lines[0])).toEqual(['id', 'created_at', 'endpoint', 'method', 'status_code', 'response_time', 'request_size', 'response_size', 'credits_charged']);
      expect(lines[0].ip_address).toBeUndefined(); // details not asked for
      const blobKey = `${basic.tenantId}/usage-exports/${id}.jsonl`;
      expect(await s.ctx.blobs.get(blobKey)).not.toBeNull();
      if (blobs) expect(await objectNames(blobs.bucket, `${blobs.prefix}/${basic.tenantId}/`)).toEqual([`${blobs.prefix}/${blobKey}`]);
      clock.advance(30 * DAY + 60_000);
      await eventually(async () => (await status(id, basic.key)).body.status === 'expired', 10_000, 'expiry');
      expect(await s.ctx.blobs.get(blobKey)).toBeNull();
      if (blobs) expect(await objectNames(blobs.bucket, `${blobs.prefix}/${basic.tenantId}/`)).toEqual([]);
      const after = (await status(id, basic.key)).body;
      expect(after.download_url).toBeNull();
      clock.advance(-(30 * DAY + 60_000));
    });

    it('errors: dates, format, quota per plan (Free: 5 per 24 h), permissions', async () => {
      const cases: Array<[unknown, string]> = [
        [{ start_date: '2026-11-10' }, 'invalid_date_range'],
        [{ start_date: '2026-11-31', end_date: '2026-12-01' }, 'invalid_date_range'],
        [{ start_date: '2026-11-20', end_date: '2026-11-01' }, 'invalid_date_range'],
        [{ start_date: '2024-01-01', end_date: '2026-01-01' }, 'invalid_date_range'],
        [{ start_date: '2026-11-01', end_date: '2026-11-02', format: 'xlsx' }, 'invalid_parameter'],
        [{ start_date: '2026-11-01', end_date: '2026-11-02', email_to: 'nope' }, 'invalid_parameter'],
      ];
      for (const [body, code] of cases) {
        const r = await post(body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.body.error.code).toBe(code);
      }
      const bad = await post({ start_date: 'yesterday', end_date: '2026-11-02' });
      expect(bad.body.error.details).toEqual({ start_date: 'yesterday', end_date: '2026-11-02' });
      const free = await s.tenantWithKey('free');
      for (let i = 0; i < 5; i++) expect((await post({ start_date: '2026-11-01', end_date: '2026-11-02' }, free.key)).status).toBe(202);
      const over = await post({ start_date: '2026-11-01', end_date: '2026-11-02' }, free.key);
      expect(over.status).toBe(429);
      expect(over.body.error.code).toBe('export_quota_exceeded');
      expect(over.body.error.details).toEqual({ quota: 5, window_hours: 24, plan: 'free' });
      const writeOnly = (await s.createKey(t.tenantId, ['write'])).key;
      expect((await post({ start_date: '2026-11-01', end_date: '2026-11-02' }, writeOnly)).status).toBe(403);
      expect((await status('exp_unknown')).status).toBe(404);
    });
  });
}
