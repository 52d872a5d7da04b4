/**
 * The usage projections fold a batch event (`ApiCallsRecorded`) from its columns (issue 18: the
 * usage-writer thread's CPU per call). The call-by-call fold of the same calls is the oracle:
 * - usage-analytics: the log folded as recorded equals the log with every batch expanded into one
 *   `ApiCallRecorded` per call (`asSingleCallEvents`), document for document, floating-point sums included;
 * - usage-events: the rows equal those built call by call from `loggedCalls` and `callKey`.
 * Tenants with alerts keep the call-by-call fold (alerts are evaluated after each call): one is mixed in.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../infra/ports/event-store.ts';
import { SqliteReadModelStore } from '../../infra/read-models/sqlite/sqlite-read-models.ts';
import { usageAnalyticsProjection } from '../../projections/usage-analytics/projection.ts';
import { asSingleCallEvents, callKey, loggedCalls, usageEventsProjection, USAGE_COLLECTION } from '../../projections/usage-events/usage-events.ts';
import { serviceGroup, type ApiCallsRecorded } from '../../domain/usage/usage.ts';
import { mulberry32 } from '../../domain/shared/mulberry32.ts';
import type { Projection } from '../../projections/projection.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'usage-fold-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ENDPOINTS = ['/v1/credits/balance', '/v1/face/detect', '/v1/ocr/extract/id', '/api/usage/stats', '/v1/face/verify'];

/** A log: TenantCreated per tenant, an alert on tenant t2, then batch events of random calls spanning minutes, hours, a day and a month boundary. */
function makeLog(seed: number): RecordedEvent[] {
  const rnd = mulberry32(seed);
  const log: RecordedEvent[] = [];
  const push = (type: string, data: unknown, stream: string) =>
    log.push({ eventId: `ev-${log.length + 1}`, type, data, metadata: {}, streamName: stream, streamRevision: 0, globalPosition: log.length + 1, recordedAt: new Date(Date.UTC(2026, 9, 31, 23, 0) + log.length * 1000).toISOString() });
  for (const t of ['t1', 't2', 't3']) push('TenantCreated', { tenant_id: t, plan: 'pro' }, `tenant-${t}`);
  push('UsageAlertCreated', {
    alert_id: 'al1', tenant_id: 't2', name: 'errors', type: 'threshold', condition: { metric: 'error_rate', operator: 'gt', value: 20, window: '1h' },
    notification: { email: 'ops@example.com' }, enabled: true, secret_sealed: 'x', created_at: '2026-10-31T22:00:00.000Z',
  }, 'usage-alerts-t2');
  let now = Date.UTC(2026, 9, 31, 23, 57, 30); // three minutes before a day and month boundary
  for (let b = 0; b < 12; b++) {
    for (const t of ['t1', 't2', 't3', null]) {
      const n = 1 + Math.floor(rnd() * 60);
      // Distinct texts first seen in random order, as the recorder's string table would hold them.
      const strings: string[] = [];
      const ref = (text: string | null) => {
        if (text === null) return -1;
        let k = strings.indexOf(text);
        if (k < 0) k = strings.push(text) - 1;
        return k;
      };
      const d: ApiCallsRecorded['data'] = { tenant_id: t, strings, request_id: [], key_id: [], endpoint: [], method: [], ip_address: [], user_agent: [], status_code: [], response_time: [], request_size: [], response_size: [], credits_charged: [], created_at: [] };
      for (let i = 0; i < n; i++) {
        now += Math.floor(rnd() * 4000);
        d.request_id.push(`req-${b}-${i}-${t}`);
        d.key_id.push(ref(rnd() < 0.2 ? null : `key-${Math.floor(rnd() * 3)}`));
        d.endpoint.push(ref(ENDPOINTS[Math.floor(rnd() * ENDPOINTS.length)]!));
        d.method.push(ref(rnd() < 0.5 ? 'GET' : 'POST'));
        d.ip_address.push(ref(`10.0.0.${Math.floor(rnd() * 5)}`));
        d.user_agent.push(ref(rnd() < 0.3 ? null : `agent/${Math.floor(rnd() * 4)}`));
        d.status_code.push([200, 200, 201, 404, 429, 500][Math.floor(rnd() * 6)]!);
        d.response_time.push(rnd() * 0.9);
        d.request_size.push(Math.floor(rnd() * 5000));
        d.response_size.push(Math.floor(rnd() * 900));
        d.credits_charged.push(Math.floor(rnd() * 4));
        d.created_at.push(now);
      }
      push('ApiCallsRecorded', d, `usage-${t ?? 'anonymous'}`);
    }
    now += 50_000 + Math.floor(rnd() * 3_000_000); // later batches cross hour and day buckets
  }
  return log;
}

/** Folds `events` with `projection` in `batch`-sized slices (as the runner does) into a fresh store; every document of its collections. */
async function fold(projection: Projection, events: RecordedEvent[], name: string, batch: number): Promise<Record<string, unknown[]>> {
  const store = new SqliteReadModelStore(path.join(dir, `${name}.sqlite`));
  for (let i = 0; i < events.length; i += batch) {
    const slice = events.slice(i, i + batch);
    await store.transaction((tx) => projection.apply(slice, { store: tx, vectorIndex: null as never }));
  }
  const out: Record<string, unknown[]> = {};
  for (const c of projection.collections) out[c] = await (await store.collection(c)).find(undefined, { sort: [{ field: 'id', order: 'asc' }] });
  await store.close();
  return out;
}

describe('usage projections fold batch events from their columns', () => {
  for (const seed of [1, 2]) {
    it(`usage-analytics: the same documents as the call-by-call fold (seed ${seed})`, async () => {
      const log = makeLog(seed);
      for (const batch of [500, 7]) {
        const columns = await fold(usageAnalyticsProjection, log, `a-${seed}-${batch}`, batch);
        const perCall = await fold(usageAnalyticsProjection, asSingleCallEvents(log), `b-${seed}-${batch}`, batch);
        expect(columns).toEqual(perCall);
        const rollups = columns.usage_rollups as Array<{ calls: number; grain: string; endpoint: string; tenant_id: string }>;
        // Each call counts once per grain in its endpoint's rollup and once in the all-endpoints one.
        const calls = log.filter((e) => e.type === 'ApiCallsRecorded' && (e.data as ApiCallsRecorded['data']).tenant_id).reduce((n, e) => n + (e.data as ApiCallsRecorded['data']).request_id.length, 0);
        expect(rollups.filter((r) => r.grain === 'h').reduce((n, r) => n + r.calls, 0)).toBe(2 * calls);
        expect(new Set(rollups.map((r) => r.tenant_id))).toEqual(new Set(['t1', 't2', 't3']));
      }
    });
  }

  it('usage-events: the same rows, keys and ids as one row per call from loggedCalls/callKey', async () => {
    const log = makeLog(3);
    const rows = (await fold(usageEventsProjection, log, 'rows', 5))[USAGE_COLLECTION]!;
    const oracle = loggedCalls(log).map((c) => {
      const d = c.data;
      return {
        id: callKey(c.event, c.index).id, tenant_id: d.tenant_id, user_id: d.tenant_id, key_id: d.key_id, endpoint: d.endpoint, service: serviceGroup(d.endpoint), method: d.method,
        status_code: d.status_code, response_time: d.response_time, created_at: d.created_at, request_size: d.request_size, response_size: d.response_size,
        ip_address: d.ip_address, user_agent: d.user_agent, credits_charged: d.credits_charged, request_id: d.request_id,
        row_key: callKey(c.event, c.index).key,
      };
    });
    expect(rows.length).toBe(oracle.length);
    expect(rows).toEqual([...oracle].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
    // Row keys follow the log (callKey): the store's primary key order is log order.
    const store = new SqliteReadModelStore(path.join(dir, 'rows.sqlite'));
    const c = await store.collection(USAGE_COLLECTION);
    const byKey = await c.getMany(loggedCalls(log).map((x) => callKey(x.event, x.index).key));
    expect(byKey.size).toBe(oracle.length);
    await store.close();
  });
});
