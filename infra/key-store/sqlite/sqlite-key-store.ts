import { openSqlite } from '../../shared/sqlite.ts';
import type Database from 'better-sqlite3';
import type { KeyLookup, KeyStore, WrappedKey } from '../../ports/key-store.ts';

interface Row {
  key_ref: string;
  subject: string;
  wrapped: Buffer | null;
  master_id: string | null;
  created_at: string;
  destroyed_at: string | null;
}

const live = (r: Row): WrappedKey => ({ keyRef: r.key_ref, subject: r.subject, wrapped: r.wrapped!, masterId: r.master_id!, createdAt: r.created_at });

/**
 * Embedded key store: the table `data_keys` in its own SQLite file (`DATA_DIR/keys/keys.sqlite`, WAL), apart
 * from the event log so the two are backed up apart (docs/operations.md).
 *
 * Destruction must leave no copy of the wrapped key in the file: `secure_delete` makes SQLite overwrite
 * freed cells and pages with zeros, and each destruction ends with a `wal_checkpoint(TRUNCATE)` so the WAL
 * holding the page before the update is copied back and emptied. A partial unique index allows one live
 * key per subject, so two processes creating a subject's key at once end with one.
 */
export class SqliteKeyStore implements KeyStore {
  private readonly db: Database.Database;
  private readonly stmts;

  constructor(file: string) {
    // The event log's durability (its SQLite file runs synchronous NORMAL too): a process crash loses
    // nothing, a power loss may lose the last commits of either file; a key is committed before the event
    // sealed under it.
    this.db = openSqlite(file, { secureDelete: true });
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS data_keys (
        key_ref TEXT PRIMARY KEY,
        subject TEXT NOT NULL,
        wrapped BLOB,
        master_id TEXT,
        created_at TEXT NOT NULL,
        destroyed_at TEXT
      );
      CREATE UNIQUE INDEX IF NOT EXISTS data_keys_live_subject ON data_keys (subject) WHERE destroyed_at IS NULL;
    `);
    this.stmts = {
      current: this.db.prepare<[string], Row>('SELECT * FROM data_keys WHERE subject = ? AND destroyed_at IS NULL'),
      insert: this.db.prepare(
        'INSERT INTO data_keys (key_ref, subject, wrapped, master_id, created_at) VALUES (@keyRef, @subject, @wrapped, @masterId, @createdAt) ON CONFLICT DO NOTHING',
      ),
      one: this.db.prepare<[string], Row>('SELECT * FROM data_keys WHERE key_ref = ?'),
      liveRefs: this.db.prepare<[string], { key_ref: string }>('SELECT key_ref FROM data_keys WHERE subject = ? AND destroyed_at IS NULL'),
      destroy: this.db.prepare<[string, string]>('UPDATE data_keys SET wrapped = NULL, master_id = NULL, destroyed_at = ? WHERE subject = ? AND destroyed_at IS NULL'),
      listLive: this.db.prepare<[string, number], Row>('SELECT * FROM data_keys WHERE key_ref > ? AND destroyed_at IS NULL ORDER BY key_ref LIMIT ?'),
      rewrap: this.db.prepare<[Buffer, string, string]>('UPDATE data_keys SET wrapped = ?, master_id = ? WHERE key_ref = ? AND destroyed_at IS NULL'),
    };
  }

  async current(subject: string): Promise<WrappedKey | null> {
    const r = this.stmts.current.get(subject);
    return r ? live(r) : null;
  }

  async createIfAbsent(key: WrappedKey): Promise<WrappedKey> {
    return this.db.transaction(() => {
      this.stmts.insert.run(key);
      return live(this.stmts.current.get(key.subject)!);
    }).immediate();
  }

  async lookup(keyRefs: readonly string[]): Promise<Map<string, KeyLookup>> {
    const out = new Map<string, KeyLookup>();
    for (const ref of new Set(keyRefs)) {
      const r = this.stmts.one.get(ref);
      if (!r) continue;
      out.set(ref, r.destroyed_at === null ? { status: 'live', key: live(r) } : { status: 'destroyed', keyRef: r.key_ref, subject: r.subject, destroyedAt: r.destroyed_at });
    }
    return out;
  }

  async destroy(subject: string, at: string): Promise<string[]> {
    const refs = this.db.transaction(() => {
      const found = this.stmts.liveRefs.all(subject).map((r) => r.key_ref);
      if (found.length) this.stmts.destroy.run(at, subject);
      return found;
    }).immediate();
    // The WAL still holds the page as it was before the update: copy it back and empty the WAL.
    if (refs.length) this.db.pragma('wal_checkpoint(TRUNCATE)');
    return refs;
  }

  async listLive(afterKeyRef: string, limit: number): Promise<WrappedKey[]> {
    return this.stmts.listLive.all(afterKeyRef, limit).map(live);
  }

  async rewrap(keys: readonly { keyRef: string; wrapped: Buffer; masterId: string }[]): Promise<void> {
    this.db.transaction(() => {
      for (const k of keys) this.stmts.rewrap.run(k.wrapped, k.masterId, k.keyRef);
    }).immediate();
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
