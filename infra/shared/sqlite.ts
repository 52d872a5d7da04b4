/**
 * Opening a SQLite file of the embedded profile (better-sqlite3) the way every store of it does.
 *
 * - `journal_mode = WAL`: readers do not block the writer; other processes on the same DATA_DIR (the CLI,
 *   a second server) see commits (https://sqlite.org/wal.html).
 * - `synchronous = NORMAL`: in WAL mode a process crash loses nothing; a power loss may lose the last
 *   commits (https://sqlite.org/pragma.html#pragma_synchronous).
 * - `busy_timeout = 5000` ms: a writer waits for another process's write lock instead of failing at once.
 * - `secure_delete = ON` (optional): freed cells and pages are overwritten with zeros, so a deleted row (an
 *   erased subject's data) does not linger in free space or the WAL (issue 28; docs/privacy.md "Raw bytes").
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

export interface OpenSqliteOptions {
  /** Overwrite freed space with zeros (stores holding personal data). Default false. */
  secureDelete?: boolean;
  /** `page_size` in bytes, effective only when the file is created (before WAL is turned on). */
  pageSize?: number;
}

/**
 * Opens (creating it and its directory) the database `file`, or an in-memory one for `:memory:`, with the
 * pragmas of the module comment.
 * @throws what better-sqlite3 throws for an unreadable or corrupt file
 */
export function openSqlite(file: string, options: OpenSqliteOptions = {}): Database.Database {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  if (options.pageSize) db.pragma(`page_size = ${Math.trunc(options.pageSize)}`);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  if (options.secureDelete) db.pragma('secure_delete = ON');
  return db;
}
