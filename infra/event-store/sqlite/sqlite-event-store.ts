import { openSqlite } from '../../shared/sqlite.ts';
import type Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';
import {
  WrongExpectedRevisionError,
  assertExpectedRevision,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadStreamResult,
  type RecordedEvent,
  type SubscribeToAllOptions,
  type Subscription,
} from '../../ports/event-store.ts';
import { pollingSubscription } from '../../shared/poller.ts';

interface Row {
  global_position: number;
  event_id: string;
  stream_name: string;
  stream_revision: number;
  type: string;
  data: string;
  metadata: string;
  recorded_at: string;
}

const toRecorded = (r: Row): RecordedEvent => ({
  eventId: r.event_id,
  type: r.type,
  data: JSON.parse(r.data) as unknown,
  metadata: JSON.parse(r.metadata) as Record<string, unknown>,
  streamName: r.stream_name,
  streamRevision: r.stream_revision,
  globalPosition: r.global_position,
  recordedAt: r.recorded_at,
});

/**
 * Embedded event store: one SQLite file in WAL mode. Several processes may open the same file (the
 * server and the CLI); appends take SQLite's write lock (`BEGIN IMMEDIATE`), so stream revisions and
 * global positions stay gapless and ordered. Optimistic concurrency is the `UNIQUE(stream_name,
 * stream_revision)` constraint plus an explicit revision check inside the transaction.
 *
 * Subscriptions learn of appends made in this process at once and of commits by another process (the
 * operator CLI, the API's usage-writer thread) within milliseconds: the folder of the file is watched
 * (inotify on Linux) and a change whose `PRAGMA data_version` moved (it moves only for other connections'
 * commits) wakes them; the poll (`pollMs`) remains the fallback where file watching is unavailable.
 * Either way only the subscriptions that follow one of the new events' types are woken.
 */
export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  /** Subscriptions to wake on new events, with the event types they follow (undefined: all). */
  private readonly wakers = new Map<() => void, ReadonlySet<string> | undefined>();
  /** Global position up to which other connections' commits were looked at (foreign-commit wakes). */
  private foreignSeen = 0;
  /** Prepared type-filtered reads, one per number of types. */
  private readonly typed = new Map<string, Database.Statement<unknown[], Row>>();
  private readonly appendTx: (stream: string, events: readonly NewEvent[], expected: ExpectedRevision) => AppendResult;
  private readonly stmts;

  /**
   * This connection's last appended events (`recentAppends`), gapless in global position from
   * `recentStart`: no other connection's event lies between them (an append whose first position does
   * not follow the last one starts the list anew), so a read of a range they cover needs no query and no
   * JSON parsing.
   */
  private recent: RecordedEvent[] = [];
  private recentStart = 0;
  /** Events of the transaction under way; kept once it commits. */
  private pendingRecent: RecordedEvent[] | null = null;
  private readonly typeSets = new WeakMap<readonly string[], ReadonlySet<string>>();

  private watcher: FSWatcher | null = null;
  /** Foreign commits are being watched for (the folder watch may be closed for a moment: {@link armWatch}). */
  private watching = false;
  private dataVersion = 0;
  private foreignChecks = 0;
  private foreignTimer: NodeJS.Timeout | null = null;

  /**
   * @param file path of the SQLite file (created with its folder), or `:memory:`.
   * @param pollMs fallback poll interval of subscriptions (milliseconds).
   * @param options `watch: false` turns off the file watch (subscriptions then see other processes'
   *   commits only at the poll), for tests of the poll path. `recentAppends: n` keeps this connection's
   *   last n appended events in memory and answers `readAll` from them where they cover the range (see
   *   {@link recent}); events read from there share their `data` and `metadata` objects with the appender
   *   and with every other reader, so only a store whose appenders and readers never modify events may
   *   use it (the usage-writer thread: it appends usage events and its projections read them back).
   */
  constructor(
    private readonly file: string,
    private readonly pollMs = 100,
    private readonly options: { watch?: boolean; recentAppends?: number } = {},
  ) {
    this.db = openSqlite(file);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS events (
        global_position INTEGER PRIMARY KEY AUTOINCREMENT,
        event_id TEXT NOT NULL,
        stream_name TEXT NOT NULL,
        stream_revision INTEGER NOT NULL,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        metadata TEXT NOT NULL,
        recorded_at TEXT NOT NULL,
        UNIQUE (stream_name, stream_revision)
      );
      CREATE INDEX IF NOT EXISTS events_type_position ON events (type, global_position);
    `);
    this.stmts = {
      current: this.db.prepare<[string], { rev: number | null }>('SELECT MAX(stream_revision) AS rev FROM events WHERE stream_name = ?'),
      insert: this.db.prepare(
        'INSERT INTO events (event_id, stream_name, stream_revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      readStream: this.db.prepare<[string, number, number], Row>(
        'SELECT * FROM events WHERE stream_name = ? AND stream_revision >= ? ORDER BY stream_revision LIMIT ?',
      ),
      readAll: this.db.prepare<[number, number], Row>('SELECT * FROM events WHERE global_position > ? ORDER BY global_position LIMIT ?'),
      head: this.db.prepare<[], { pos: number | null }>('SELECT MAX(global_position) AS pos FROM events'),
      // Prepared once: `db.pragma()` compiles its statement on every call (a foreign-commit check runs
      // several times per commit of the usage-writer thread).
      dataVersion: this.db.prepare<[], number>('PRAGMA data_version').pluck(),
      typesSince: this.db.prepare<[number], { type: string; pos: number }>(
        'SELECT type, MAX(global_position) AS pos FROM events WHERE global_position > ? GROUP BY type',
      ),
    };
    const tx = this.db.transaction((stream: string, events: readonly NewEvent[], expected: ExpectedRevision): AppendResult => {
      const current = this.stmts.current.get(stream)?.rev ?? null;
      assertExpectedRevision(stream, expected, current);
      let revision = current ?? -1;
      let position = 0;
      const now = new Date().toISOString();
      const keep = (this.options.recentAppends ?? 0) > 0;
      const appended: RecordedEvent[] = [];
      for (const event of events) {
        revision += 1;
        const eventId = randomUUID();
        const data = event.data ?? null;
        const metadata = event.metadata ?? {};
        const info = this.stmts.insert.run(eventId, stream, revision, event.type, JSON.stringify(data), JSON.stringify(metadata), now);
        position = Number(info.lastInsertRowid);
        if (keep) appended.push({ eventId, type: event.type, data, metadata, streamName: stream, streamRevision: revision, globalPosition: position, recordedAt: now });
      }
      if (keep) this.pendingRecent = appended;
      return { nextExpectedRevision: revision, lastGlobalPosition: position };
    });
    this.appendTx = (stream, events, expected) => tx.immediate(stream, events, expected);
  }

  async append(streamName: string, events: readonly NewEvent[], options?: { expectedRevision?: ExpectedRevision }): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append: no events');
    let result: AppendResult;
    try {
      this.pendingRecent = null;
      result = this.appendTx(streamName, events, options?.expectedRevision ?? 'any');
      if (this.pendingRecent) this.keepRecent(this.pendingRecent);
    } catch (error) {
      this.pendingRecent = null;
      // Another process won the race for the same revision between our check and insert.
      if (error instanceof Error && 'code' in error && (error as { code: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
        throw new WrongExpectedRevisionError(streamName, options?.expectedRevision ?? 'any', null);
      }
      throw error;
    }
    this.wake(new Set(events.map((e) => e.type)));
    return result;
  }

  async readStream(streamName: string, options?: { fromRevision?: number; maxCount?: number }): Promise<ReadStreamResult> {
    const rows = this.stmts.readStream.all(streamName, options?.fromRevision ?? 0, options?.maxCount ?? Number.MAX_SAFE_INTEGER);
    const current = this.stmts.current.get(streamName)?.rev ?? null;
    return { events: rows.map(toRecorded), currentRevision: current };
  }

  async readAll(options?: { fromPosition?: number; maxCount?: number; types?: readonly string[] }): Promise<RecordedEvent[]> {
    return this.readAllSync(options?.fromPosition ?? 0, options?.maxCount ?? 1000, options?.types);
  }

  /** Adds a committed append's events to {@link recent} (or starts it anew after a gap), keeping the newest. */
  private keepRecent(appended: RecordedEvent[]): void {
    if (appended.length === 0) return;
    const limit = this.options.recentAppends ?? 0;
    if (this.recent.length > 0 && appended[0]!.globalPosition === this.recentStart + this.recent.length) {
      for (const e of appended) this.recent.push(e);
    } else {
      this.recent = appended;
      this.recentStart = appended[0]!.globalPosition;
    }
    if (this.recent.length > 2 * limit) {
      const drop = this.recent.length - limit;
      this.recent = this.recent.slice(drop);
      this.recentStart += drop;
    }
  }

  private readAllSync(from: number, max: number, types?: readonly string[]): RecordedEvent[] {
    const recentEnd = this.recentStart + this.recent.length - 1;
    if (this.recent.length > 0 && from + 1 >= this.recentStart && from < recentEnd) {
      // Positions (from, recentEnd] are all in `recent`; anything later comes from the file.
      let wanted: ReadonlySet<string> | null = null;
      if (types && types.length > 0) {
        wanted = this.typeSets.get(types) ?? new Set(types);
        this.typeSets.set(types, wanted);
      }
      const out: RecordedEvent[] = [];
      for (let i = from + 1 - this.recentStart; i < this.recent.length && out.length < max; i++) {
        const e = this.recent[i]!;
        if (!wanted || wanted.has(e.type)) out.push(e);
      }
      if (out.length < max) for (const e of this.readStored(recentEnd, max - out.length, types)) out.push(e);
      return out;
    }
    return this.readStored(from, max, types);
  }

  private readStored(from: number, max: number, types?: readonly string[]): RecordedEvent[] {
    if (!types || types.length === 0) return this.stmts.readAll.all(from, max).map(toRecorded);
    const sql = `SELECT * FROM events WHERE global_position > ? AND type IN (${types.map(() => '?').join(',')}) ORDER BY global_position LIMIT ?`;
    let st = this.typed.get(sql);
    if (!st) {
      st = this.db.prepare<unknown[], Row>(sql);
      this.typed.set(sql, st);
    }
    return st.all(from, ...types, max).map(toRecorded);
  }

  /**
   * Watches the database's folder (from the first subscription on) so a commit by another process wakes
   * the subscriptions. The watch event may precede the visibility of the commit (the WAL frames are
   * written before the WAL index), so each change is re-checked after 0, 5 and 25 ms.
   *
   * The first event of the folder closes the watch until those checks are done, then it is opened again
   * (and the version checked once more, for a commit made while it was closed): a burst of writes, such
   * as the usage-writer thread's commits (every 50 ms, each many page writes to the log's and the read
   * models' files), costs one callback per burst instead of one per written page (issue 18: that was
   * 10-14 us of the HTTP thread's CPU per request under load).
   */
  private watchForeignCommits(): void {
    if (this.watching || this.file === ':memory:' || this.options.watch === false) return;
    this.watching = true;
    this.dataVersion = this.readDataVersion();
    this.foreignSeen = this.stmts.head.get()?.pos ?? 0;
    this.armWatch();
  }

  private armWatch(): void {
    try {
      const watcher = watch(dirname(this.file), { persistent: false }, () => {
        if (this.watcher !== watcher) return;
        this.watcher = null;
        watcher.close();
        this.foreignChecks = 3;
        if (!this.foreignTimer) this.scheduleForeignCheck(0);
      });
      watcher.on('error', () => this.unwatch());
      this.watcher = watcher;
    } catch {
      this.watcher = null;
      this.watching = false; // no file watching here: the poll remains
    }
  }

  private scheduleForeignCheck(ms: number): void {
    this.foreignTimer = setTimeout(() => {
      this.foreignTimer = null;
      if (!this.db.open) return;
      this.checkForeignCommits();
      this.foreignChecks -= 1;
      if (this.foreignChecks > 0) this.scheduleForeignCheck(this.foreignChecks === 2 ? 5 : 20);
      else if (this.watching && !this.watcher) {
        this.armWatch();
        this.checkForeignCommits();
      }
    }, ms);
    this.foreignTimer.unref();
  }

  /** Wakes the subscriptions that follow a type committed by another connection since the last look. */
  private checkForeignCommits(): void {
    const v = this.readDataVersion();
    if (v === this.dataVersion) return;
    this.dataVersion = v;
    // One query for the types committed since the last look, instead of one head read and one typed
    // read per subscription: only the subscriptions that follow one of them are woken.
    const from = this.foreignSeen;
    const rows = this.stmts.typesSince.all(from);
    this.foreignSeen = Math.max(from, ...rows.map((r) => r.pos));
    if (rows.length) this.wake(new Set(rows.map((r) => r.type)));
  }

  /** Wakes the subscriptions that follow one of `types` (or every type). */
  private wake(types: ReadonlySet<string>): void {
    for (const [wake, follows] of this.wakers) {
      if (!follows) wake();
      else for (const t of types) if (follows.has(t)) {
        wake();
        break;
      }
    }
  }

  private readDataVersion(): number {
    return this.stmts.dataVersion.get()!;
  }

  private unwatch(): void {
    this.watching = false;
    this.watcher?.close();
    this.watcher = null;
    if (this.foreignTimer) clearTimeout(this.foreignTimer);
    this.foreignTimer = null;
  }

  subscribeToAll(options: SubscribeToAllOptions): Subscription {
    this.watchForeignCommits();
    return pollingSubscription(
      async (from, max, types) => this.readAllSync(from, max, types),
      () => this.headPosition(),
      options,
      (wake) => {
        this.wakers.set(wake, options.types && options.types.length > 0 ? new Set(options.types) : undefined);
        return () => this.wakers.delete(wake);
      },
      this.pollMs,
    );
  }

  async headPosition(): Promise<number> {
    return this.stmts.head.get()?.pos ?? 0;
  }

  async close(): Promise<void> {
    this.unwatch();
    this.wakers.clear();
    if (this.db.open) this.db.close();
  }
}
