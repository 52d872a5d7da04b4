/**
 * Gravatar check: `HEAD <base>/<sha256(lower(trim(address)))>?d=404` (Gravatar's documented SHA-256 hash and
 * `d=404` default, docs.gravatar.com "Avatar images"); 200 means an avatar exists.
 *
 * Bounded: one request with a timeout (default 800 ms). After a network failure or timeout the checker answers
 * `false` without asking again for `cooldownMs` (default 60 s), so an unreachable network costs one timeout,
 * not one per address. It never rejects.
 */
import { createHash } from 'node:crypto';
import type { GravatarChecker } from '../ports/email-verifier.ts';

export interface GravatarOptions {
  /** Default `https://gravatar.com/avatar/`. */
  baseUrl?: string;
  timeoutMs?: number;
  cooldownMs?: number;
  now?: () => number;
}

/** SHA-256 hex of the trimmed, lower-cased address (Gravatar's hashing rule). */
export function gravatarHash(address: string): string {
  return createHash('sha256').update(address.trim().toLowerCase()).digest('hex');
}

export class HttpGravatarChecker implements GravatarChecker {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly cooldownMs: number;
  private readonly now: () => number;
  private downUntil = 0;

  constructor(options: GravatarOptions = {}) {
    const base = options.baseUrl ?? 'https://gravatar.com/avatar/';
    this.baseUrl = base.endsWith('/') ? base : base + '/';
    this.timeoutMs = options.timeoutMs ?? 800;
    this.cooldownMs = options.cooldownMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  async hasGravatar(address: string): Promise<boolean> {
    if (this.now() < this.downUntil) return false;
    try {
      const res = await fetch(`${this.baseUrl}${gravatarHash(address)}?d=404`, {
        method: 'HEAD',
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      await res.body?.cancel();
      return res.status === 200;
    } catch {
      this.downUntil = this.now() + this.cooldownMs;
      return false;
    }
  }
}

/** The default when Gravatar checks are off: always false, no network. */
export const disabledGravatar: GravatarChecker = { hasGravatar: async () => false };
