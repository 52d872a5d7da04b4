import { openSqlite } from '../../shared/sqlite.ts';
import type Database from 'better-sqlite3';
import type { BeginOutcome, IdempotencyStore, StoredResponse } from '../../ports/idempotency-store.ts';

/** Expired records are deleted at most this often (ms), in batches, from `begin`. */
const PURGE_EVERY_MS = 60_000;
const PURGE_BATCH = 500;

interface Row {
  fingerprint: string;
  owner: string;
  state: 'in_progress' | 'completed';
  response: string | null;
  expires_at: number;
}

/**
 * Embedded idempotency store: one SQLite file (WAL), table `idempotency_keys` keyed by (tenant, key).
 * `begin` runs in an IMMEDIATE transaction, so it is atomic across every connection to the file (several
 * processes on one DATA_DIR included). Records carry their own expiry (the lease while in progress, the
 * TTL once completed); a live record is one whose expiry is after the caller's `nowMs`. Expired rows are
 * deleted in batches at most once a minute.
 */
export class SqliteIdempotencyStore implements IdempotencyStore {
  private readonly db: Database.Database;
  private readonly beginTx: (tenantId: string, key: string, fingerprint: string, owner: string, leaseMs: number, nowMs: number) => BeginOutcome;
  private readonly completeStmt: Database.Statement;
  private readonly releaseStmt: Database.Statement;
  private readonly purgeStmt: Database.Statement;
  private lastPurge = 0;

  /** @param file the database file (created with its directory), or `:memory:` */
  constructor(file: string) {
    // secure_delete: a removed answer (an erasure's forgetResponses) leaves no copy in free space (issue 28).
    this.db = openSqlite(file, { secureDelete: true });
    this.db.exec(`CREATE TABLE IF NOT EXISTS idempotency_keys (
      tenant_id TEXT NOT NULL,
      key TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      owner TEXT NOT NULL,
      state TEXT NOT NULL,
      response TEXT,
      expires_at INTEGER NOT NULL,
      PRIMARY KEY (tenant_id, key)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS idempotency_keys_expiry ON idempotency_keys (expires_at);`);
    const get = this.db.prepare<[string, string], Row>('SELECT fingerprint, owner, state, response, expires_at FROM idempotency_keys WHERE tenant_id = ? AND key = ?');
    const put = this.db.prepare(
      `INSERT INTO idempotency_keys (tenant_id, key, fingerprint, owner, state, response, expires_at) VALUES (?, ?, ?, ?, 'in_progress', NULL, ?)
       ON CONFLICT (tenant_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, owner = excluded.owner, state = 'in_progress', response = NULL, expires_at = excluded.expires_at`,
    );
    const tx = this.db.transaction((tenantId: string, key: string, fingerprint: string, owner: string, leaseMs: number, nowMs: number): BeginOutcome => {
      const row = get.get(tenantId, key);
      if (row && row.expires_at > nowMs) {
        if (row.state === 'completed') return { state: 'completed', fingerprint: row.fingerprint, response: JSON.parse(row.response!) as StoredResponse };
        return { state: 'in_progress', fingerprint: row.fingerprint };
      }
      put.run(tenantId, key, fingerprint, owner, nowMs + leaseMs);
      return { state: 'started' };
    });
    this.beginTx = (...args) => tx.immediate(...args);
    this.completeStmt = this.db.prepare(
      `UPDATE idempotency_keys SET state = 'completed', response = ?, expires_at = ? WHERE tenant_id = ? AND key = ? AND owner = ? AND state = 'in_progress'`,
    );
    this.releaseStmt = this.db.prepare(`DELETE FROM idempotency_keys WHERE tenant_id = ? AND key = ? AND owner = ? AND state = 'in_progress'`);
    this.purgeStmt = this.db.prepare(`DELETE FROM idempotency_keys WHERE (tenant_id, key) IN (SELECT tenant_id, key FROM idempotency_keys WHERE expires_at <= ? LIMIT ${PURGE_BATCH})`);
  }

  async begin(tenantId: string, key: string, fingerprint: string, owner: string, leaseMs: number, nowMs: number): Promise<BeginOutcome> {
    if (nowMs - this.lastPurge >= PURGE_EVERY_MS) {
      this.lastPurge = nowMs;
      this.purgeStmt.run(nowMs);
    }
    return this.beginTx(tenantId, key, fingerprint, owner, leaseMs, nowMs);
  }

  async complete(tenantId: string, key: string, owner: string, response: StoredResponse, ttlMs: number, nowMs: number): Promise<boolean> {
    return this.completeStmt.run(JSON.stringify(response), nowMs + ttlMs, tenantId, key, owner).changes > 0;
  }

  async release(tenantId: string, key: string, owner: string): Promise<void> {
    this.releaseStmt.run(tenantId, key, owner);
  }

  /** Deletes the matching records, then checkpoints and truncates the WAL (which still holds them). */
  async forgetResponses(tenantId: string, text: string, options: { ignoreCase?: boolean } = {}): Promise<number> {
    // SQLite's lower() folds ASCII letters only, as the port says.
    const body = options.ignoreCase ? `lower(json_extract(response, '$.body'))` : `json_extract(response, '$.body')`;
    const removed = this.db
      .prepare(
        `DELETE FROM idempotency_keys WHERE tenant_id = ? AND state = 'completed'
           AND json_extract(response, '$.base64') = 0 AND instr(${body}, ?) > 0`,
      )
      .run(tenantId, options.ignoreCase ? asciiLower(text) : text).changes;
    if (removed > 0) this.db.pragma('wal_checkpoint(TRUNCATE)');
    return removed;
  }

  /** Deletes the records tagged with the subject, then checkpoints and truncates the WAL. */
  async forgetSubject(tenantId: string, subjectId: string): Promise<number> {
    const removed = this.db
      .prepare(`DELETE FROM idempotency_keys WHERE tenant_id = ? AND state = 'completed' AND json_extract(response, '$.subject') = ?`)
      .run(tenantId, subjectId).changes;
    if (removed > 0) this.db.pragma('wal_checkpoint(TRUNCATE)');
    return removed;
  }

  /** Deletes every record of the tenant, then checkpoints and truncates the WAL. */
  async forgetTenant(tenantId: string): Promise<number> {
    const removed = this.db.prepare('DELETE FROM idempotency_keys WHERE tenant_id = ?').run(tenantId).changes;
    if (removed > 0) this.db.pragma('wal_checkpoint(TRUNCATE)');
    return removed;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

/** `s` with ASCII A-Z folded to a-z (what SQLite's `lower()` does without ICU). */
function asciiLower(s: string): string {
  return s.replace(/[A-Z]/g, (c) => c.toLowerCase());
}
