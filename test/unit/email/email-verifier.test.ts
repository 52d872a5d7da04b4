import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmailVerifier, type EmailVerifier } from '../../../domain/email/verify-email.ts';
import { DnsMailResolver } from '../../../infra/email-verifier/dns-resolver.ts';
import { SmtpRecipientProber } from '../../../infra/email-verifier/smtp-probe.ts';
import { HttpGravatarChecker, gravatarHash } from '../../../infra/email-verifier/gravatar.ts';
import { startTestDnsServer, type TestDnsServer } from '../../helpers/email-dns-server.ts';
import { startTestSmtpServer, type TestSmtpServer } from '../../helpers/email-smtp-server.ts';
import { EMAIL_TEST_ZONE, benchZone } from '../../helpers/email-fixture-zone.ts';

let dns: TestDnsServer;
let smtp: TestSmtpServer;
let resolver: DnsMailResolver;
let verifier: EmailVerifier;

beforeAll(async () => {
  dns = await startTestDnsServer({ ...EMAIL_TEST_ZONE, ...benchZone() });
  smtp = await startTestSmtpServer();
  resolver = new DnsMailResolver({ servers: [dns.server], timeoutMs: 3000, attempts: 1 });
  const prober = new SmtpRecipientProber({
    heloName: 'probe.sello.test',
    mailFrom: 'verify@sello.test',
    port: smtp.port,
    allowPrivateAddresses: true,
    resolveHost: (h) => resolver.resolveHostAddresses(h),
    commandTimeoutMs: 2000,
    totalTimeoutMs: 5000,
  });
  verifier = createEmailVerifier({ resolver, smtp: prober });
});
afterAll(async () => {
  await smtp.close();
  await dns.close();
});

describe('verify: one status per DNS outcome', () => {
  it('VALID: MX records, free provider, alias detected (score 95)', async () => {
    const r = await verifier.verify('Juan.Perez+banco@gmail.com');
    expect(r).toMatchObject({
      email: 'Juan.Perez+banco@gmail.com',
      status: 'VALID',
      score: 95,
      validations: { syntax: true, domain_exists: true, mx_records: true, is_disposable: false, is_role_based: false },
      aliasOf: 'juanperez@gmail.com',
      meta: { suggestion: null, free: true, gravatar: false, reachability: 'unknown', smtp: null },
    });
    expect(typeof r.processing_time).toBe('number');
  });

  it('VALID: corporate domain, no alias, not free (score 100)', async () => {
    const r = await verifier.verify('juan.perez@empresa.com.mx');
    expect(r).toMatchObject({ status: 'VALID', score: 100, aliasOf: null, meta: { free: false } });
  });

  it('VALID via the RFC 5321 §5.1 implicit MX (A record only)', async () => {
    const r = await verifier.verify('ana@implicit.com.mx');
    expect(r).toMatchObject({ status: 'VALID', score: 100, validations: { domain_exists: true, mx_records: true } });
  });

  it('role-based address: VALID with score 90', async () => {
    const r = await verifier.verify('ventas@empresa.com.mx');
    expect(r).toMatchObject({ status: 'VALID', score: 90, validations: { is_role_based: true } });
  });

  it('DISPOSABLE (score 75)', async () => {
    const r = await verifier.verify('temp@mailinator.com');
    expect(r).toMatchObject({ status: 'DISPOSABLE', score: 75, validations: { is_disposable: true, domain_exists: true, mx_records: true } });
  });

  it('INVALID_DOMAIN: NXDOMAIN (score 55), with a typo suggestion', async () => {
    const r = await verifier.verify('juan@gmial.com');
    expect(r).toMatchObject({ status: 'INVALID_DOMAIN', score: 55, validations: { domain_exists: false, mx_records: false }, meta: { suggestion: 'juan@gmail.com' } });
  });

  it('INVALID_DOMAIN: null MX (RFC 7505) and a name without mail hosts (score 75)', async () => {
    for (const e of ['a@nullmx.com.mx', 'a@nomail.com.mx']) {
      expect(await verifier.verify(e)).toMatchObject({ status: 'INVALID_DOMAIN', score: 75, validations: { domain_exists: true, mx_records: false } });
    }
  });

  it('INVALID_DOMAIN: address literal (syntax valid, no domain to check)', async () => {
    expect(await verifier.verify('a@[192.0.2.1]')).toMatchObject({ status: 'INVALID_DOMAIN', validations: { syntax: true, domain_exists: false } });
  });

  it('ERROR: SERVFAIL or a stalled upstream (score 55), not INVALID_DOMAIN', async () => {
    expect(await verifier.verify('a@servfail.com.mx')).toMatchObject({ status: 'ERROR', score: 55 });
    const impatient = createEmailVerifier({ resolver: new DnsMailResolver({ servers: [dns.server], timeoutMs: 300, attempts: 1 }) });
    const t0 = Date.now();
    expect(await impatient.verify('a@stalls.com.mx')).toMatchObject({ status: 'ERROR' });
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it('INVALID_FORMAT (score 35) for bad syntax; nothing else is checked', async () => {
    const before = dns.log.length;
    expect(await verifier.verify('not-an-email')).toMatchObject({
      status: 'INVALID_FORMAT',
      score: 35,
      validations: { syntax: false, domain_exists: false, mx_records: false, is_disposable: false, is_role_based: false },
      aliasOf: null,
    });
    expect(dns.log.length).toBe(before);
  });

  it('internationalised address: the A-label domain is looked up', async () => {
    const r = await verifier.verify('josé@correo-ñ.mx');
    expect(r).toMatchObject({ status: 'VALID', email: 'josé@correo-ñ.mx' });
    expect(dns.count('xn--correo--b0a.mx', 'MX')).toBeGreaterThan(0);
  });
});

describe('verify with reachable=true (SMTP probe on loopback)', () => {
  it('deliverable mailbox -> reachability yes, smtp flags filled; status and score unchanged', async () => {
    const r = await verifier.verify('ok.maria@probe.com.mx', { reachable: true });
    expect(r).toMatchObject({ status: 'VALID', score: 100, meta: { reachability: 'yes', smtp: { host_exists: true, deliverable: true, catch_all: false, full_inbox: false, disabled: false } } });
  });
  it('unknown mailbox -> no', async () => {
    const r = await verifier.verify('nadie@probe.com.mx', { reachable: true });
    expect(r.meta).toMatchObject({ reachability: 'no', smtp: { host_exists: true, deliverable: false } });
  });
  it('catch-all domain -> unknown with catch_all', async () => {
    const r = await verifier.verify('quien-sea@catchall.com.mx', { reachable: true });
    expect(r.meta).toMatchObject({ reachability: 'unknown', smtp: { catch_all: true, deliverable: true } });
  });
  it('domain without mail exchangers -> no, without any SMTP connection', async () => {
    const before = smtp.log.length;
    const r = await verifier.verify('a@nullmx.com.mx', { reachable: true });
    expect(r.meta).toMatchObject({ reachability: 'no', smtp: { host_exists: false } });
    expect(smtp.log.length).toBe(before);
  });
  it('never sends DATA', () => {
    expect(smtp.log).not.toContain('DATA');
  });
});

describe('batches', () => {
  it('keep input order, verify repeated addresses once, and count statistics over every input', async () => {
    const emails = ['b@empresa.com.mx', 'bad', 'x@mailinator.com', 'b@empresa.com.mx', 'info@empresa.com.mx', 'a.b+c@gmail.com', 'q@nxdomain-here.mx'];
    const before = dns.count('empresa.com.mx', 'MX');
    const { results, statistics } = await verifier.verifyBatch(emails);
    expect(results.map((r) => r.email)).toEqual(emails);
    expect(results.map((r) => r.status)).toEqual(['VALID', 'INVALID_FORMAT', 'DISPOSABLE', 'VALID', 'VALID', 'VALID', 'INVALID_DOMAIN']);
    expect(results[0]).toBe(results[3]);
    expect(statistics).toEqual({ total: 7, valid: 4, invalid_format: 1, invalid_domain: 1, disposable: 1, role_based: 1, has_alias: 1 });
    expect(dns.count('empresa.com.mx', 'MX') - before).toBeLessThanOrEqual(1);
  });

  it('100 addresses over 20 domains: one MX query per domain (coalesced), bounded pool', async () => {
    resolver.clearCache();
    const emails = Array.from({ length: 100 }, (_, i) => `user${i}@dom${String(i % 20).padStart(2, '0')}.bench.mx`);
    const before = dns.log.length;
    let inFlight = 0;
    let peak = 0;
    // A generous timeout: this test counts queries, and a retry after a timeout on a loaded CI machine
    // would count twice.
    const patient = new DnsMailResolver({ servers: [dns.server], timeoutMs: 5000, attempts: 1 });
    const counting = createEmailVerifier({
      resolver: {
        lookupMailDomain: async (d) => {
          inFlight++;
          peak = Math.max(peak, inFlight);
          try {
            return await patient.lookupMailDomain(d);
          } finally {
            inFlight--;
          }
        },
      },
      batchConcurrency: 8,
    });
    const { statistics } = await counting.verifyBatch(emails);
    expect(statistics.valid).toBe(100);
    expect(dns.log.length - before).toBe(20);
    expect(peak).toBeLessThanOrEqual(8);
  });

  it('a resolver that throws makes the batch reject (the route answers 500)', async () => {
    const broken = createEmailVerifier({ resolver: { lookupMailDomain: async () => { throw new Error('boom'); } } });
    await expect(broken.verifyBatch(['a@b.com'])).rejects.toThrow('boom');
    await expect(broken.verify('a@b.com')).rejects.toThrow('boom');
  });
});

describe('Gravatar (loopback HTTP server standing in for gravatar.com)', () => {
  let server: http.Server;
  let base: string;
  const withAvatar = 'Con.Avatar@Example.com';
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url?.includes(gravatarHash('stall@example.com'))) return; // never answers
      res.statusCode = req.method === 'HEAD' && req.url === `/avatar/${gravatarHash(withAvatar)}?d=404` ? 200 : 404;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/avatar/`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('hashes the trimmed lower-cased address with SHA-256', () => {
    expect(gravatarHash(' Con.Avatar@Example.com ')).toBe(gravatarHash('con.avatar@example.com'));
    expect(gravatarHash('a@b.c')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('true when the avatar exists, false on 404, false fast when the host stalls, then cools down', async () => {
    const g = new HttpGravatarChecker({ baseUrl: base, timeoutMs: 700 });
    expect(await g.hasGravatar(withAvatar)).toBe(true);
    expect(await g.hasGravatar('sin.avatar@example.com')).toBe(false);
    const t0 = Date.now();
    expect(await g.hasGravatar('stall@example.com')).toBe(false);
    expect(Date.now() - t0).toBeLessThan(1500);
    // After the timeout the checker stays off for its cool-down: no request, immediate false.
    const t1 = Date.now();
    expect(await g.hasGravatar(withAvatar)).toBe(false);
    expect(Date.now() - t1).toBeLessThan(300);
  });

  it('unreachable network answers false quickly', async () => {
    const g = new HttpGravatarChecker({ baseUrl: 'http://127.0.0.1:1/avatar/', timeoutMs: 300 });
    const t0 = Date.now();
    expect(await g.hasGravatar('a@example.com')).toBe(false);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('feeds meta.gravatar when enabled; off by default', async () => {
    const on = createEmailVerifier({ resolver, gravatar: new HttpGravatarChecker({ baseUrl: base, timeoutMs: 1000 }) });
    expect((await on.verify(withAvatar)).meta.gravatar).toBe(true);
    expect((await verifier.verify(withAvatar)).meta.gravatar).toBe(false);
  });
});
