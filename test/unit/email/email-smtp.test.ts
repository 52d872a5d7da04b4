import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SmtpRecipientProber, classifyRcpt, isPublicAddress } from '../../../infra/email-verifier/smtp-probe.ts';
import { startSilentServer, startTestSmtpServer, type TestSmtpServer } from '../../helpers/email-smtp-server.ts';

const LOOPBACK = async (): Promise<string[]> => ['127.0.0.1'];
const MX = [{ exchange: 'mx.example.test', priority: 10 }];

describe('SMTP recipient probe against a real SMTP server on loopback', () => {
  let smtp: TestSmtpServer;
  let prober: SmtpRecipientProber;
  beforeAll(async () => {
    smtp = await startTestSmtpServer();
    prober = new SmtpRecipientProber({
      heloName: 'probe.sello.test',
      mailFrom: 'verify@sello.test',
      port: smtp.port,
      resolveHost: LOOPBACK,
      allowPrivateAddresses: true,
      commandTimeoutMs: 2000,
      totalTimeoutMs: 5000,
      randomLocal: () => 'zz-random-probe',
    });
  });
  afterAll(async () => smtp.close());

  it('deliverable: RCPT accepted, random recipient refused -> yes', async () => {
    const r = await prober.probe('ok.person@example.test', 'example.test', MX);
    expect(r).toEqual({ reachability: 'yes', smtp: { host_exists: true, full_inbox: false, catch_all: false, deliverable: true, disabled: false } });
    expect(smtp.log).toContain('RCPT zz-random-probe@example.test');
  });

  it('unknown user (550 5.1.1) -> no', async () => {
    const r = await prober.probe('unknown.user@example.test', 'example.test', MX);
    expect(r.reachability).toBe('no');
    expect(r.smtp).toMatchObject({ host_exists: true, deliverable: false, disabled: false, full_inbox: false });
  });

  it('full mailbox (552 5.2.2) -> full_inbox, unknown', async () => {
    const r = await prober.probe('full.box@example.test', 'example.test', MX);
    expect(r.reachability).toBe('unknown');
    expect(r.smtp).toMatchObject({ host_exists: true, full_inbox: true, deliverable: false });
  });

  it('disabled mailbox (550 5.2.1) -> disabled, no', async () => {
    const r = await prober.probe('disabled.box@example.test', 'example.test', MX);
    expect(r.reachability).toBe('no');
    expect(r.smtp).toMatchObject({ host_exists: true, disabled: true, deliverable: false });
  });

  it('catch-all: the random recipient is accepted too -> catch_all, unknown', async () => {
    const r = await prober.probe('anyone@catchall.test', 'catchall.test', MX);
    expect(r.reachability).toBe('unknown');
    expect(r.smtp).toMatchObject({ host_exists: true, deliverable: true, catch_all: true });
  });

  it('greylisting (451 4.7.1) -> unknown, not "no"', async () => {
    const r = await prober.probe('grey.list@example.test', 'example.test', MX);
    expect(r.reachability).toBe('unknown');
    expect(r.smtp).toMatchObject({ host_exists: true, deliverable: false, disabled: false, full_inbox: false });
  });

  it('policy refusal of the probe (550 5.7.1) is not read as a missing mailbox', async () => {
    const r = await prober.probe('blocked.sender@example.test', 'example.test', MX);
    expect(r.reachability).toBe('unknown');
  });

  it('uses STARTTLS when offered, the configured HELO name and sender, and never sends DATA', async () => {
    const before = smtp.tlsSessions;
    await prober.probe('ok.again@example.test', 'example.test', MX);
    expect(smtp.tlsSessions).toBeGreaterThan(before);
    expect(smtp.helo).toContain('probe.sello.test');
    expect(smtp.log).toContain('MAIL verify@sello.test');
    expect(smtp.log).not.toContain('DATA');
  });

  it('a server that stalls after RCPT: bounded by the command timeout, host_exists, unknown', async () => {
    const short = new SmtpRecipientProber({
      heloName: 'h',
      mailFrom: 'v@h.test',
      port: smtp.port,
      resolveHost: LOOPBACK,
      allowPrivateAddresses: true,
      commandTimeoutMs: 800,
      totalTimeoutMs: 4000,
    });
    const t0 = Date.now();
    const r = await short.probe('stallrcpt@example.test', 'example.test', MX);
    expect(Date.now() - t0).toBeLessThan(3500);
    expect(r.reachability).toBe('unknown');
    expect(r.smtp.host_exists).toBe(true);
  });

  it('tries exchangers in preference order: a dead first MX falls through to the next', async () => {
    const hosts: Record<string, string[]> = { 'dead.mx.test': ['127.0.0.2'], 'live.mx.test': ['127.0.0.1'] };
    const p = new SmtpRecipientProber({
      heloName: 'probe.sello.test',
      mailFrom: 'verify@sello.test',
      port: smtp.port,
      allowPrivateAddresses: true,
      resolveHost: async (h) => hosts[h] ?? [],
    });
    const r = await p.probe('ok.mx@example.test', 'example.test', [
      { exchange: 'dead.mx.test', priority: 5 },
      { exchange: 'live.mx.test', priority: 10 },
    ]);
    expect(r.reachability).toBe('yes');
  });

  it('runs at most maxSessionsPerHost sessions against one MX address at once', async () => {
    const p = new SmtpRecipientProber({
      heloName: 'h',
      mailFrom: 'v@h.test',
      port: smtp.port,
      allowPrivateAddresses: true,
      resolveHost: LOOPBACK,
      maxSessionsPerHost: 2,
      totalTimeoutMs: 4000,
    });
    const before = smtp.peakSessions;
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => p.probe(`ok.${i}@example.test`, 'example.test', MX)));
    expect(results.every((r) => r.reachability === 'yes')).toBe(true);
    expect(Math.max(0, smtp.peakSessions - before)).toBeLessThanOrEqual(2);
  });

  it('refuses to connect to loopback/private addresses unless allowed (no internal port scans)', async () => {
    const p = new SmtpRecipientProber({ heloName: 'h', mailFrom: 'v@h.test', port: smtp.port, resolveHost: LOOPBACK });
    const before = smtp.log.length;
    const r = await p.probe('ok@example.test', 'example.test', MX);
    expect(r).toEqual({ reachability: 'unknown', smtp: { host_exists: false, full_inbox: false, catch_all: false, deliverable: false, disabled: false } });
    expect(smtp.log.length).toBe(before);
    expect(isPublicAddress('10.1.2.3')).toBe(false);
    expect(isPublicAddress('::1')).toBe(false);
    expect(isPublicAddress('::127.0.0.1')).toBe(false);
    expect(isPublicAddress('not-an-ip')).toBe(false);
    expect(isPublicAddress('8.8.8.8')).toBe(true);
  });
});

describe('SMTP probe against hosts that stall or refuse', () => {
  it('a host that accepts TCP but never greets: the whole probe stays within its budget', async () => {
    const silent = await startSilentServer();
    try {
      const p = new SmtpRecipientProber({
        heloName: 'h',
        mailFrom: 'v@h.test',
        port: silent.port,
        allowPrivateAddresses: true,
        resolveHost: LOOPBACK,
        commandTimeoutMs: 300,
        totalTimeoutMs: 800,
      });
      const t0 = Date.now();
      const r = await p.probe('someone@example.test', 'example.test', [
        { exchange: 'a.test', priority: 1 },
        { exchange: 'b.test', priority: 2 },
      ]);
      const elapsed = Date.now() - t0;
      expect(elapsed).toBeLessThan(2500);
      expect(silent.connections()).toBeGreaterThanOrEqual(1);
      expect(r).toEqual({ reachability: 'unknown', smtp: { host_exists: false, full_inbox: false, catch_all: false, deliverable: false, disabled: false } });
    } finally {
      await silent.close();
    }
  });

  it('a host that never greeted is skipped by later probes for a while (a batch pays one timeout)', async () => {
    const silent = await startSilentServer();
    try {
      const p = new SmtpRecipientProber({ heloName: 'h', mailFrom: 'v@h.test', port: silent.port, allowPrivateAddresses: true, resolveHost: LOOPBACK, commandTimeoutMs: 200, totalTimeoutMs: 500 });
      await p.probe('a@example.test', 'example.test', MX);
      const t0 = Date.now();
      const again = await p.probe('b@example.test', 'example.test', MX);
      expect(Date.now() - t0).toBeLessThan(300);
      expect(again.reachability).toBe('unknown');
      expect(silent.connections()).toBe(1);
    } finally {
      await silent.close();
    }
  });

  it('connection refused everywhere -> unknown, host_exists false', async () => {
    const silent = await startSilentServer();
    const port = silent.port;
    await silent.close(); // now nothing listens there
    const p = new SmtpRecipientProber({ heloName: 'h', mailFrom: 'v@h.test', port, allowPrivateAddresses: true, resolveHost: LOOPBACK });
    const r = await p.probe('x@example.test', 'example.test', MX);
    expect(r.reachability).toBe('unknown');
    expect(r.smtp.host_exists).toBe(false);
  });
});

describe('RCPT reply classification (RFC 5321 §4.2, RFC 3463)', () => {
  const reply = (code: number, text: string) => ({ code, enhanced: /^([245]\.\d+\.\d+)/.exec(text)?.[1] ?? null, text, lines: [text] });
  it.each([
    [250, '2.1.5 OK', 'accepted'],
    [251, 'User not local; will forward', 'accepted'],
    [550, '5.1.1 No such user', 'no_mailbox'],
    [550, 'No such user here', 'no_mailbox'],
    [553, 'mailbox name not allowed', 'no_mailbox'],
    [552, '5.2.2 Over quota', 'full'],
    [452, '4.2.2 Mailbox full', 'full'],
    [550, '5.2.1 The email account that you tried to reach is disabled', 'disabled'],
    [554, 'Recipient address rejected: account suspended', 'disabled'],
    [550, '5.7.1 Service unavailable; client host blocked using Spamhaus', 'unknown'],
    [550, 'Message rejected due to poor reputation', 'unknown'],
    [450, '4.2.0 Greylisted', 'unknown'],
    [421, 'Service not available', 'unknown'],
  ] as const)('%i %s -> %s', (code, text, expected) => {
    expect(classifyRcpt(reply(code, text))).toBe(expected);
  });
});
