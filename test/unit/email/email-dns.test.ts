import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DnsMailResolver, parseDnsServer } from '../../../infra/email-verifier/dns-resolver.ts';
import { startTestDnsServer, type TestDnsServer } from '../../helpers/email-dns-server.ts';

const manyMx: Array<[number, string]> = Array.from({ length: 30 }, (_, i) => [i + 1, `mx${i}.a-rather-long-mail-exchanger-name.big.test`]);

describe('DNS mail-domain look-ups against a real DNS server on loopback', () => {
  let dns: TestDnsServer;
  beforeAll(async () => {
    dns = await startTestDnsServer(
      {
        'good.test': { mx: [[20, 'mx2.good.test'], [10, 'MX1.good.test.'], [10, 'mx0.good.test']], ttl: 120 },
        'mx1.good.test': { a: ['127.0.0.1'], aaaa: ['::1'] },
        'aonly.test': { a: ['192.0.2.10'] },
        'aaaaonly.test': { aaaa: ['2001:db8::10'] },
        'nullmx.test': { mx: [[0, '.']] },
        'nomail.test': {},
        'servfail.test': { rcode: 'SERVFAIL' },
        'refused.test': { rcode: 'REFUSED' },
        'stall.test': { stall: true },
        'short-ttl.test': { mx: [[10, 'mx.short-ttl.test']], ttl: 5 },
        'zero-ttl.test': { mx: [[10, 'mx.zero-ttl.test']], ttl: 0 },
        'slow.test': { mx: [[10, 'mx.slow.test']], delayMs: 150 },
        'big.test': { mx: manyMx },
      },
      { negativeTtl: 30 },
    );
  });
  afterAll(async () => dns.close());

  const resolver = (extra: Partial<ConstructorParameters<typeof DnsMailResolver>[0]> = {}) =>
    // Patient by default: on a loaded CI machine a loopback answer can take a while; only the stall test is short.
    new DnsMailResolver({ servers: [dns.server], timeoutMs: 3000, attempts: 1, ...extra });

  it('MX records sorted by preference, names lower-cased without the trailing dot', async () => {
    expect(await resolver().lookupMailDomain('good.test')).toEqual({
      kind: 'mx',
      exchanges: [
        { exchange: 'mx0.good.test', priority: 10 },
        { exchange: 'mx1.good.test', priority: 10 },
        { exchange: 'mx2.good.test', priority: 20 },
      ],
    });
  });

  it('RFC 5321 §5.1: no MX but A or AAAA -> implicit MX (the domain itself)', async () => {
    const r = resolver();
    expect(await r.lookupMailDomain('aonly.test')).toEqual({ kind: 'implicit', exchanges: [{ exchange: 'aonly.test', priority: 0 }] });
    expect(await r.lookupMailDomain('aaaaonly.test')).toEqual({ kind: 'implicit', exchanges: [{ exchange: 'aaaaonly.test', priority: 0 }] });
    expect(await r.resolveHostAddresses('aonly.test')).toEqual(['192.0.2.10']);
  });

  it('RFC 7505 null MX -> null_mx, and no fallback to A/AAAA', async () => {
    const before = dns.count('nullmx.test', 'A');
    expect(await resolver().lookupMailDomain('nullmx.test')).toEqual({ kind: 'null_mx' });
    expect(dns.count('nullmx.test', 'A')).toBe(before);
  });

  it('existing name with no MX and no address -> no_mail', async () => {
    expect(await resolver().lookupMailDomain('nomail.test')).toEqual({ kind: 'no_mail' });
  });

  it('NXDOMAIN, SERVFAIL, REFUSED and timeout are told apart', async () => {
    const r = resolver();
    expect(await r.lookupMailDomain('does-not-exist.test')).toEqual({ kind: 'nxdomain' });
    expect(await r.lookupMailDomain('servfail.test')).toEqual({ kind: 'error', reason: 'servfail' });
    expect(await r.lookupMailDomain('refused.test')).toEqual({ kind: 'error', reason: 'refused' });
    const t0 = Date.now();
    expect(await resolver({ timeoutMs: 300 }).lookupMailDomain('stall.test')).toEqual({ kind: 'error', reason: 'timeout' });
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it('a truncated UDP answer is retried over TCP (RFC 7766)', async () => {
    const res = resolver();
    const r = await res.lookupMailDomain('big.test');
    expect(res.stats.queries).toBe(2); // the UDP query, then the same over TCP
    expect(r.kind).toBe('mx');
    expect(r.kind === 'mx' && r.exchanges.length).toBe(30);
  });

  it('caches answers for their TTL, then asks again', async () => {
    let clock = 1_000_000;
    const r = resolver({ now: () => clock });
    await r.lookupMailDomain('short-ttl.test');
    const asked = dns.count('short-ttl.test', 'MX');
    clock += 4_000;
    await r.lookupMailDomain('short-ttl.test');
    expect(dns.count('short-ttl.test', 'MX')).toBe(asked);
    expect(r.stats.hits).toBe(1);
    clock += 1_500; // past the 5 s TTL
    await r.lookupMailDomain('short-ttl.test');
    expect(dns.count('short-ttl.test', 'MX')).toBe(asked + 1);
  });

  it('a zero TTL is not cached; the ceiling caps long TTLs', async () => {
    let clock = 0;
    const r = resolver({ now: () => clock, maxTtlSeconds: 60 });
    await r.lookupMailDomain('zero-ttl.test');
    await r.lookupMailDomain('zero-ttl.test');
    expect(r.stats.hits).toBe(0);
    await r.lookupMailDomain('good.test'); // TTL 120, capped at 60
    clock += 59_000;
    await r.lookupMailDomain('good.test');
    expect(r.stats.hits).toBe(1);
    clock += 2_000;
    await r.lookupMailDomain('good.test');
    expect(r.stats.hits).toBe(1);
  });

  it('negative answers are cached for the SOA minimum (RFC 2308); upstream errors are not cached', async () => {
    let clock = 0;
    const r = resolver({ now: () => clock });
    await r.lookupMailDomain('gone.test');
    clock += 29_000;
    await r.lookupMailDomain('gone.test');
    expect(dns.count('gone.test', 'MX')).toBe(1);
    clock += 2_000;
    await r.lookupMailDomain('gone.test');
    expect(dns.count('gone.test', 'MX')).toBe(2);

    const before = dns.count('servfail.test', 'MX');
    await r.lookupMailDomain('servfail.test');
    await r.lookupMailDomain('servfail.test');
    expect(dns.count('servfail.test', 'MX')).toBe(before + 2);
  });

  it('concurrent look-ups of one domain are coalesced into one query', async () => {
    const r = resolver();
    const before = dns.count('slow.test', 'MX');
    const results = await Promise.all(Array.from({ length: 25 }, () => r.lookupMailDomain('SLOW.test')));
    expect(new Set(results.map((x) => JSON.stringify(x))).size).toBe(1);
    expect(dns.count('slow.test', 'MX')).toBe(before + 1);
    expect(r.stats.coalesced).toBe(24);
  });

  it('fails over to the next server when one is silent or refuses', async () => {
    const deadServer = await startTestDnsServer({ 'good.test': { rcode: 'REFUSED' } });
    try {
      const r = new DnsMailResolver({ servers: [deadServer.server, dns.server], timeoutMs: 3000, attempts: 1 });
      expect((await r.lookupMailDomain('good.test')).kind).toBe('mx');
      expect(deadServer.count('good.test', 'MX')).toBe(1);
    } finally {
      await deadServer.close();
    }
  });

  it('evicts the least recently used entry beyond cacheSize', async () => {
    const r = resolver({ cacheSize: 2 });
    await r.lookupMailDomain('good.test');
    await r.lookupMailDomain('aonly.test');
    await r.lookupMailDomain('nomail.test'); // evicts good.test
    await r.lookupMailDomain('aonly.test');
    expect(r.stats.hits).toBe(1);
    await r.lookupMailDomain('good.test');
    expect(r.stats.hits).toBe(1);
  });
});

describe('DNS server settings', () => {
  it('accepts ip, ip:port, [ipv6]:port and bare IPv6', () => {
    expect(parseDnsServer('127.0.0.1')).toEqual({ host: '127.0.0.1', port: 53 });
    expect(parseDnsServer('127.0.0.1:5353')).toEqual({ host: '127.0.0.1', port: 5353 });
    expect(parseDnsServer('[::1]:5300')).toEqual({ host: '::1', port: 5300 });
    expect(parseDnsServer('2001:db8::53')).toEqual({ host: '2001:db8::53', port: 53 });
  });
  it.each(['dns.google', '1.2.3', '127.0.0.1:99999', '', '[nope]:53'])('rejects %j', (s) => {
    expect(() => parseDnsServer(s)).toThrow(/invalid DNS server/);
  });
});
