import { openSqlite } from '../../shared/sqlite.ts';
import type Database from 'better-sqlite3';
import type { Collection, CollectionOptions, Doc, Filter, FindOptions, ReadModelStore, Scalar } from '../../ports/read-models.ts';
import { checkField, collectionTable, compileFilter, compileOrder, type Dialect } from '../sql-filter.ts';

const dialect: Dialect = {
  field: (name) => `json_extract(doc, '$.${name}')`,
  param: (value: Scalar, params) => {
    params.push(typeof value === 'boolean' ? (value ? 1 : 0) : value);
    return '?';
  },
  present: (name) => `json_type(doc, '$.${name}') IS NOT NULL AND json_type(doc, '$.${name}') <> 'null'`,
};

/**
 * Rows per statement of `putMany` (100 bound parameters, far under SQLite's limit of 32,766). On 300,000
 * usage rows of ~450 bytes with the `(tenant_id, created_at)` JSON index, in batches of 1,000: 5.0 us of CPU
 * per row one statement per row, 3.85 at 10 rows, 3.75 at 50 (issue 18, the usage-writer thread's cost).
 */
const PUT_MANY_ROWS = 50;

/** A promise-chain mutex: writes and transactions run one at a time on the single connection. */
class Mutex {
  private tail: Promise<void> = Promise.resolve();
  run<R>(fn: () => Promise<R>): Promise<R> {
    const result = this.tail.then(fn, fn);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

/**
 * Embedded read-model store: one SQLite file (WAL), a table `rm_<collection>(id, doc JSON)` per
 * collection with expression indexes on the declared fields, and a `rm_checkpoints` table.
 * Writes are serialised through one connection; `transaction` holds the write lock for its whole body.
 */
export class SqliteReadModelStore implements ReadModelStore {
  private readonly db: Database.Database;
  private readonly mutex: Mutex;
  private readonly declared: Set<string>;
  private readonly statements: Map<string, Database.Statement>;
  private readonly inTx: boolean;

  constructor(file: string | { db: Database.Database; mutex: Mutex; declared: Set<string>; statements: Map<string, Database.Statement> }) {
    if (typeof file === 'string') {
      // secure_delete: a deleted or rewritten document (an erased subject's metadata) does not linger in
      // free space (issue 28; cost in docs/privacy.md).
      this.db = openSqlite(file, { secureDelete: true });
      this.db.exec('CREATE TABLE IF NOT EXISTS rm_checkpoints (name TEXT PRIMARY KEY, position INTEGER NOT NULL)');
      this.mutex = new Mutex();
      this.declared = new Set();
      this.statements = new Map();
      this.inTx = false;
    } else {
      this.db = file.db;
      this.mutex = file.mutex;
      this.declared = file.declared;
      this.statements = file.statements;
      this.inTx = true;
    }
  }

  /** Prepared statements are cached by SQL text (filters of the same shape share one). */
  private prep<P extends unknown[] = unknown[], R = unknown>(sql: string): Database.Statement<P, R> {
    let st = this.statements.get(sql);
    if (!st) {
      if (this.statements.size > 1000) this.statements.clear();
      st = this.db.prepare(sql);
      this.statements.set(sql, st);
    }
    return st as Database.Statement<P, R>;
  }

  private write<R>(fn: () => R): Promise<R> {
    if (this.inTx) return Promise.resolve().then(fn);
    return this.mutex.run(async () => fn());
  }

  async collection<T extends Doc = Doc>(name: string, options?: CollectionOptions): Promise<Collection<T>> {
    const table = collectionTable(name);
    if (!this.declared.has(name)) {
      this.db.exec(`CREATE TABLE IF NOT EXISTS ${table} (id TEXT PRIMARY KEY, doc TEXT NOT NULL)`);
      for (const index of options?.indexes ?? []) {
        const fields = (typeof index === 'string' ? [index] : [...index]).map(checkField);
        const indexName = `${table}_${fields.join('_')}`;
        this.db.exec(`CREATE INDEX IF NOT EXISTS ${indexName} ON ${table} (${fields.map((f) => dialect.field(f)).join(', ')})`);
      }
      this.declared.add(name);
    }
    const prep = <P extends unknown[], R>(sql: string) => this.prep<P, R>(sql);
    const write = <R>(fn: () => R) => this.write(fn);
    const get = prep<[string], { doc: string }>(`SELECT doc FROM ${table} WHERE id = ?`);
    const upsert = (rows: number) => `INSERT INTO ${table} (id, doc) VALUES ${Array.from({ length: rows }, () => '(?, ?)').join(', ')} ON CONFLICT(id) DO UPDATE SET doc = excluded.doc`;
    const put = prep<[string, string], unknown>(upsert(1));
    const del = prep<[string], unknown>(`DELETE FROM ${table} WHERE id = ?`);
    return {
      async get(id) {
        const row = get.get(id);
        return row ? (JSON.parse(row.doc) as T) : null;
      },
      put: (id, doc) => write(() => void put.run(id, JSON.stringify(doc))),
      async getMany(ids) {
        const out = new Map<string, T>();
        const unique = [...new Set(ids)];
        for (let i = 0; i < unique.length; i += 500) {
          const chunk = unique.slice(i, i + 500);
          const rows = prep<string[], { id: string; doc: string }>(`SELECT id, doc FROM ${table} WHERE id IN (${chunk.map(() => '?').join(',')})`).all(...chunk);
          for (const row of rows) out.set(row.id, JSON.parse(row.doc) as T);
        }
        return out;
      },
      putMany: (entries) =>
        write(() => {
          // One SQLite transaction (or the caller's) for the whole batch, PUT_MANY_ROWS rows per statement: the
          // per-statement cost (bind, step, reset) is then paid once per chunk. Rows of one statement are
          // upserted in order, so a repeated id ends with its last document, as with one statement per row.
          const run = () => {
            let i = 0;
            if (entries.length >= PUT_MANY_ROWS) {
              const chunk = prep<[string[]], unknown>(upsert(PUT_MANY_ROWS));
              const params: string[] = new Array(2 * PUT_MANY_ROWS);
              for (; i + PUT_MANY_ROWS <= entries.length; i += PUT_MANY_ROWS) {
                for (let k = 0; k < PUT_MANY_ROWS; k++) {
                  const [id, doc] = entries[i + k]!;
                  params[2 * k] = id;
                  params[2 * k + 1] = JSON.stringify(doc);
                }
                chunk.run(params);
              }
            }
            for (; i < entries.length; i++) put.run(entries[i]![0], JSON.stringify(entries[i]![1]));
          };
          if (this.db.inTransaction) run();
          else this.db.transaction(run)();
        }),
      delete: (id) => write(() => del.run(id).changes > 0),
      async find(filter?: Filter, options?: FindOptions) {
        const params: unknown[] = [];
        const where = compileFilter(filter, dialect, params);
        let sql = `SELECT doc FROM ${table} WHERE ${where} ${compileOrder(options, dialect)}`;
        if (options?.limit !== undefined) sql += ` LIMIT ${Math.max(0, Math.floor(options.limit))}`;
        else if (options?.offset) sql += ' LIMIT -1';
        if (options?.offset) sql += ` OFFSET ${Math.max(0, Math.floor(options.offset))}`;
        return prep<unknown[], { doc: string }>(sql)
          .all(...params)
          .map((r) => JSON.parse(r.doc) as T);
      },
      async count(filter?: Filter) {
        const params: unknown[] = [];
        const where = compileFilter(filter, dialect, params);
        return prep<unknown[], { n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`).get(...params)!.n;
      },
      deleteMany: (filter?: Filter) =>
        write(() => {
          const params: unknown[] = [];
          const where = compileFilter(filter, dialect, params);
          return prep<unknown[], unknown>(`DELETE FROM ${table} WHERE ${where}`).run(...params).changes;
        }),
    };
  }

  async transaction<R>(fn: (tx: ReadModelStore) => Promise<R>): Promise<R> {
    if (this.inTx) return fn(this);
    return this.mutex.run(async () => {
      const tx = new SqliteReadModelStore({ db: this.db, mutex: this.mutex, declared: this.declared, statements: this.statements });
      this.prep('BEGIN IMMEDIATE').run();
      try {
        const result = await fn(tx);
        this.prep('COMMIT').run();
        return result;
      } catch (error) {
        if (this.db.inTransaction) this.prep('ROLLBACK').run();
        throw error;
      }
    });
  }

  async getCheckpoint(projection: string): Promise<number> {
    const row = this.prep<[string], { position: number }>('SELECT position FROM rm_checkpoints WHERE name = ?').get(projection);
    return row?.position ?? 0;
  }

  setCheckpoint(projection: string, position: number): Promise<void> {
    return this.write(() => {
      this.prep('INSERT INTO rm_checkpoints (name, position) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET position = excluded.position').run(
        projection,
        position,
      );
    });
  }

  truncate(collections: readonly string[]): Promise<void> {
    return this.write(() => {
      for (const name of collections) {
        const table = collectionTable(name);
        this.db.exec(`CREATE TABLE IF NOT EXISTS ${table} (id TEXT PRIMARY KEY, doc TEXT NOT NULL)`);
        this.db.exec(`DELETE FROM ${table}`);
      }
      // Tables may have been recreated; statements prepared against them are dropped.
      this.statements.clear();
    });
  }

  /**
   * The WAL still holds the pages as they were before the erasure's writes: they are copied back (the
   * zeroed versions) and the WAL is truncated. A checkpoint kept from finishing by another connection's
   * open read (the usage-writer thread) is retried for up to about a second; after that the next
   * checkpoint overwrites those frames.
   */
  forget(_collections: readonly string[]): Promise<void> {
    if (this.inTx) return Promise.reject(new Error('forget cannot run inside a transaction'));
    return this.mutex.run(async () => {
      for (let attempt = 0; attempt < 20 && this.db.open; attempt++) {
        const [r] = this.db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
        if (!r || r.busy === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });
  }

  async close(): Promise<void> {
    if (!this.inTx && this.db.open) await this.mutex.run(async () => this.db.close());
  }
}
