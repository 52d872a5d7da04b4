import { randomBytes, randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { KeyStore, WrappedKey } from '../../infra/ports/key-store.ts';

/**
 * The key-store contract (crypto-shredding data keys, `infra/ports/key-store.ts`). Every adapter runs it
 * unchanged; `factory` opens a store on fresh storage, `reopen` (optional) a second connection to the
 * same storage (another process).
 */
export function keyStoreContract(name: string, factory: () => Promise<{ store: KeyStore; reopen: () => KeyStore }> | { store: KeyStore; reopen: () => KeyStore }): void {
  describe(`key store contract: ${name}`, () => {
    const opened: KeyStore[] = [];
    const open = async () => {
      const r = await factory();
      opened.push(r.store);
      return { store: r.store, reopen: () => { const s = r.reopen(); opened.push(s); return s; } };
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((s) => s.close()));
    });
    const key = (subject: string, over: Partial<WrappedKey> = {}): WrappedKey => ({
      keyRef: randomUUID(),
      subject,
      wrapped: randomBytes(60),
      masterId: 'm1',
      createdAt: '2026-01-02T03:04:05.000Z',
      ...over,
    });

    it('stores one live key per subject: the first wins, later creations get it back', async () => {
      const { store } = await open();
      expect(await store.current('subject:t:a')).toBeNull();
      const k1 = key('subject:t:a');
      const got1 = await store.createIfAbsent(k1);
      expect(got1).toEqual(k1);
      const got2 = await store.createIfAbsent(key('subject:t:a'));
      expect(got2.keyRef).toBe(k1.keyRef);
      expect(Buffer.compare(got2.wrapped, k1.wrapped)).toBe(0);
      expect(await store.current('subject:t:a')).toEqual(k1);
      expect(await store.current('subject:t:b')).toBeNull();
    });

    it('concurrent creations from two connections end with one key', async () => {
      const { store, reopen } = await open();
      const other = reopen();
      const subject = `subject:t:${randomUUID()}`;
      const results = await Promise.all([...Array(6)].map((_, i) => (i % 2 ? other : store).createIfAbsent(key(subject))));
      expect(new Set(results.map((r) => r.keyRef)).size).toBe(1);
    });

    it('looks up references: live, destroyed (tombstone without the key), unknown', async () => {
      const { store } = await open();
      const a = await store.createIfAbsent(key('subject:t:a'));
      const b = await store.createIfAbsent(key('subject:t:b'));
      const destroyed = await store.destroy('subject:t:a', '2026-02-01T00:00:00.000Z');
      expect(destroyed).toEqual([a.keyRef]);
      const found = await store.lookup([a.keyRef, b.keyRef, 'nope', b.keyRef]);
      expect(found.get(a.keyRef)).toEqual({ status: 'destroyed', keyRef: a.keyRef, subject: 'subject:t:a', destroyedAt: '2026-02-01T00:00:00.000Z' });
      expect(found.get(b.keyRef)).toEqual({ status: 'live', key: b });
      expect(found.has('nope')).toBe(false);
      expect(await store.lookup([])).toEqual(new Map());
    });

    it('destroy is idempotent, and a new key after it is a different key (old data stay erased)', async () => {
      const { store } = await open();
      const a = await store.createIfAbsent(key('subject:t:a'));
      expect(await store.destroy('subject:t:a', '2026-02-01T00:00:00.000Z')).toEqual([a.keyRef]);
      expect(await store.destroy('subject:t:a', '2026-02-02T00:00:00.000Z')).toEqual([]);
      expect(await store.destroy('subject:t:never', '2026-02-02T00:00:00.000Z')).toEqual([]);
      expect(await store.current('subject:t:a')).toBeNull();
      const a2 = await store.createIfAbsent(key('subject:t:a'));
      expect(a2.keyRef).not.toBe(a.keyRef);
      expect((await store.lookup([a.keyRef])).get(a.keyRef)!.status).toBe('destroyed');
      expect((await store.lookup([a.keyRef])).get(a.keyRef)).toMatchObject({ destroyedAt: '2026-02-01T00:00:00.000Z' });
    });

    it('a destruction is seen by another connection at once', async () => {
      const { store, reopen } = await open();
      const other = reopen();
      const a = await store.createIfAbsent(key('subject:t:x'));
      expect((await other.lookup([a.keyRef])).get(a.keyRef)!.status).toBe('live');
      await other.destroy('subject:t:x', '2026-03-01T00:00:00.000Z');
      expect((await store.lookup([a.keyRef])).get(a.keyRef)!.status).toBe('destroyed');
      expect(await store.current('subject:t:x')).toBeNull();
    });

    it('lists live keys in reference order by pages and re-wraps them (destroyed ones are left alone)', async () => {
      const { store } = await open();
      const made: WrappedKey[] = [];
      for (let i = 0; i < 7; i++) made.push(await store.createIfAbsent(key(`subject:t:${i}`)));
      await store.destroy('subject:t:3', '2026-02-01T00:00:00.000Z');
      const all: WrappedKey[] = [];
      for (let after = ''; ; ) {
        const page = await store.listLive(after, 3);
        if (!page.length) break;
        all.push(...page);
        after = page[page.length - 1]!.keyRef;
      }
      const live = made.filter((k) => k.subject !== 'subject:t:3').sort((x, y) => (x.keyRef < y.keyRef ? -1 : 1));
      expect(all.map((k) => k.keyRef)).toEqual(live.map((k) => k.keyRef));
      const fresh = all.map((k) => ({ keyRef: k.keyRef, wrapped: randomBytes(60), masterId: 'm2' }));
      const destroyedRef = made[3]!.keyRef;
      await store.rewrap([...fresh, { keyRef: destroyedRef, wrapped: randomBytes(60), masterId: 'm2' }]);
      const after = await store.lookup(made.map((k) => k.keyRef));
      for (const f of fresh) {
        const l = after.get(f.keyRef)!;
        expect(l.status).toBe('live');
        if (l.status === 'live') {
          expect(l.key.masterId).toBe('m2');
          expect(Buffer.compare(l.key.wrapped, f.wrapped)).toBe(0);
        }
      }
      expect(after.get(destroyedRef)!.status).toBe('destroyed');
    });
  });
}
