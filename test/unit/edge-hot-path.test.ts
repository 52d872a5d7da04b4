import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../infra/event-store/sqlite/sqlite-event-store.ts';
import { TenancyView } from '../../apps/platform/tenancy-view.ts';
import { Authenticator } from '../../apps/api/auth.ts';
import { ApiError } from '../../apps/api/errors.ts';
import { UsageRecorder, batchEventsOf, type UsageColumns } from '../../apps/platform/usage-recorder.ts';
import { changePlan, createApiKey, createTenant, revokeApiKey } from '../../domain/tenancy/operations.ts';
import { formatApiKey } from '../../domain/tenancy/api-key.ts';
import { callsOfBatch, type ApiCallRecorded } from '../../domain/usage/usage.ts';
import { pino } from 'pino';
import { lazyChildLoggerFactory } from '../../apps/api/request-logger.ts';

/**
 * Issue 18 item 6 (edge overhead): the shortcuts of the hot path keep the answers of the slow path.
 * - the authenticator's cache of verified keys: revocation and plan changes apply on the next call, and
 *   a key that differs in one character is refused;
 * - the SQLite store's in-memory recent appends: reads answer the same events, in order, as the file,
 *   also when another connection appended in between;
 * - the usage recorder's column batches: every field of every call arrives as recorded;
 * - the request's lazy child logger: no child below the level, the request id on what is logged.
 */
const dir = mkdtempSync(join(tmpdir(), 'sello-hot-path-'));
const file = join(dir, 'events.sqlite');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cached key identities', () => {
  const store = new SqliteEventStore(join(dir, 'auth.sqlite'), 60_000, { watch: false });
  const view = new TenancyView(store, 10);
  const auth = new Authenticator(view, { JWT_SECRET: undefined, JWT_PUBLIC_KEY: undefined });
  const request = (key: string) => ({ headers: { authorization: `Bearer ${key}` } }) as unknown as FastifyRequest;
  const call = (key: string) => {
    try {
      return auth.authenticateKnown(request(key), { permission: 'read' });
    } catch (e) {
      if (e instanceof ApiError) return e.status;
      throw e;
    }
  };
  beforeAll(() => view.start());
  afterAll(async () => {
    await view.stop();
    await store.close();
  });

  it('answer the same identity, and follow revocation and plan changes on the next call', async () => {
    const { tenantId } = await createTenant({ store, name: 'Cache', plan: 'free' });
    const { key, keyId } = await createApiKey({ store, tenantId, permissions: ['read'], test: false });
    await view.catchUp();
    const first = call(key);
    const second = call(key);
    expect(typeof first).toBe('object');
    expect(second).toBe(first); // the cached identity
    expect((second as { tenant: { plan: string } }).tenant.plan).toBe('free');
    // One character changed: not the cached key (and unknown: the slow path answers).
    const other = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
    expect(call(other)).toBeNull();
    expect(call(formatApiKey(randomBytes(32), false))).toBeNull();

    await changePlan({ store, tenantId, plan: 'pro' });
    await view.catchUp();
    expect((call(key) as { tenant: { plan: string } }).tenant.plan).toBe('pro');

    await revokeApiKey({ store, keyId });
    await view.catchUp();
    expect(call(key)).toBe(401);
    expect(call(key)).toBe(401);
  });
});

describe('recent appends kept in memory (SQLite)', () => {
  const writer = new SqliteEventStore(file, 60_000, { watch: false, recentAppends: 3 });
  const other = new SqliteEventStore(file, 60_000, { watch: false });
  const reader = new SqliteEventStore(file, 60_000, { watch: false });
  afterAll(async () => {
    await writer.close();
    await other.close();
    await reader.close();
  });
  const summary = (events: { type: string; globalPosition: number; data: unknown; streamName: string; streamRevision: number }[]) =>
    events.map((e) => [e.globalPosition, e.type, e.streamName, e.streamRevision, JSON.stringify(e.data)]);

  it('answer every range as the file does, with other connections appending in between', async () => {
    await writer.append('s-a', [{ type: 'A', data: { n: 1 } }, { type: 'B', data: { n: 2 } }]);
    await other.append('s-o', [{ type: 'A', data: { n: 3 } }]);
    await writer.append('s-a', [{ type: 'A', data: { n: 4 } }]);
    await writer.append('s-a', [{ type: 'B', data: { n: 5 } }, { type: 'A', data: { n: 6 } }]);
    await writer.append('s-b', [{ type: 'A', data: { n: 7 } }, { type: 'A', data: { n: 8 } }, { type: 'B', data: { n: 9 } }]);
    await other.append('s-o', [{ type: 'B', data: { n: 10 } }]);
    const head = await reader.headPosition();
    expect(head).toBe(10);
    for (let from = 0; from <= head; from++) {
      for (const max of [1, 2, 5, 100]) {
        for (const types of [undefined, ['A'], ['B'], ['A', 'B']]) {
          expect(summary(await writer.readAll({ fromPosition: from, maxCount: max, types })), `from ${from} max ${max} types ${types}`).toEqual(
            summary(await reader.readAll({ fromPosition: from, maxCount: max, types })),
          );
        }
      }
    }
  });
});

describe('usage calls recorded as columns', () => {
  it('arrive field by field as recorded, nulls included, one batch event per tenant', async () => {
    const batches: UsageColumns[] = [];
    const recorder = new UsageRecorder(
      { append: async (b) => void batches.push(b), catchUp: async () => undefined, close: async () => undefined },
      pino({ level: 'silent' }),
      10_000,
      3,
    );
    const calls: ApiCallRecorded['data'][] = Array.from({ length: 5 }, (_, i) => ({
      request_id: `req_${i}`,
      tenant_id: i === 4 ? null : `ten_${i % 2}`,
      key_id: i === 4 ? null : `key_${i % 2}`,
      endpoint: i % 2 ? '/v1/credits/balance' : '/v1/face/detect',
      method: i % 2 ? 'GET' : 'POST',
      status_code: 200 + i,
      response_time: 0.001234 * (i + 1),
      request_size: 10 * i,
      response_size: 357 + i,
      ip_address: i === 3 ? '::1' : '127.0.0.1',
      user_agent: i === 2 ? null : `agent/${i % 2}`,
      credits_charged: i,
      created_at: new Date(Date.UTC(2026, 10, 25, 20, 0, i, 7)).toISOString(),
    }));
    for (const c of calls) {
      recorder.recordCall(c.request_id, c.tenant_id, c.key_id, c.endpoint, c.method, c.status_code, c.response_time,
        c.request_size, c.response_size, c.ip_address, c.user_agent, c.credits_charged, Date.parse(c.created_at));
    }
    await recorder.flush();
    expect(batches.map((b) => b.length)).toEqual([3, 2]); // maxBatch 3
    expect(batches[0]!.strings.length).toBeLessThan(3 * 6); // repeated texts are sent once per batch
    // One ApiCallsRecorded event per tenant per batch: ten_0, ten_1 | ten_1, none.
    const events = batches.map(batchEventsOf);
    expect(events.map((b) => b.map((e) => e.tenant_id))).toEqual([['ten_0', 'ten_1'], ['ten_1', null]]);
    for (const e of events.flat()) expect(new Set(callsOfBatch(e).map((c) => c.tenant_id))).toEqual(new Set([e.tenant_id]));
    const back = events.flat().flatMap(callsOfBatch);
    expect(back.sort((a, b) => a.request_id.localeCompare(b.request_id))).toEqual(calls);
  });
});

describe("a request's lazy child logger", () => {
  it('builds no child below the level, and logs with the request id at it', () => {
    const lines: string[] = [];
    const parent = pino({ level: 'warn' }, { write: (l: string) => void lines.push(l) });
    let children = 0;
    const counted = new Proxy(parent, { get: (t, k) => (k === 'child' ? (...a: Parameters<typeof t.child>) => (children++, t.child(...a)) : Reflect.get(t, k)) });
    const log = lazyChildLoggerFactory(counted as never, { reqId: 'req_1' }, {});
    log.info('not at warn');
    expect(children).toBe(0);
    log.warn({ secret: 'x' }, 'at warn');
    expect(children).toBe(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ reqId: 'req_1', msg: 'at warn', level: 40 });
    expect(lines).toHaveLength(1);
  });
});
