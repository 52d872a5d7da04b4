/**
 * Where the API process listens, recorded in `DATA_DIR/listening.json` once it is bound, so that an
 * operator command run later in another shell (`cli dashboard link`) prints links on the port and host
 * the server really holds, not its own default (issue 31: the link said `localhost:3000` whatever `PORT`
 * the server was started with, because the CLI's environment did not carry it). `PUBLIC_BASE_URL`, when
 * set, wins over this file in every process.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** File name of the record under `DATA_DIR`. */
export const LISTEN_FILE = 'listening.json';

/** Shape of the record: `origin` is `http://host:port` (see `boundOrigin` in public-origin.ts). */
export interface ListenRecord {
  origin: string;
  pid: number;
  since: string;
}

/** Writes the record atomically (temporary file + rename); a failure is returned, never thrown (the server runs on). */
export function recordListenOrigin(dataDir: string, origin: string, nowMs = Date.now()): Error | null {
  const record: ListenRecord = { origin, pid: process.pid, since: new Date(nowMs).toISOString() };
  const file = join(dataDir, LISTEN_FILE);
  try {
    writeFileSync(`${file}.${process.pid}.tmp`, `${JSON.stringify(record)}\n`, { mode: 0o644 });
    renameSync(`${file}.${process.pid}.tmp`, file);
    return null;
  } catch (error) {
    return error as Error;
  }
}

/** The origin the server last recorded under `dataDir`, or null (never started there, or unreadable). */
export function readListenOrigin(dataDir: string): string | null {
  try {
    const record = JSON.parse(readFileSync(join(dataDir, LISTEN_FILE), 'utf8')) as Partial<ListenRecord>;
    return typeof record.origin === 'string' && /^https?:\/\/[^/\s]+$/.test(record.origin) ? record.origin : null;
  } catch {
    return null;
  }
}
