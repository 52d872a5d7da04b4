/**
 * A small DNS stub resolver for the e-mail verifier, built on `dns-packet` (encoding/decoding) and Node's
 * `dgram`/`net` sockets, because Node's own resolver neither reports MX TTLs nor tells an empty answer
 * from a negative one precisely enough for caching.
 *
 * - Queries the configured recursive servers (`ip`, `ip:port`, `[ipv6]:port`; default: the system's
 *   `/etc/resolv.conf` servers) with RD set, over UDP, retrying over TCP when the answer is truncated
 *   (RFC 1035 §4.2.1, RFC 7766). A SERVFAIL/REFUSED/timeout moves on to the next server; after
 *   `attempts` passes over the list the look-up is an upstream `error`.
 * - Answers are accepted only from the queried server with the query's random id and question (spoofing).
 * - Results are cached per domain for their TTL (the smallest TTL of the records used, RFC 2181 §5.2),
 *   negative answers for the SOA minimum (RFC 2308 §5), clamped to [`minTtlSeconds`, `maxTtlSeconds`];
 *   upstream errors are never cached. Concurrent look-ups of one domain share one set of queries.
 */
import dgram from 'node:dgram';
import dns from 'node:dns';
import net from 'node:net';
import { randomInt } from 'node:crypto';
import dnsPacket from 'dns-packet';
import type { MailDomainLookup, MailDomainResolver, MailExchanger } from '../ports/email-verifier.ts';

export interface DnsResolverOptions {
  /** Recursive servers; default the system's. */
  servers?: readonly string[];
  /** Per-attempt timeout, ms (default 1500). */
  timeoutMs?: number;
  /** Passes over the server list (default 2). */
  attempts?: number;
  /** Cached domains at most (least recently used evicted first; default 10 000). */
  cacheSize?: number;
  /** TTL floor and ceiling, seconds (defaults 0 and 3600). */
  minTtlSeconds?: number;
  maxTtlSeconds?: number;
  /** Negative-cache TTL when the answer carries no SOA, seconds (default 300). */
  defaultNegativeTtlSeconds?: number;
  /** Milliseconds clock for cache expiry (injected in tests). */
  now?: () => number;
}

interface Server {
  host: string;
  port: number;
}

type RecordType = 'MX' | 'A' | 'AAAA';

interface QueryOutcome {
  rcode: string;
  answers: dnsPacket.Answer[];
  authorities: dnsPacket.Answer[];
}

/** Raised internally when no server produced a usable answer. */
class UpstreamError extends Error {
  constructor(readonly reason: 'servfail' | 'refused' | 'timeout' | 'network' | 'bad_response') {
    super(`dns upstream ${reason}`);
  }
}

/** True when `spec` is a valid DNS server setting (see {@link parseDnsServer}). */
export function isDnsServerSpec(spec: string): boolean {
  try {
    parseDnsServer(spec);
    return true;
  } catch {
    return false;
  }
}

/** Parses `ip`, `ip:port`, `[ipv6]:port`, bare IPv6. Throws on anything else (config validation). */
export function parseDnsServer(spec: string): Server {
  const s = spec.trim();
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(s);
  if (bracket && net.isIPv6(bracket[1]!)) return { host: bracket[1]!, port: bracket[2] ? Number(bracket[2]) : 53 };
  if (net.isIPv6(s)) return { host: s, port: 53 };
  const v4 = /^(\d+\.\d+\.\d+\.\d+)(?::(\d+))?$/.exec(s);
  if (v4 && net.isIPv4(v4[1]!)) {
    const port = v4[2] ? Number(v4[2]) : 53;
    if (port < 1 || port > 65535) throw new Error(`invalid DNS server port: ${spec}`);
    return { host: v4[1]!, port };
  }
  throw new Error(`invalid DNS server (want ip, ip:port or [ipv6]:port): ${spec}`);
}

interface CacheEntry<T> {
  value: T;
  expiresAt: number;
}

/** Bounded LRU map with per-entry expiry (Map keeps insertion order; a hit re-inserts). */
class TtlCache<T> {
  private readonly map = new Map<string, CacheEntry<T>>();
  constructor(
    private readonly max: number,
    private readonly now: () => number,
  ) {}
  get(key: string): T | undefined {
    const e = this.map.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= this.now()) {
      this.map.delete(key);
      return undefined;
    }
    this.map.delete(key);
    this.map.set(key, e);
    return e.value;
  }
  set(key: string, value: T, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.map.delete(key);
    this.map.set(key, { value, expiresAt: this.now() + ttlMs });
    while (this.map.size > this.max) {
      const oldest = this.map.keys().next().value as string;
      this.map.delete(oldest);
    }
  }
  get size(): number {
    return this.map.size;
  }
  clear(): void {
    this.map.clear();
  }
}

export interface DnsResolverStats {
  /** Look-ups answered from the cache. */
  hits: number;
  /** Look-ups that joined one already in flight for the same domain. */
  coalesced: number;
  /** Look-ups that went to the network. */
  misses: number;
  /** DNS queries sent (UDP + TCP). */
  queries: number;
}

export class DnsMailResolver implements MailDomainResolver {
  private readonly servers: Server[];
  private readonly timeoutMs: number;
  private readonly attempts: number;
  private readonly minTtl: number;
  private readonly maxTtl: number;
  private readonly negTtl: number;
  private readonly now: () => number;
  private readonly mailCache: TtlCache<MailDomainLookup>;
  private readonly hostCache: TtlCache<string[]>;
  private readonly inflight = new Map<string, Promise<MailDomainLookup>>();
  private readonly hostInflight = new Map<string, Promise<string[]>>();
  readonly stats: DnsResolverStats = { hits: 0, coalesced: 0, misses: 0, queries: 0 };

  /** @throws Error when a configured server is not an IP address (with optional port). */
  constructor(options: DnsResolverOptions = {}) {
    if (options.servers && options.servers.length > 0) {
      this.servers = options.servers.map(parseDnsServer);
    } else {
      // System servers: skip entries we cannot use (e.g. link-local IPv6 with a zone id `fe80::1%eth0`).
      this.servers = dns.getServers().filter(isDnsServerSpec).map(parseDnsServer);
    }
    if (this.servers.length === 0) throw new Error('no usable DNS server configured');
    this.timeoutMs = options.timeoutMs ?? 1500;
    this.attempts = Math.max(1, options.attempts ?? 2);
    this.minTtl = options.minTtlSeconds ?? 0;
    this.maxTtl = options.maxTtlSeconds ?? 3600;
    this.negTtl = options.defaultNegativeTtlSeconds ?? 300;
    this.now = options.now ?? Date.now;
    this.mailCache = new TtlCache(options.cacheSize ?? 10_000, this.now);
    this.hostCache = new TtlCache(options.cacheSize ?? 10_000, this.now);
  }

  /** Drops every cached answer. */
  clearCache(): void {
    this.mailCache.clear();
    this.hostCache.clear();
  }

  lookupMailDomain(asciiDomain: string): Promise<MailDomainLookup> {
    const key = asciiDomain.toLowerCase();
    const cached = this.mailCache.get(key);
    if (cached) {
      this.stats.hits++;
      return Promise.resolve(cached);
    }
    const pending = this.inflight.get(key);
    if (pending) {
      this.stats.coalesced++;
      return pending;
    }
    this.stats.misses++;
    const p = this.resolveMail(key).finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  /**
   * IPv4 and IPv6 addresses of a host (A then AAAA), cached like mail look-ups. Empty when the host has none
   * or the upstream failed.
   */
  resolveHostAddresses(host: string): Promise<string[]> {
    const key = host.toLowerCase();
    const cached = this.hostCache.get(key);
    if (cached) return Promise.resolve(cached);
    const pending = this.hostInflight.get(key);
    if (pending) return pending;
    const p = (async () => {
      try {
        const [a, aaaa] = await Promise.all([this.query(key, 'A'), this.query(key, 'AAAA')]);
        const records = [...a.answers, ...aaaa.answers].filter((r) => r.type === 'A' || r.type === 'AAAA');
        const addresses = records.map((r) => String((r as { data: unknown }).data));
        const ttl = records.length > 0 ? this.clampTtl(Math.min(...records.map((r) => ttlOf(r)))) : this.negativeTtl(a);
        this.hostCache.set(key, addresses, ttl * 1000);
        return addresses;
      } catch {
        return [];
      }
    })().finally(() => this.hostInflight.delete(key));
    this.hostInflight.set(key, p);
    return p;
  }

  private async resolveMail(domain: string): Promise<MailDomainLookup> {
    try {
      const mx = await this.query(domain, 'MX');
      if (mx.rcode === 'NXDOMAIN') {
        const value: MailDomainLookup = { kind: 'nxdomain' };
        this.mailCache.set(domain, value, this.negativeTtl(mx) * 1000);
        return value;
      }
      const mxRecords = mx.answers.filter((r): r is dnsPacket.MxAnswer => r.type === 'MX');
      if (mxRecords.length > 0) {
        const ttl = this.clampTtl(Math.min(...mxRecords.map((r) => ttlOf(r))));
        const exchanges: MailExchanger[] = mxRecords
          .map((r) => ({ exchange: normaliseName(r.data.exchange), priority: r.data.preference ?? 0 }))
          .sort((x, y) => x.priority - y.priority || x.exchange.localeCompare(y.exchange));
        // RFC 7505 §3: a null MX is the single record "0 ." (a null MX beside others is a misconfiguration;
        // the usable exchangers then win).
        const usable = exchanges.filter((e) => e.exchange !== '');
        const value: MailDomainLookup = usable.length === 0 ? { kind: 'null_mx' } : { kind: 'mx', exchanges: usable };
        this.mailCache.set(domain, value, ttl * 1000);
        return value;
      }
      // NOERROR/NODATA: RFC 5321 §5.1 implicit MX, the domain's own A/AAAA records.
      const [a, aaaa] = await Promise.all([this.query(domain, 'A'), this.query(domain, 'AAAA')]);
      const addrs = [...a.answers, ...aaaa.answers].filter((r) => r.type === 'A' || r.type === 'AAAA');
      if (addrs.length > 0) {
        const ttl = this.clampTtl(Math.min(...addrs.map((r) => ttlOf(r))));
        const value: MailDomainLookup = { kind: 'implicit', exchanges: [{ exchange: domain, priority: 0 }] };
        this.mailCache.set(domain, value, ttl * 1000);
        const addresses = addrs.map((r) => String((r as { data: unknown }).data));
        this.hostCache.set(domain, addresses, ttl * 1000);
        return value;
      }
      const value: MailDomainLookup = { kind: 'no_mail' };
      this.mailCache.set(domain, value, this.negativeTtl(mx) * 1000);
      return value;
    } catch (err) {
      return { kind: 'error', reason: err instanceof UpstreamError ? err.reason : 'network' };
    }
  }

  private clampTtl(ttl: number): number {
    return Math.min(this.maxTtl, Math.max(this.minTtl, ttl));
  }

  /** RFC 2308 §5: negative answers live for min(SOA TTL, SOA MINIMUM). */
  private negativeTtl(outcome: QueryOutcome): number {
    const soa = outcome.authorities.find((r): r is dnsPacket.SoaAnswer => r.type === 'SOA');
    if (!soa) return this.clampTtl(this.negTtl);
    return this.clampTtl(Math.min(ttlOf(soa), soa.data.minimum ?? 0));
  }

  /** One question, answered by the first server giving NOERROR or NXDOMAIN. */
  private async query(name: string, type: RecordType): Promise<QueryOutcome> {
    let last: UpstreamError = new UpstreamError('timeout');
    for (let pass = 0; pass < this.attempts; pass++) {
      for (const server of this.servers) {
        try {
          const res = await this.exchange(server, name, type);
          if (res.rcode === 'NOERROR' || res.rcode === 'NXDOMAIN') return res;
          last = new UpstreamError(res.rcode === 'REFUSED' ? 'refused' : res.rcode === 'SERVFAIL' ? 'servfail' : 'bad_response');
        } catch (err) {
          last = err instanceof UpstreamError ? err : new UpstreamError('network');
        }
      }
    }
    throw last;
  }

  private async exchange(server: Server, name: string, type: RecordType): Promise<QueryOutcome> {
    const id = randomInt(0, 65536);
    const query: dnsPacket.Packet = {
      type: 'query',
      id,
      flags: dnsPacket.RECURSION_DESIRED,
      questions: [{ type, name, class: 'IN' }],
    };
    this.stats.queries++;
    let res = await this.udpExchange(server, dnsPacket.encode(query), id, name, type);
    if (res.flag_tc) {
      this.stats.queries++;
      res = await this.tcpExchange(server, query, id, name, type);
    }
    return { rcode: (res as unknown as { rcode: string }).rcode ?? 'NOERROR', answers: res.answers ?? [], authorities: res.authorities ?? [] };
  }

  private udpExchange(server: Server, payload: Buffer, id: number, name: string, type: RecordType): Promise<dnsPacket.DecodedPacket> {
    return new Promise((resolve, reject) => {
      const socket = dgram.createSocket(net.isIPv6(server.host) ? 'udp6' : 'udp4');
      let done = false;
      const finish = (err: Error | null, value?: dnsPacket.DecodedPacket): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        socket.close();
        if (err) reject(err);
        else resolve(value!);
      };
      const timer = setTimeout(() => finish(new UpstreamError('timeout')), this.timeoutMs);
      socket.on('error', () => finish(new UpstreamError('network')));
      socket.on('message', (msg, rinfo) => {
        if (rinfo.port !== server.port || !sameHost(rinfo.address, server.host)) return;
        let decoded: dnsPacket.DecodedPacket;
        try {
          decoded = dnsPacket.decode(msg) as dnsPacket.DecodedPacket;
        } catch {
          return; // garbage: keep waiting for the real answer until the timeout
        }
        if (matches(decoded, id, name, type)) finish(null, decoded);
      });
      socket.send(payload, server.port, server.host, (err) => {
        if (err) finish(new UpstreamError('network'));
      });
    });
  }

  private tcpExchange(server: Server, query: dnsPacket.Packet, id: number, name: string, type: RecordType): Promise<dnsPacket.DecodedPacket> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: server.host, port: server.port });
      let buf = Buffer.alloc(0);
      let done = false;
      const finish = (err: Error | null, value?: dnsPacket.DecodedPacket): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        socket.destroy();
        if (err) reject(err);
        else resolve(value!);
      };
      const timer = setTimeout(() => finish(new UpstreamError('timeout')), this.timeoutMs);
      socket.on('error', () => finish(new UpstreamError('network')));
      socket.on('connect', () => socket.write(dnsPacket.streamEncode(query)));
      socket.on('data', (chunk) => {
        buf = Buffer.concat([buf, chunk]);
        if (buf.length > 70_000) return finish(new UpstreamError('bad_response'));
        if (buf.length < 2) return;
        const len = buf.readUInt16BE(0);
        if (buf.length < len + 2) return;
        try {
          const decoded = dnsPacket.decode(buf.subarray(2, len + 2)) as dnsPacket.DecodedPacket;
          if (matches(decoded, id, name, type)) finish(null, decoded);
          else finish(new UpstreamError('bad_response'));
        } catch {
          finish(new UpstreamError('bad_response'));
        }
      });
      socket.on('close', () => finish(new UpstreamError('network')));
    });
  }
}

function ttlOf(r: dnsPacket.Answer): number {
  return (r as { ttl?: number }).ttl ?? 0;
}

function normaliseName(n: string): string {
  const lower = n.toLowerCase();
  if (lower === '.' || lower === '') return '';
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

function sameHost(a: string, b: string): boolean {
  return a === b || a.replace(/^::ffff:/, '') === b.replace(/^::ffff:/, '');
}

function matches(p: dnsPacket.DecodedPacket, id: number, name: string, type: RecordType): boolean {
  if (p.type !== 'response' || p.id !== id) return false;
  const q = p.questions?.[0];
  return !!q && q.type === type && q.name.toLowerCase() === name.toLowerCase();
}
