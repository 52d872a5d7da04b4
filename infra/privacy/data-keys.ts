/**
 * Data keys of crypto-shredding: one random AES-256 key per data subject, stored wrapped (AES-256-GCM)
 * by the master key in a {@link KeyStore}. Node's `crypto` only (issue 28: no home-made cipher).
 *
 * Unwrapped keys are cached in process for {@link CACHE_MS} (replays and batches of one subject's events
 * need one key-store read, not one per event). A destruction clears this process's cache at once; another
 * process may keep using a cached key for at most that long (docs/privacy.md).
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes, randomUUID } from 'node:crypto';
import type { KeyStore, WrappedKey } from '../ports/key-store.ts';

/** How long an unwrapped key stays cached in one process, milliseconds. */
export const CACHE_MS = 10_000;
const MAX_CACHED = 20_000;

/** The master keys: `current` wraps new keys; `previous` still unwrap keys not yet re-wrapped (rotation). */
export interface MasterKeys {
  current: Buffer;
  previous: readonly Buffer[];
}

/** Public id of a master key: the first 16 hex characters of SHA-256("sello-master" || key). Reveals nothing of the key. */
export function masterKeyId(master: Buffer): string {
  return createHash('sha256').update('sello-master').update(master).digest('hex').slice(0, 16);
}

const aad = (keyRef: string, subject: string): Buffer => Buffer.from(`sello-data-key\0${keyRef}\0${subject}`, 'utf8');

/** Wraps a 32-byte data key: IV (12) + ciphertext (32) + tag (16), bound to its reference and subject. */
export function wrapKey(master: Buffer, keyRef: string, subject: string, key: Buffer): Buffer {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', master, iv);
  c.setAAD(aad(keyRef, subject));
  const ct = Buffer.concat([c.update(key), c.final()]);
  return Buffer.concat([iv, ct, c.getAuthTag()]);
}

/**
 * Unwraps {@link wrapKey}'s output.
 * @throws Error when the master key is wrong or the bytes were altered (GCM authentication).
 */
export function unwrapKey(master: Buffer, keyRef: string, subject: string, wrapped: Buffer): Buffer {
  const d = createDecipheriv('aes-256-gcm', master, wrapped.subarray(0, 12));
  d.setAAD(aad(keyRef, subject));
  d.setAuthTag(wrapped.subarray(wrapped.length - 16));
  return Buffer.concat([d.update(wrapped.subarray(12, wrapped.length - 16)), d.final()]);
}

/** A key reference's state for a reader. */
export type KeyState = { status: 'live'; key: Buffer } | { status: 'destroyed'; destroyedAt: string } | { status: 'missing' };

export class DataKeys {
  private masters: MasterKeys;
  private readonly bySubject = new Map<string, { keyRef: string; key: Buffer; until: number }>();
  private readonly byRef = new Map<string, { key: Buffer; until: number }>();

  /**
   * @param loadMasters reads the master keys (again when a key wrapped by an unknown master turns up: a
   *   rotation by the CLI while this process runs).
   */
  constructor(
    readonly store: KeyStore,
    private readonly loadMasters: () => MasterKeys,
    private readonly now: () => number = Date.now,
  ) {
    this.masters = loadMasters();
  }

  private master(id: string): Buffer | null {
    const find = () => [this.masters.current, ...this.masters.previous].find((m) => masterKeyId(m) === id) ?? null;
    const found = find();
    if (found) return found;
    this.masters = this.loadMasters();
    return find();
  }

  private unwrap(k: WrappedKey): Buffer {
    const m = this.master(k.masterId);
    if (!m) throw new Error(`data key ${k.keyRef}: wrapped by master key ${k.masterId}, which is not configured (PRIVACY_MASTER_KEY / PRIVACY_MASTER_KEY_PREVIOUS)`);
    return unwrapKey(m, k.keyRef, k.subject, k.wrapped);
  }

  private remember(keyRef: string, key: Buffer): void {
    if (this.byRef.size >= MAX_CACHED) this.byRef.clear();
    this.byRef.set(keyRef, { key, until: this.now() + CACHE_MS });
  }

  /** The subject's live data key (created, wrapped and stored when it has none). */
  async keyFor(subject: string): Promise<{ keyRef: string; key: Buffer }> {
    const hit = this.bySubject.get(subject);
    if (hit && hit.until > this.now()) return hit;
    let stored = await this.store.current(subject);
    if (!stored) {
      const keyRef = randomUUID();
      const key = randomBytes(32);
      // Read the master keys again: a rotation may have started since (a new key must not be wrapped by
      // the master being rotated out, or it would be lost with it).
      this.masters = this.loadMasters();
      const master = this.masters.current;
      stored = await this.store.createIfAbsent({ keyRef, subject, wrapped: wrapKey(master, keyRef, subject, key), masterId: masterKeyId(master), createdAt: new Date(this.now()).toISOString() });
    }
    const out = { keyRef: stored.keyRef, key: this.unwrap(stored), until: this.now() + CACHE_MS };
    if (this.bySubject.size >= MAX_CACHED) this.bySubject.clear();
    this.bySubject.set(subject, out);
    this.remember(out.keyRef, out.key);
    return out;
  }

  /** The state of several key references (one key-store read for those not cached). */
  async resolve(keyRefs: Iterable<string>): Promise<Map<string, KeyState>> {
    const out = new Map<string, KeyState>();
    const ask: string[] = [];
    const t = this.now();
    for (const ref of keyRefs) {
      if (out.has(ref)) continue;
      const hit = this.byRef.get(ref);
      if (hit && hit.until > t) out.set(ref, { status: 'live', key: hit.key });
      else ask.push(ref);
    }
    if (ask.length) {
      const found = await this.store.lookup(ask);
      for (const ref of ask) {
        const f = found.get(ref);
        if (!f) out.set(ref, { status: 'missing' });
        else if (f.status === 'destroyed') out.set(ref, { status: 'destroyed', destroyedAt: f.destroyedAt });
        else {
          const key = this.unwrap(f.key);
          this.remember(ref, key);
          out.set(ref, { status: 'live', key });
        }
      }
    }
    return out;
  }

  /** Destroys the subject's keys (see {@link KeyStore.destroy}) and forgets them in this process. */
  async destroy(subject: string, at: string): Promise<string[]> {
    const refs = await this.store.destroy(subject, at);
    this.bySubject.delete(subject);
    for (const r of refs) this.byRef.delete(r);
    return refs;
  }

  /**
   * Re-wraps every live key not wrapped by the current master key (master key rotation), in batches.
   * @returns how many keys were re-wrapped.
   * @throws Error when a key's master key is not configured (nothing of that batch is changed).
   */
  async rewrapAll(batch = 500): Promise<number> {
    this.masters = this.loadMasters();
    const current = this.masters.current;
    const currentId = masterKeyId(current);
    let after = '';
    let n = 0;
    for (;;) {
      const keys = await this.store.listLive(after, batch);
      if (keys.length === 0) return n;
      const todo = keys.filter((k) => k.masterId !== currentId).map((k) => ({ keyRef: k.keyRef, wrapped: wrapKey(current, k.keyRef, k.subject, this.unwrap(k)), masterId: currentId }));
      if (todo.length) await this.store.rewrap(todo);
      n += todo.length;
      after = keys[keys.length - 1]!.keyRef;
    }
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
