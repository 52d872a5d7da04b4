import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresEventStore } from '../../infra/event-store/postgres/postgres-event-store.ts';
import type { RecordedEvent } from '../../infra/ports/event-store.ts';
import { eventStoreContract } from './event-store.contract.ts';
import { dropSchemas, postgresReachable, testDatabaseUrl, uniqueSchema } from '../helpers/postgres.ts';

const url = testDatabaseUrl();
const reachable = await postgresReachable('PostgreSQL event-store contract');
const schemas: string[] = [];
const fresh = (): string => {
  const s = uniqueSchema('sello_es');
  schemas.push(s);
  return s;
};
afterAll(() => dropSchemas(schemas));

if (!reachable) {
  describe.skip('event store contract: postgres (no server reachable)', () => it('skipped', () => undefined));
} else {
  eventStoreContract('postgres', () => PostgresEventStore.create(url, { schema: fresh(), pollMs: 50 }));

  describe('postgres event store: several processes', () => {
    it('a subscriber never skips an event committed late: concurrent writers from separate pools', async () => {
      const schema = fresh();
      const writers = Array.from({ length: 3 }, () => PostgresEventStore.create(url, { schema, pollMs: 20, poolSize: 8 }));
      const reader = PostgresEventStore.create(url, { schema, pollMs: 20 });
      const seen: RecordedEvent[] = [];
      const sub = reader.subscribeToAll({ fromPosition: 0, onEvents: (e) => void seen.push(...e), batchSize: 7 });
      const perWriter = 60;
      await Promise.all(
        writers.map((w, wi) =>
          Promise.all(
            Array.from({ length: perWriter }, (_, i) =>
              w.append(`s-${wi}-${i % 5}`, [
                { type: 'E', data: { wi, i, k: 0 } },
                { type: 'E', data: { wi, i, k: 1 } },
              ]),
            ),
          ),
        ),
      );
      const total = writers.length * perWriter * 2;
      await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(total);
      await sub.caughtUp();
      expect(seen).toHaveLength(total);
      for (let i = 1; i < seen.length; i++) expect(seen[i]!.globalPosition).toBeGreaterThan(seen[i - 1]!.globalPosition);
      expect(new Set(seen.map((e) => e.eventId)).size).toBe(total);
      // Both events of an append sit next to each other in the global log (an append is atomic and serialised).
      for (let i = 0; i < seen.length; i += 2) {
        const a = seen[i]!.data as { wi: number; i: number; k: number };
        const b = seen[i + 1]!.data as { wi: number; i: number; k: number };
        expect([a.k, b.k, a.wi, a.i]).toEqual([0, 1, b.wi, b.i]);
      }
      await sub.stop();
      await Promise.all([...writers, reader].map((s) => s.close()));
    });

    it('an append held open in its transaction holds back later appends; the reader sees them only in position order', async () => {
      const schema = fresh();
      const store = PostgresEventStore.create(url, { schema, pollMs: 10 });
      await store.append('warm', [{ type: 'W', data: 0 }]);
      const seen: number[] = [];
      const sub = store.subscribeToAll({ fromPosition: 0, onEvents: (e) => void seen.push(...e.map((x) => x.globalPosition)) });
      await sub.caughtUp();
      // A slow writer: its append runs inside a transaction that stays open (as a process stalled before COMMIT).
      const slow = new pg.Client({ connectionString: url });
      await slow.connect();
      await slow.query('BEGIN');
      const held = await slow.query<{ last_position: string }>(
        `SELECT last_position FROM ${schema}.es_append('slow', 'any', ARRAY['L'], ARRAY['{}']::json[], ARRAY['{}']::json[])`,
      );
      const slowPosition = Number(held.rows[0]!.last_position);
      // A fast writer starts afterwards: it must not commit a higher position before the slow one commits.
      const fast = store.append('fast', [{ type: 'F', data: 1 }]);
      await new Promise((r) => setTimeout(r, 300));
      expect(seen).toEqual([1]);
      await slow.query('COMMIT');
      await slow.end();
      const fastResult = await fast;
      expect(fastResult.lastGlobalPosition).toBeGreaterThan(slowPosition);
      await expect.poll(() => seen, { timeout: 5000 }).toEqual([1, slowPosition, fastResult.lastGlobalPosition]);
      await sub.stop();
      await store.close();
    });

    it('reports the actual revision on a mismatch and leaves a rejected append out of the log', async () => {
      const store = PostgresEventStore.create(url, { schema: fresh() });
      await store.append('acc', [{ type: 'A', data: {} }, { type: 'B', data: {} }]);
      const error = await store.append('acc', [{ type: 'C', data: {} }], { expectedRevision: 0 }).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'WrongExpectedRevisionError', actual: 1, expected: 0 });
      expect(await store.headPosition()).toBe(2);
      await store.close();
    });
  });
}
