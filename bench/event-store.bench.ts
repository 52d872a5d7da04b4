/**
 * Append throughput of the event stores (issue 17), in the same run: SQLite (embedded) and PostgreSQL
 * (`EVENT_STORE=postgres`, appends serialised by an advisory lock). Sequential appends (latency) and
 * 8 concurrent writers on distinct streams (throughput). Prints the load average: the machine may be
 * shared. Needs PostgreSQL at DATABASE_URL (default postgres://root@127.0.0.1:5432/test); uses and drops
 * a schema of its own.
 *
 *   npm run bench:event-store [-- --appends 1000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { SqliteEventStore } from '../infra/event-store/sqlite/sqlite-event-store.ts';
import { PostgresEventStore } from '../infra/event-store/postgres/postgres-event-store.ts';
import type { EventStore } from '../infra/ports/event-store.ts';

const { values } = parseArgs({ options: { appends: { type: 'string', default: '1000' } } });
const appends = Number(values.appends);
const url = process.env.DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test';
const event = { type: 'CreditsReserved', data: { tenant_id: 't', reservation_id: 'r', amount: 1, endpoint: '/v1/face/detect' } };

const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function measure(store: EventStore): Promise<{ p50: number; p99: number; sequentialPerSecond: number; concurrentPerSecond: number }> {
  for (let i = 0; i < 50; i++) await store.append(`warm-${i % 5}`, [event]);
  const lat: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < appends; i++) {
    const a = performance.now();
    await store.append(`seq-${i % 50}`, [event]);
    lat.push(performance.now() - a);
  }
  const sequentialPerSecond = appends / ((performance.now() - t0) / 1000);
  let next = 0;
  const t1 = performance.now();
  await Promise.all(Array.from({ length: 8 }, async (_, w) => {
    while (next++ < appends) await store.append(`conc-${w}`, [event]);
  }));
  const concurrentPerSecond = appends / ((performance.now() - t1) / 1000);
  return { p50: pct(lat, 50), p99: pct(lat, 99), sequentialPerSecond, concurrentPerSecond };
}

console.log(`load average before: ${loadavg().map((x) => x.toFixed(2)).join(' ')} | appends ${appends}`);
const dir = mkdtempSync(join(tmpdir(), 'sello-es-bench-'));
const sqlite = new SqliteEventStore(join(dir, 'events.sqlite'));
const s = await measure(sqlite);
await sqlite.close();
rmSync(dir, { recursive: true, force: true });

const schema = `sello_es_bench_${process.pid}`;
const postgres = PostgresEventStore.create(url, { schema, poolSize: 10 });
const p = await measure(postgres);
await postgres.close();
const c = new pg.Client({ connectionString: url });
await c.connect();
await c.query(`DROP SCHEMA ${schema} CASCADE`);
await c.end();

const f = (n: number): string => n.toFixed(2).padStart(8);
console.log('store        append p50 ms  p99 ms   sequential/s   8 writers/s');
console.log(`sqlite       ${f(s.p50)}  ${f(s.p99)}   ${f(s.sequentialPerSecond)}   ${f(s.concurrentPerSecond)}`);
console.log(`postgres     ${f(p.p50)}  ${f(p.p99)}   ${f(p.sequentialPerSecond)}   ${f(p.concurrentPerSecond)}`);
console.log(`load average after: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
