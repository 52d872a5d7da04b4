/**
 * Benchmarks of usage analytics (issue 14), on the real stack: SQLite event store, PostgreSQL read
 * models (the scaled-out adapter), the API over HTTP on loopback. Prints figures with the load average
 * (the machine is shared: compare ratios measured in the same run).
 *
 * 1. ingest: N usage events (default 1,000,000; one tenant, spread over 30 days, 8 endpoints) appended
 *    to the log in batches of 1,000 while the usage projections (`usage-events`, `usage-analytics`) project
 *    them into PostgreSQL: sustained appended-and-projected events per second (target 10,000/s).
 * 2. `GET /v1/usage/stats` with random ranges and endpoint filters over those events: p50/p95 (target p95 < 200 ms).
 * 3. `GET /v1/usage/realtime?window=24h&interval=1m`: p50/p95.
 * 4. `POST /v1/usage/export` of every row (CSV): time and peak RSS growth (target < 150 MB).
 * 5. projection lag at 1,000 events/s for 10 s: append -> read model, p50/p95/max (target < 1 s).
 *
 *   node --import tsx bench/usage.bench.ts                 # N=1000000 (takes several minutes)
 *   N=100000 node --import tsx bench/usage.bench.ts
 * Needs PostgreSQL at DATABASE_URL (default postgres://root@127.0.0.1:5432/test); uses a fresh schema.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { buildApp } from '../apps/api/app.ts';
import { loadConfig } from '../apps/api/config.ts';
import { createPlatform } from '../apps/platform/platform.ts';
import { createApiKey, createTenant } from '../domain/tenancy/operations.ts';
import { usageStream, type ApiCallRecorded } from '../domain/usage/usage.ts';
import { PostgresReadModelStore } from '../infra/read-models/postgres/postgres-read-models.ts';
import { SqliteEventStore } from '../infra/event-store/sqlite/sqlite-event-store.ts';

const N = Number(process.env.N ?? 1_000_000);
/** `ONLY_INGEST=1` runs phase 1 alone (to compare write-path changes quickly, in the same conditions). */
const ONLY_INGEST = process.env.ONLY_INGEST === '1';
const DB = process.env.DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test';
const ENDPOINTS = ['/v1/face/verify', '/v1/face/detect', '/v1/ocr/extract/id', '/v1/ocr/extract/document', '/v1/email/verify', '/v1/face-matching/search', '/v1/mex/renapo/get-curp', '/v1/signing/documents'];
const DAY = 86_400_000;

const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const ms = (x: number) => `${x.toFixed(1)} ms`;

function makeCall(tenantId: string, i: number, at: number): ApiCallRecorded['data'] {
  const status = i % 23 === 0 ? 500 : i % 9 === 0 ? 400 : 200;
  return {
    request_id: `b${i}`, tenant_id: tenantId, key_id: 'key_bench', endpoint: ENDPOINTS[i % ENDPOINTS.length]!, method: 'POST', status_code: status,
    response_time: 0.02 + (i % 997) / 1000, request_size: 2048 + (i % 100), response_size: 512 + (i % 50), ip_address: '203.0.113.5', user_agent: 'bench/1.0',
    credits_charged: status === 200 ? 2 : 0, created_at: new Date(at).toISOString(),
  };
}

async function main(): Promise<void> {
  const schema = `usage_bench_${Date.now().toString(36)}`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sello-usage-bench-'));
  console.log(`usage bench: N=${N.toLocaleString('en-US')} events, PostgreSQL schema ${schema}, ${os.cpus().length} cores, load ${load()}`);
  const events = new SqliteEventStore(path.join(dir, 'events.sqlite'), 20);
  const readModels = PostgresReadModelStore.create(DB, schema);
  const config = loadConfig({}, { DATA_DIR: dir, PORT: 0, HOST: '127.0.0.1', LOG_LEVEL: 'silent', BOOTSTRAP: 'false', WORKER_THREADS: 1, WORKFLOW_POLL_MS: 50 });
  const platform = await createPlatform(config, { kind: 'api', overrides: { events, readModels, log: pino({ level: 'silent' }) } });
  const app = await buildApp(platform);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const { tenantId } = await createTenant({ store: events, name: 'Bench', plan: 'enterprise' });
  const { key } = await createApiKey({ store: events, tenantId, permissions: ['read', 'write'], test: false });
  await platform.tenancy.catchUp();
  const get = async (p: string) => {
    const t0 = performance.now();
    const res = await fetch(`${url}${p}`, { headers: { authorization: `Bearer ${key}` } });
    const body = (await res.json()) as any;
    if (res.status !== 200 && res.status !== 202) throw new Error(`${p}: ${res.status} ${JSON.stringify(body)}`);
    return { dt: performance.now() - t0, body };
  };

  // 1. Sustained append + projection into PostgreSQL.
  const end = Date.now();
  const start = end - 30 * DAY;
  const step = (end - start) / N;
  const t0 = performance.now();
  let appendedAt = 0;
  for (let i = 0; i < N; i += 1000) {
    const batch: ApiCallRecorded['data'][] = [];
    for (let j = i; j < Math.min(N, i + 1000); j++) batch.push(makeCall(tenantId, j, start + j * step));
    await events.append(usageStream(tenantId), batch.map((data) => ({ type: 'ApiCallRecorded', data, metadata: { tenant_id: tenantId } })));
    if (i % 100_000 === 0 && i > 0) console.log(`  appended ${i.toLocaleString('en-US')} (${((i / (performance.now() - t0)) * 1000).toFixed(0)}/s), load ${load()}`);
  }
  appendedAt = performance.now();
  await platform.projections.catchUp();
  const done = performance.now();
  console.log(`1. ingest: appended ${N.toLocaleString('en-US')} in ${((appendedAt - t0) / 1000).toFixed(1)} s (${((N / (appendedAt - t0)) * 1000).toFixed(0)}/s to SQLite);` +
    ` appended AND projected into PostgreSQL in ${((done - t0) / 1000).toFixed(1)} s = ${((N / (done - t0)) * 1000).toFixed(0)} events/s sustained (target 10,000/s); load ${load()}`);
  const pgc = new pg.Client({ connectionString: DB });
  await pgc.connect();
  const sizes = await pgc.query(`SELECT relname, n_live_tup FROM pg_stat_user_tables WHERE schemaname = $1 ORDER BY relname`, [schema]);
  console.log(`   tables: ${sizes.rows.map((r) => `${r.relname}=${r.n_live_tup}`).join(', ')}`);
  await pgc.query(`ANALYZE`).catch(() => undefined);
  if (ONLY_INGEST) {
    await app.close();
    await platform.close();
    await pgc.query(`DROP SCHEMA ${schema} CASCADE`);
    await pgc.end();
    rmSync(dir, { recursive: true, force: true });
    return;
  }

  // 2. /stats with filters.
  const statsTimes: number[] = [];
  let checked = 0;
  for (let i = 0; i < 100; i++) {
    const a = start + Math.random() * 25 * DAY;
    const b = a + Math.random() * 5 * DAY + 60_000;
    const f = i % 3 === 0 ? `&endpoint=${encodeURIComponent(ENDPOINTS[i % ENDPOINTS.length]!.slice(0, 8))}` : '';
    const r = await get(`/v1/usage/stats?start_date=${new Date(a).toISOString()}&end_date=${new Date(b).toISOString()}${f}&limit=100&page=${1 + (i % 3)}`);
    statsTimes.push(r.dt);
    checked += r.body.statistics.total_calls;
  }
  const whole = await get(`/v1/usage/stats?start_date=${new Date(start - DAY).toISOString()}&end_date=${new Date(end + DAY).toISOString()}`);
  console.log(`2. /v1/usage/stats (random 1 min-5 day ranges, 1/3 with endpoint filter, pages 1-3): p50 ${ms(pct(statsTimes, 50))}, p95 ${ms(pct(statsTimes, 95))} (target p95 < 200 ms);` +
    ` whole 30 days: ${ms(whole.dt)}, total_calls ${whole.body.statistics.total_calls} (= N: ${whole.body.statistics.total_calls >= N}); avg calls per range ${(checked / 100).toFixed(0)}; load ${load()}`);

  // 3. /realtime 24h at 1m.
  const rtTimes: number[] = [];
  let points = 0;
  for (let i = 0; i < 50; i++) {
    const r = await get('/v1/usage/realtime?window=24h&interval=1m');
    rtTimes.push(r.dt);
    points = r.body.data.timeseries.length;
  }
  console.log(`3. /v1/usage/realtime?window=24h&interval=1m (${points} points): p50 ${ms(pct(rtTimes, 50))}, p95 ${ms(pct(rtTimes, 95))}; load ${load()}`);

  // 4. Export of every row.
  global.gc?.();
  // RSS rarely shrinks after the ingest phase, so the JS heap + buffers are sampled too.
  const m0 = process.memoryUsage();
  const rss0 = m0.rss;
  const live0 = m0.heapUsed + m0.external;
  let peak = rss0;
  let peakLive = live0;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peak = Math.max(peak, m.rss);
    peakLive = Math.max(peakLive, m.heapUsed + m.external);
  }, 25);
  const e0 = performance.now();
  const res = await fetch(`${url}/v1/usage/export`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ format: 'csv', start_date: new Date(start - DAY).toISOString().slice(0, 10), end_date: new Date(end + DAY).toISOString().slice(0, 10) }),
  });
  const created = (await res.json()) as { export_id: string };
  let status: any;
  for (;;) {
    status = (await get(`/v1/usage/export/${created.export_id}`)).body;
    if (status.status !== 'processing') break;
    await new Promise((r) => setTimeout(r, 200));
  }
  clearInterval(sampler);
  const et = (performance.now() - e0) / 1000;
  console.log(`4. export (CSV, streamed to the blob store): ${status.status}, ${status.row_count?.toLocaleString('en-US')} rows, ${(status.size_bytes / 1e6).toFixed(1)} MB in ${et.toFixed(1)} s` +
    ` (${(status.row_count / et).toFixed(0)} rows/s); peak RSS growth ${((peak - rss0) / 1e6).toFixed(1)} MB over ${(rss0 / 1e6).toFixed(0)} MB (target < 150 MB),` +
    ` peak heap+external growth ${((peakLive - live0) / 1e6).toFixed(1)} MB; load ${load()}`);

  // 5. Projection lag at 1,000 events/s.
  const lags: number[] = [];
  const pending: Array<{ pos: number; at: number }> = [];
  let stop = false;
  const monitor = (async () => {
    while (!stop || pending.length) {
      const cp = await readModels.getCheckpoint('usage-analytics');
      const now = performance.now();
      while (pending.length && pending[0]!.pos <= cp) lags.push(now - pending.shift()!.at);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  let k = N;
  const l0 = performance.now();
  for (let tick = 0; tick < 200; tick++) {
    const batch: ApiCallRecorded['data'][] = [];
    for (let j = 0; j < 50; j++) batch.push(makeCall(tenantId, k++, Date.now()));
    const at = performance.now();
    const r = await events.append(usageStream(tenantId), batch.map((data) => ({ type: 'ApiCallRecorded', data, metadata: { tenant_id: tenantId } })));
    pending.push({ pos: r.lastGlobalPosition, at });
    const next = l0 + (tick + 1) * 50;
    await new Promise((r2) => setTimeout(r2, Math.max(0, next - performance.now())));
  }
  stop = true;
  await monitor;
  console.log(`5. projection lag at ${((200 * 50) / ((performance.now() - l0) / 1000)).toFixed(0)} events/s for 10 s (append -> usage-analytics read model in PostgreSQL): p50 ${ms(pct(lags, 50))}, p95 ${ms(pct(lags, 95))}, max ${ms(Math.max(...lags))} (target < 1 s); load ${load()}`);

  await app.close();
  await platform.close();
  await pgc.query(`DROP SCHEMA ${schema} CASCADE`);
  await pgc.end();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
