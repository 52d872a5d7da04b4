import * as cryptoModule from 'node:crypto';
import { createHash, timingSafeEqual } from 'node:crypto';

/** Permissions a key carries (issue: `read`, `write`, and `admin` for key and deployment management). */
export const PERMISSIONS = ['read', 'write', 'admin'] as const;
export type Permission = (typeof PERMISSIONS)[number];

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Base62 of a byte string (big-endian), used for the secret part of API keys. */
export function base62(bytes: Uint8Array): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  // Keep the length fixed for a given byte length (leading zero bytes).
  const width = Math.ceil((bytes.length * 8) / Math.log2(62));
  return out.padStart(width, '0');
}

/**
 * Builds an API key `sk_live_<base62>` or `sk_test_<base62>` from at least 32 random bytes.
 * @throws Error when fewer than 32 bytes are given.
 */
export function formatApiKey(random: Uint8Array, test: boolean): string {
  if (random.length < 32) throw new Error('API keys need at least 32 random bytes');
  return `${test ? 'sk_test_' : 'sk_live_'}${base62(random)}`;
}

/** Shape check before any lookup: prefix and base62 body of 43+ characters (32 bytes). */
export const API_KEY_PATTERN = /^sk_(live|test)_[0-9A-Za-z]{43,}$/;

const oneShot = (cryptoModule as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

/**
 * SHA-256 of the whole key, hex. Keys carry 256 bits of entropy, so a fast unsalted hash is the usual
 * choice (as Unkey and Stripe-style key stores do); only this hash is stored.
 */
export function hashApiKey(key: string): string {
  // One-shot `crypto.hash` (Node >= 20.12) where present: the same digest without a Hash object per call.
  return oneShot ? oneShot('sha256', key, 'hex') : createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex digests of equal length. */
export function hashesEqual(aHex: string, bHex: string): boolean {
  const a = Buffer.from(aHex, 'hex');
  const b = Buffer.from(bHex, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A non-secret hint shown in listings: the prefix and the last four characters. */
export function keyHint(key: string): string {
  return `${key.slice(0, 8)}…${key.slice(-4)}`;
}
