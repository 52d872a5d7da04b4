import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../contract/workflows.contract.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { registerTestRoutes } from '../../helpers/test-routes.ts';
import { createRng } from '../../generators/rng.ts';
import { usageStream, type ApiCallRecorded } from '../../../domain/usage/usage.ts';
import { creditStream } from '../../../domain/credits/credits.ts';
import { readModelVariants, postgresReachable } from './harness.ts';

const variants = await readModelVariants('usage reads');
const pgOk = await postgresReachable('usage reads');

for (const v of variants) {
  const d = v.name === 'postgres' && !pgOk ? describe.skip : describe;
  d(`/v1/usage reads over HTTP (${v.name} read models)`, () => {
    let s: TestServer;
    let clock: ManualClock;
    let pro: { tenantId: string; key: string };
    let free: { tenantId: string; key: string };
    const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);

    beforeAll(async () => {
      clock = new ManualClock(NOW);
      const rm = v.readModels();
      s = await startTestServer({ overrides: { clock, ...(rm ? { readModels: rm } : {}) }, extend: (app) => registerTestRoutes(app) });
      pro = await s.tenantWithKey('pro');
      free = await s.tenantWithKey('free');
    });
    afterAll(async () => {
      await s?.close();
      await v.cleanup();
    });

    const settle = async () => {
      await s.ctx.usage.flush();
      await s.ctx.projections.catchUp();
    };
    const get = async (path: string, key = pro.key) => {
      const res = await s.fetch(path, { key });
      const body = (await res.json()) as any;
      // Reads are API calls too: let this one be recorded and projected before the next assertion.
      await settle();
      return { status: res.status, body };
    };

    it('summary, stats, realtime and credits reflect real calls', async () => {
      for (let i = 0; i < 3; i++) expect((await s.fetch('/v1/test/priced', { method: 'POST', key: pro.key })).status).toBe(200);
      clock.advance(61_000);
      expect((await s.fetch('/v1/test/fails', { method: 'POST', key: pro.key })).status).toBe(400);
      await settle();
      const sum = await get('/v1/usage/summary');
      expect(sum.status).toBe(200);
      expect(sum.body.success).toBe(true);
      expect(sum.body.summary.current_month_calls).toBe(4);
      expect(sum.body.summary.previous_month_calls).toBe(0);
      expect(sum.body.summary.limit).toBe(20000);
      expect(sum.body.summary.percent_used).toBe('0.0%');
      expect(sum.body.summary.remaining_calls).toBe(19997);
      expect(typeof sum.body.summary.trend).toBe('string');
      expect(sum.body.by_endpoint).toEqual({ test: 4 });
      expect(sum.body.subscription_tier).toBe('pro');
      expect(sum.body.period).toEqual({ start: '2026-11-01T00:00:00.000Z', end: '2026-11-30T23:59:59.999Z' });

      const st = await get('/v1/usage/stats?start_date=2026-11-20&end_date=2026-11-20&endpoint=/v1/test&limit=2');
      expect(st.status).toBe(200);
      expect(st.body.statistics.total_calls).toBe(4);
      expect(st.body.statistics.status_codes).toEqual({ '200': 3, '400': 1 });
      expect(typeof st.body.statistics.avg_response_time).toBe('string');
      expect(st.body.pagination).toEqual({ total: 4, page: 1, limit: 2, total_pages: 2 });
      expect(st.body.data).toHaveLength(2);
      expect(st.body.data[0].endpoint).toBe('/v1/test/fails');
      expect(st.body.data[0].status_code).toBe(400);
      expect(st.body.filters.endpoint).toBe('/v1/test');
      const all = await get('/v1/usage/stats?start_date=2026-11-20&end_date=2026-11-20');
      expect(all.body.statistics.total_calls).toBe(6); // 4 test calls, the summary and the first stats read
      expect(all.body.filters.endpoint).toBeNull();
      const filtered = await get('/v1/usage/stats?start_date=2026-11-20&end_date=2026-11-20&endpoint=priced');
      expect(filtered.body.statistics.total_calls).toBe(3);
      expect(filtered.body.data.every((r: any) => r.endpoint === '/v1/test/priced')).toBe(true);

      const rt = await get('/v1/usage/realtime?window=1h&interval=1m');
      expect(rt.status).toBe(200);
      expect(rt.body.window).toBe('1h');
      expect(rt.body.interval).toBe('1m');
      expect(rt.body.data.timeseries).toHaveLength(60);
      expect(rt.body.data.total_calls).toBe(8);
      expect(rt.body.data.timeseries.reduce((a: number, p: any) => a + p.calls, 0)).toBe(8);
      expect(rt.body.data.error_rate).toBe(0.125);
      expect(rt.body.data.timeseries.at(-1).errors).toBe(1);
      expect(rt.body.data.timeseries.at(-2).calls).toBe(3);
      expect(rt.body.data.by_endpoint).toEqual({ '/v1/test/priced': 3, '/v1/test/fails': 1, '/v1/usage/summary': 1, '/v1/usage/stats': 3 });

      const cr = await get('/v1/usage/credits');
      expect(cr.status).toBe(200);
      expect(cr.body.data.total_used).toBe(3);
      expect(cr.body.data.remaining).toBe(19997);
      const balance = (await get('/v1/credits/balance')).body;
      expect(balance.data?.available_credits ?? balance.available_credits).toBe(cr.body.data.remaining);
      expect(cr.body.data.usage_by_service).toEqual({ test: 3 });
      expect(cr.body.data.estimated_monthly_burn).toBe(Math.round((3 / 7) * 30));
      expect(cr.body.data.days_remaining).toBe(Math.floor(19997 / (3 / 7)));
      // peak_rate is the busiest minute, whatever the interval (hourly buckets put it under current_rate)
      const minutes = (await get('/v1/usage/realtime?window=1h&interval=1m')).body.data;
      const hourly = (await get('/v1/usage/realtime?window=24h&interval=1h')).body.data;
      const busiest = Math.max(...minutes.timeseries.map((p: any) => p.calls));
      expect(minutes.peak_rate).toBe(busiest);
      expect(hourly.peak_rate).toBeGreaterThanOrEqual(busiest); // the minute rows may have gained this very call
      expect(hourly.peak_rate).toBeGreaterThanOrEqual(hourly.current_rate);
      // "no end": the last day of year 9999 (one past it is a five-digit year, which sorted before every date)
      for (const end of ['9999-12-31', '9999-12-31T23:59:59.999Z']) {
        const open = await get(`/v1/usage/stats?start_date=2026-11-20&end_date=${end}&endpoint=/v1/test`);
        expect(open.status).toBe(200);
        expect(open.body.statistics.total_calls).toBe(4);
      }
    });

    it('errors: dates, limit, page, window, plan gate, permissions, auth', async () => {
      const bad = await get('/v1/usage/stats?start_date=2026-13-01');
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('invalid_date_range');
      expect(bad.body.error.details).toEqual({ start_date: '2026-13-01', end_date: null });
      const reversed = await get('/v1/usage/stats?start_date=2026-11-20&end_date=2026-11-01');
      expect(reversed.body.error.code).toBe('invalid_date_range');
      expect((await get('/v1/usage/stats?start_date=2026-02-30')).body.error.code).toBe('invalid_date_range');
      const lim = await get('/v1/usage/stats?limit=1001');
      expect(lim.status).toBe(400);
      expect(lim.body.error.code).toBe('limit_exceeded');
      expect((await get('/v1/usage/stats?limit=1000')).status).toBe(200);
      expect((await get('/v1/usage/stats?limit=0')).body.error.code).toBe('invalid_parameter');
      expect((await get('/v1/usage/stats?page=abc')).body.error.code).toBe('invalid_parameter');
      expect((await get('/v1/usage/realtime?window=2h')).body.error.code).toBe('invalid_parameter');
      expect((await get('/v1/usage/realtime?interval=2m')).body.error.code).toBe('invalid_parameter');
      const gated = await get('/v1/usage/realtime', free.key);
      expect(gated.status).toBe(403);
      expect(gated.body.error.code).toBe('plan_upgrade_required');
      const writeOnly = (await s.createKey(pro.tenantId, ['write'])).key;
      for (const p of ['/v1/usage/summary', '/v1/usage/stats', '/v1/usage/realtime', '/v1/usage/credits', '/v1/usage/alerts']) {
        const r = await get(p, writeOnly);
        expect(r.status, p).toBe(403);
        expect(r.body.error.code).toBe('insufficient_permissions');
        expect((await s.fetch(p)).status).toBe(401);
      }
    });

    it('a tenant never sees another tenant’s usage', async () => {
      const other = await s.tenantWithKey('pro');
      await settle();
      const sum = await get('/v1/usage/summary', other.key);
      expect(sum.body.summary.current_month_calls).toBe(0);
      // Only its own reads (the summary just above), none of the first tenant's calls.
      const st = await get('/v1/usage/stats?start_date=2026-11-01', other.key);
      expect(st.body.statistics.total_calls).toBe(1);
      expect(st.body.data.map((r: any) => r.endpoint)).toEqual(['/v1/usage/summary']);
      expect(st.body.data[0].user_id).toBe(other.tenantId);
      expect((await get('/v1/usage/stats?start_date=2026-11-01&endpoint=/v1/test', other.key)).body.statistics.total_calls).toBe(0);
      const cr = await get('/v1/usage/credits', other.key);
      expect(cr.body.data.total_used).toBe(0);
      // The usage of the other tenant's reads shows up in its own summary only after they are projected.
      await settle();
      const mine = await get('/v1/usage/summary');
      expect(mine.body.summary.current_month_calls).toBeGreaterThan(4);
      expect(mine.body.by_endpoint.usage).toBeGreaterThan(0);
    });

    it('property: stats, summary and credits equal a direct computation over random histories', async () => {
      const rng = createRng(`usage-${v.name}`);
      for (let round = 0; round < 3; round++) {
        const t = await s.tenantWithKey('basic');
        const endpoints = ['/v1/face/detect', '/v1/ocr/extract/id', '/v1/email/verify', '/v1/face-matching/search'];
        const calls: ApiCallRecorded['data'][] = [];
        const n = rng.int(50, 300);
        for (let i = 0; i < n; i++) {
          const at = NOW - rng.int(0, 45 * 86_400_000);
          const status = rng.pick([200, 200, 200, 201, 400, 404, 429, 500]);
          calls.push({
            request_id: `r${round}-${i}`, tenant_id: t.tenantId, key_id: null, endpoint: rng.pick(endpoints), method: 'POST', status_code: status,
            response_time: Math.round(rng.range(0.001, 3) * 1e6) / 1e6, request_size: rng.int(0, 5000), response_size: rng.int(0, 5000),
            ip_address: '127.0.0.1', user_agent: 'prop', credits_charged: status < 300 ? 1 : 0, created_at: new Date(at).toISOString(),
          });
        }
        calls.sort((a, b) => a.created_at.localeCompare(b.created_at));
        await s.ctx.events.append(usageStream(t.tenantId), calls.map((data) => ({ type: 'ApiCallRecorded', data, metadata: { tenant_id: t.tenantId } })));
        // Credits: a purchase, then reservations committed or released.
        const purchased = rng.int(300, 1000);
        const creditEvents: { type: string; data: Record<string, unknown> }[] = [
          { type: 'CreditsPurchased', data: { tenant_id: t.tenantId, amount: purchased, reason: 'prop', granted_at: new Date(NOW - 40 * 86_400_000).toISOString() } },
        ];
        let used = 0;
        const byService: Record<string, number> = {};
        for (let i = 0; i < 40; i++) {
          const amount = rng.int(1, 5);
          const endpoint = rng.pick(endpoints);
          const at = new Date(NOW - rng.int(0, 20) * 86_400_000).toISOString();
          creditEvents.push({ type: 'CreditsReserved', data: { tenant_id: t.tenantId, reservation_id: `res${i}`, amount, from_monthly: 0, from_purchased: amount, period: at.slice(0, 7), endpoint, reserved_at: at } });
          if (rng.chance(0.7)) {
            creditEvents.push({ type: 'CreditsCommitted', data: { tenant_id: t.tenantId, reservation_id: `res${i}`, amount, endpoint, committed_at: at } });
            used += amount;
            const svc = endpoint.split('/')[2]!;
            byService[svc] = (byService[svc] ?? 0) + amount;
          } else creditEvents.push({ type: 'CreditsReleased', data: { tenant_id: t.tenantId, reservation_id: `res${i}`, reason: 'prop', released_at: at } });
        }
        await s.ctx.events.append(creditStream(t.tenantId), creditEvents.map((e) => ({ ...e, metadata: { tenant_id: t.tenantId } })));
        await settle();

        // /stats over a random range with a random endpoint filter
        const a = NOW - rng.int(1, 44 * 86_400_000);
        const b = Math.min(NOW - 1, a + rng.int(60_000, 30 * 86_400_000));
        const filter = rng.chance(0.5) ? rng.pick(['face', '/v1/ocr', 'verify']) : null;
        const inRange = calls.filter((c) => Date.parse(c.created_at) >= a && Date.parse(c.created_at) <= b && (filter === null || c.endpoint.includes(filter)));
        const q = `start_date=${new Date(a).toISOString()}&end_date=${new Date(b).toISOString()}${filter ? `&endpoint=${encodeURIComponent(filter)}` : ''}`;
        const st = await get(`/v1/usage/stats?${q}&limit=1000`, t.key);
        expect(st.status).toBe(200);
        expect(st.body.statistics.total_calls).toBe(inRange.length);
        const codes: Record<string, number> = {};
        for (const c of inRange) codes[String(c.status_code)] = (codes[String(c.status_code)] ?? 0) + 1;
        expect(st.body.statistics.status_codes).toEqual(codes);
        if (inRange.length) {
          const rts = inRange.map((c) => c.response_time);
          expect(st.body.statistics.avg_response_time).toBe((rts.reduce((x, y) => x + y, 0) / rts.length).toFixed(3));
          expect(st.body.statistics.min_response_time).toBe(Math.min(...rts).toFixed(3));
          expect(st.body.statistics.max_response_time).toBe(Math.max(...rts).toFixed(3));
        }
        expect(st.body.data.map((r: any) => r.id).length).toBe(Math.min(1000, inRange.length));
        expect(new Set(st.body.data.map((r: any) => r.created_at)).size).toBe(new Set(inRange.map((c) => c.created_at)).size);

        // /summary: this month and the previous one
        const sum = await get('/v1/usage/summary', t.key);
        const month = (ms: number) => new Date(ms).toISOString().slice(0, 7);
        // + 1: the /stats read above, recorded this month
        expect(sum.body.summary.current_month_calls).toBe(calls.filter((c) => c.created_at.startsWith(month(NOW))).length + 1);
        expect(sum.body.summary.previous_month_calls).toBe(calls.filter((c) => c.created_at.startsWith(month(Date.UTC(2026, 9, 15)))).length);

        // /credits
        const cr = await get('/v1/usage/credits', t.key);
        expect(cr.body.data.total_purchased).toBe(purchased);
        expect(cr.body.data.total_used).toBe(used);
        expect(cr.body.data.usage_by_service).toEqual(byService);
        expect(cr.body.data.remaining).toBe(4000 + purchased - used);
      }
    });
  });
}

describe('usage routes in the OpenAPI document', () => {
  it('lists every /v1/usage operation with its parameters, and hides the page routes', async () => {
    const { startTestServer: start } = await import('../../helpers/server.ts');
    const s = await start();
    try {
      const doc = (await (await s.fetch('/openapi.json')).json()) as { paths: Record<string, Record<string, any>> };
      const ops = Object.entries(doc.paths).flatMap(([p, m]) => (p.startsWith('/v1/usage') ? Object.keys(m).map((x) => `${x.toUpperCase()} ${p}`) : []));
      expect(ops.sort()).toEqual(
        [
          'GET /v1/usage/summary', 'GET /v1/usage/stats', 'GET /v1/usage/realtime', 'GET /v1/usage/credits',
          'POST /v1/usage/alerts', 'GET /v1/usage/alerts', 'GET /v1/usage/alerts/{alert_id}', 'PUT /v1/usage/alerts/{alert_id}', 'DELETE /v1/usage/alerts/{alert_id}',
          'POST /v1/usage/export', 'GET /v1/usage/export/{export_id}', 'GET /v1/usage/export/{export_id}/download',
        ].sort(),
      );
      const stats = doc.paths['/v1/usage/stats']!.get;
      expect(stats.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['end_date', 'endpoint', 'limit', 'page', 'start_date']);
      expect(Object.keys(doc.paths).some((p) => p.startsWith('/dashboard'))).toBe(false);
    } finally {
      await s.close();
    }
  });
});
