import type { Redis } from 'ioredis';
import { connectFailFast, type FailFastRedis } from '../../shared/redis.ts';
import { IdempotencyStoreUnavailableError, type BeginOutcome, type IdempotencyStore, type StoredResponse } from '../../ports/idempotency-store.ts';

/** Returns the live record (JSON), or creates the in-progress one (ARGV[1], expiring in ARGV[2] ms) and returns nil. */
const BEGIN = `
local v = redis.call('GET', KEYS[1])
if v then return v end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
`;

/**
 * Replaces ARGV[1]'s in-progress record by the completed one with the response ARGV[2] (JSON, spliced in
 * as is, so its objects keep their JSON form), expiring in ARGV[3] ms; 1 when it did.
 */
const COMPLETE = `
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
local r = cjson.decode(v)
if r.s ~= 'p' or r.o ~= ARGV[1] then return 0 end
local done = '{"s":"c","f":' .. cjson.encode(r.f) .. ',"o":' .. cjson.encode(r.o) .. ',"r":' .. ARGV[2] .. '}'
redis.call('SET', KEYS[1], done, 'PX', ARGV[3])
return 1
`;

/** Deletes ARGV[1]'s in-progress record. */
const RELEASE = `
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
local r = cjson.decode(v)
if r.s ~= 'p' or r.o ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
`;

/** The record as stored: `s` p(rogress)/c(ompleted), `f` fingerprint, `o` owner, `r` response. */
interface Stored {
  s: 'p' | 'c';
  f: string;
  o: string;
  r?: StoredResponse;
}

export interface RedisIdempotencyStoreOptions {
  /** e.g. `redis://127.0.0.1:6379`. */
  url: string;
  /** Prefix of every key (deployments, and tests, sharing one Redis). Default `sello:`. */
  prefix?: string;
  /** Per-command timeout, ms: past it the call is refused with 503 rather than waiting. Default 1000. */
  commandTimeoutMs?: number;
}

type Scripts = {
  selloIdemBegin(k: string, record: string, leaseMs: number): Promise<string | null>;
  selloIdemComplete(k: string, owner: string, record: string, ttlMs: number): Promise<number>;
  selloIdemRelease(k: string, owner: string): Promise<number>;
};

/**
 * Idempotency store shared by every API process (`IDEMPOTENCY_STORE=redis`, `REDIS_URL`): one Redis key
 * per (tenant, idempotency key) under `<prefix>idem:`, its value the record as JSON, expiring by Redis
 * TTL (the lease while in progress, the TTL once completed; durations on the Redis server's clock). Each
 * operation is one atomic Lua script. Unreachable Redis: every call rejects with
 * {@link IdempotencyStoreUnavailableError} (commands never queue while disconnected).
 */
export class RedisIdempotencyStore implements IdempotencyStore {
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly timeoutMs: number;

  constructor(options: RedisIdempotencyStoreOptions) {
    this.prefix = options.prefix ?? 'sello:';
    this.timeoutMs = options.commandTimeoutMs ?? 1000;
    const conn = connectFailFast(options.url, this.timeoutMs, 'idempotency store', (m) => new IdempotencyStoreUnavailableError(m));
    this.redis = conn.redis;
    this.call = conn.call;
    this.redis.defineCommand('selloIdemBegin', { numberOfKeys: 1, lua: BEGIN });
    this.redis.defineCommand('selloIdemComplete', { numberOfKeys: 1, lua: COMPLETE });
    this.redis.defineCommand('selloIdemRelease', { numberOfKeys: 1, lua: RELEASE });
  }

  private get scripts(): Scripts {
    return this.redis as unknown as Scripts;
  }

  /**
   * SCANs the tenant's keys, reads each record and deletes those whose completed body contains `text`.
   * Redis's own persistence (RDB snapshots, AOF) keeps a deleted value until its next rewrite.
   */
  async forgetResponses(tenantId: string, text: string, options: { ignoreCase?: boolean } = {}): Promise<number> {
    const fold = (s: string) => (options.ignoreCase ? s.replace(/[A-Z]/g, (c) => c.toLowerCase()) : s);
    const wanted = fold(text);
    return this.forgetWhere(tenantId, (r) => !r.base64 && fold(r.body).includes(wanted));
  }

  /** As {@link forgetResponses}, for the completed records tagged with `subjectId`. */
  async forgetSubject(tenantId: string, subjectId: string): Promise<number> {
    return this.forgetWhere(tenantId, (r) => r.subject === subjectId);
  }

  /** Every record of the tenant, completed or in progress (SCAN, then DEL). */
  async forgetTenant(tenantId: string): Promise<number> {
    return this.forgetWhere(tenantId, () => true, { inProgress: true });
  }

  /** SCANs the tenant's keys and deletes the completed records (and in-progress ones with `inProgress`) whose answer satisfies `matches`; returns how many. */
  private async forgetWhere(tenantId: string, matches: (response: StoredResponse) => boolean, options: { inProgress?: boolean } = {}): Promise<number> {
    const glob = `${`${this.prefix}idem:${tenantId}:`.replace(/[\\*?[\]]/g, '\\$&')}*`;
    let removed = 0;
    let cursor = '0';
    do {
      const [next, keys] = await this.call(() => this.redis.scan(cursor, 'MATCH', glob, 'COUNT', 500));
      cursor = next;
      for (const k of keys) {
        const raw = await this.call(() => this.redis.get(k));
        if (!raw) continue;
        const record = JSON.parse(raw) as Stored;
        if ((record.s === 'c' && record.r && matches(record.r)) || (options.inProgress && record.s !== 'c')) removed += await this.call(() => this.redis.del(k));
      }
    } while (cursor !== '0');
    return removed;
  }

  private redisKey(tenantId: string, key: string): string {
    return `${this.prefix}idem:${tenantId}:${key}`;
  }

  /** Runs a command through the fail-fast guard (infra/shared/redis.ts). */
  private readonly call: FailFastRedis['call'];

  async begin(tenantId: string, key: string, fingerprint: string, owner: string, leaseMs: number, _nowMs: number): Promise<BeginOutcome> {
    const record: Stored = { s: 'p', f: fingerprint, o: owner };
    const found = await this.call(() => this.scripts.selloIdemBegin(this.redisKey(tenantId, key), JSON.stringify(record), Math.max(1, Math.round(leaseMs))));
    if (found === null) return { state: 'started' };
    const r = JSON.parse(found) as Stored;
    return r.s === 'c' ? { state: 'completed', fingerprint: r.f, response: r.r! } : { state: 'in_progress', fingerprint: r.f };
  }

  async complete(tenantId: string, key: string, owner: string, response: StoredResponse, ttlMs: number, _nowMs: number): Promise<boolean> {
    const k = this.redisKey(tenantId, key);
    return (await this.call(() => this.scripts.selloIdemComplete(k, owner, JSON.stringify(response), Math.max(1, Math.round(ttlMs))))) === 1;
  }

  async release(tenantId: string, key: string, owner: string): Promise<void> {
    await this.call(() => this.scripts.selloIdemRelease(this.redisKey(tenantId, key), owner));
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
