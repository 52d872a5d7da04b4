/**
 * Keys the embedded deployment generates for itself (webhook secret sealing key, registry fingerprint
 * key, signing keys...): created once under DATA_DIR with mode 0600 and reused on every start.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface KeyFileOptions {
  /** Bytes of a newly generated key. Default 32. */
  bytes?: number;
  /** Parses the file's text into the key; default: hex, at least 16 bytes. @throws Error when unusable. */
  parse?: (text: string, file: string) => Buffer;
}

/** Hex, at least 16 bytes (128 bits: below that an HMAC key or AES key could be brute-forced). */
export function parseHexKey(text: string, file: string): Buffer {
  const trimmed = text.trim();
  const key = Buffer.from(trimmed, 'hex');
  if (!/^[0-9a-fA-F]+$/.test(trimmed) || key.length < 16) {
    throw new Error(`${file} does not hold a key of at least 16 bytes (hex); remove it to create a new one`);
  }
  return key;
}

/**
 * Reads the key in `file`, or creates it (random `bytes`, hex, mode 0600) when the file does not exist.
 * Two processes starting at once on one DATA_DIR (server and CLI) both end with the same key: the file
 * is created exclusively (`wx`), and the loser of the race reads the winner's key.
 * @throws Error when the file exists but holds no usable key, or cannot be read or written.
 */
export function loadOrCreateKeyFile(file: string, options: KeyFileOptions = {}): Buffer {
  const parse = options.parse ?? parseHexKey;
  const read = (): Buffer => parse(readFileSync(file, 'utf8'), file);
  try {
    return read();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dirname(file), { recursive: true });
  const key = randomBytes(options.bytes ?? 32);
  try {
    writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return read();
    throw error;
  }
  chmodSync(file, 0o600);
  return key;
}
