/**
 * The usage-events projection applies a retention truncation (`UsageIpsTruncated`, docs/privacy.md
 * "Retention") to every row of its range, across pages of rows sharing one instant (a batch's calls share
 * their millisecond), and to no row outside it; applied again it changes nothing; a replay of the log
 * (truncation after the calls) gives the same rows.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../infra/ports/event-store.ts';
import { SqliteReadModelStore } from '../../infra/read-models/sqlite/sqlite-read-models.ts';
import { usageEventsProjection, USAGE_COLLECTION, type UsageRecord } from '../../projections/usage-events/usage-events.ts';
import type { ApiCallsRecorded } from '../../domain/usage/usage.ts';
import { USAGE_IPS_TRUNCATED, type UsageIpsTruncated } from '../../domain/privacy/retention.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'sello-ip-trunc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T0 = Date.UTC(2026, 0, 1, 12);
let position = 0;
const event = (type: string, data: unknown, stream: string): RecordedEvent => {
  position += 1;
  return { eventId: `e${position}`, type, data, metadata: {}, streamName: stream, streamRevision: 0, globalPosition: position, recordedAt: new Date(T0).toISOString() };
};

/** One batch of `n` calls of tenant `t` at one instant, from `ip`. */
function batch(t: string, at: number, n: number, ip: string): RecordedEvent {
  const d: ApiCallsRecorded['data'] = {
    tenant_id: t,
    strings: ['/v1/x', 'GET', ip, 'ua'],
    request_id: [], key_id: [], endpoint: [], method: [], ip_address: [], user_agent: [],
    status_code: [], response_time: [], request_size: [], response_size: [], credits_charged: [], created_at: [],
  } as unknown as ApiCallsRecorded['data'];
  for (let i = 0; i < n; i++) {
    d.request_id.push(`r${position}-${i}`);
    d.key_id.push(-1);
    d.endpoint.push(0);
    d.method.push(1);
    d.ip_address.push(2);
    d.user_agent.push(3);
    d.status_code.push(200);
    d.response_time.push(0.01);
    d.request_size.push(0);
    d.response_size.push(10);
    d.credits_charged.push(0);
    d.created_at.push(at);
  }
  return event('ApiCallsRecorded', d, `usage-${t}`);
}

const truncation = (t: string, from: string | null, before: string): RecordedEvent => {
  const data: UsageIpsTruncated['data'] = { tenant_id: t, from, before, ipv4_prefix: 24, ipv6_prefix: 48, truncated_at: before };
  return event(USAGE_IPS_TRUNCATED, data, `privacy-retention-${t}`);
};

async function rows(store: SqliteReadModelStore): Promise<UsageRecord[]> {
  return (await store.collection<UsageRecord>(USAGE_COLLECTION)).find(undefined, { sort: [{ field: 'id', order: 'asc' }] });
}

describe('usage-events projection: IP truncation', () => {
  it('truncates every row of the range across pages of one instant, no other row, idempotently and again on replay', async () => {
    const log = [
      batch('t1', T0, 1000, '198.51.100.7'),
      batch('t1', T0 + 1, 1000, '198.51.100.8'), // 1,500 rows at T0 + 1: ties across the 1,000-row pages
      batch('t1', T0 + 1, 500, '2001:db8:5:6::1'),
      batch('t1', T0 + 5_000, 10, '198.51.100.9'), // after `before`
      batch('t2', T0, 10, '203.0.113.5'), // another tenant
    ];
    const before = new Date(T0 + 2).toISOString();
    const cut = truncation('t1', null, before);
    const store = new SqliteReadModelStore(path.join(dir, 'live.sqlite'));
    await store.transaction((tx) => usageEventsProjection.apply(log, { store: tx, vectorIndex: null as never }));
    await store.transaction((tx) => usageEventsProjection.apply([cut], { store: tx, vectorIndex: null as never }));
    const after = await rows(store);
    const t1Before = after.filter((r) => r.tenant_id === 't1' && r.created_at < before);
    expect(t1Before.length).toBe(2500);
    expect(new Set(t1Before.map((r) => r.ip_address))).toEqual(new Set(['198.51.100.0/24', '2001:db8:5::/48']));
    expect(after.filter((r) => r.tenant_id === 't1' && r.created_at >= before).every((r) => r.ip_address === '198.51.100.9')).toBe(true);
    expect(after.filter((r) => r.tenant_id === 't2').every((r) => r.ip_address === '203.0.113.5')).toBe(true);

    // Applied again: nothing changes. A replay (calls then truncation, in one batch) gives the same rows.
    await store.transaction((tx) => usageEventsProjection.apply([cut], { store: tx, vectorIndex: null as never }));
    expect(await rows(store)).toEqual(after);
    await store.close();
    const replayed = new SqliteReadModelStore(path.join(dir, 'replay.sqlite'));
    await replayed.transaction((tx) => usageEventsProjection.apply([...log, cut], { store: tx, vectorIndex: null as never }));
    expect(await rows(replayed)).toEqual(after);
    await replayed.close();
  });
});
