/**
 * SMTP recipient probe (RFC 5321): asks the domain's mail exchangers, in preference order, whether they would
 * accept the address, without ever sending a message.
 *
 * Dialogue per host: greeting (220), `EHLO` (falling back to `HELO`), `STARTTLS` when offered (RFC 3207; the
 * certificate is not verified: the probe only reads reply codes and sends no personal data besides the
 * address), `EHLO` again, `MAIL FROM:<sender>` (with `SMTPUTF8` for an internationalised address, RFC 6531),
 * `RCPT TO:<address>`, then `RCPT TO:<random>@domain` to detect a catch-all, then `RSET` and `QUIT`.
 * `DATA` is never sent, so no message can be delivered.
 *
 * Reading the answers (RFC 5321 §4.2, enhanced status codes RFC 3463):
 * - 250/251 to the address: `deliverable`; the random recipient accepted too: `catch_all`;
 * - 452/552 or x.2.2: `full_inbox`; 5.2.1 (or a 5xx whose text says disabled/inactive/suspended): `disabled`;
 * - 5.1.x or a bare 550/551/553 that is not about policy: the mailbox does not exist;
 * - 4xx (greylisting), 5.7.x (policy: the probe itself was refused), timeouts, refused connections: unknown.
 * `reachability` is `yes` only for a deliverable address on a server that is not catch-all, `no` for a
 * non-existent or disabled mailbox, `unknown` otherwise.
 *
 * Every step is bounded: connect and command timeouts, and a total budget for the whole probe (default
 * 4.5 s: the spec's "adds 1-5 s"). At most `maxSessionsPerHost` sessions run against one MX address at a time,
 * and an address that refused, stalled or never greeted is skipped for `deadHostTtlMs`, so a batch of
 * addresses at a dead domain costs one timeout, not one per address. Addresses that resolve to loopback/private/reserved ranges are not
 * contacted unless `allowPrivateAddresses` (a DNS answer must not turn the probe into an internal port scanner).
 */
import net from 'node:net';
import tls from 'node:tls';
import { randomBytes } from 'node:crypto';
import { addressRange } from '../../domain/webhooks/ssrf.ts';
import type { MailExchanger, SmtpFlags, SmtpProbeResult, SmtpProber } from '../ports/email-verifier.ts';

export interface SmtpProbeOptions {
  /** Name sent in EHLO/HELO; should be this host's public name with matching reverse DNS. */
  heloName: string;
  /** Envelope sender for MAIL FROM (a real mailbox of the operator is best received by servers). */
  mailFrom: string;
  /** Resolves an exchanger host name to addresses (the verifier's own DNS resolver). */
  resolveHost: (host: string) => Promise<string[]>;
  /** TCP port (default 25). */
  port?: number;
  /** Default 1500 ms. */
  connectTimeoutMs?: number;
  /** Per reply, default 1500 ms. */
  commandTimeoutMs?: number;
  /** Whole probe, default 4500 ms. */
  totalTimeoutMs?: number;
  /** Exchangers tried at most (default 2). */
  maxHosts?: number;
  /** Use STARTTLS when offered (default true). */
  startTls?: boolean;
  /** Allow loopback/private/reserved destinations (tests; default false). */
  allowPrivateAddresses?: boolean;
  /** Concurrent sessions per MX address (default 4): a batch must not look like a flood to the provider. */
  maxSessionsPerHost?: number;
  /** How long an address that refused, timed out or never greeted is skipped (default 60 s). */
  deadHostTtlMs?: number;
  /** Local part for the catch-all probe (default 16 random hex characters). */
  randomLocal?: () => string;
}

/** One parsed SMTP reply. */
export interface SmtpReply {
  code: number;
  /** Enhanced status code (`5.1.1`) when the server sent one. */
  enhanced: string | null;
  text: string;
  lines: string[];
}

class ProbeAbort extends Error {
  constructor(readonly kind: 'timeout' | 'closed' | 'protocol' | 'connect') {
    super(`smtp probe ${kind}`);
  }
}

const MAX_LINE = 2048;
const MAX_REPLY_LINES = 64;

/** Line-oriented SMTP client session over a (possibly upgraded) socket. */
class SmtpSession {
  private buffer = '';
  private lines: string[] = [];
  private waiter: (() => void) | null = null;
  private closed = false;
  private error: ProbeAbort | null = null;

  constructor(public socket: net.Socket | tls.TLSSocket) {
    this.attach(socket);
  }

  attach(socket: net.Socket | tls.TLSSocket): void {
    this.socket = socket;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      if (this.buffer.length > MAX_LINE * MAX_REPLY_LINES) return this.fail(new ProbeAbort('protocol'));
      let i: number;
      while ((i = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, i).replace(/\r$/, '');
        this.buffer = this.buffer.slice(i + 1);
        if (line.length > MAX_LINE) return this.fail(new ProbeAbort('protocol'));
        this.lines.push(line);
      }
      this.wake();
    });
    socket.on('error', () => this.fail(new ProbeAbort('closed')));
    socket.on('close', () => this.fail(new ProbeAbort('closed')));
  }

  detach(): void {
    this.socket.removeAllListeners('data');
    this.socket.removeAllListeners('error');
    this.socket.removeAllListeners('close');
  }

  private fail(err: ProbeAbort): void {
    if (!this.error) this.error = err;
    this.closed = true;
    this.wake();
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }

  /** Reads one (possibly multi-line) reply within `timeoutMs`. */
  async read(timeoutMs: number): Promise<SmtpReply> {
    const deadline = Date.now() + timeoutMs;
    const collected: string[] = [];
    for (;;) {
      while (this.lines.length > 0) {
        const line = this.lines.shift()!;
        const m = /^(\d{3})([ -]?)(.*)$/.exec(line);
        if (!m) throw new ProbeAbort('protocol');
        collected.push(line);
        if (collected.length > MAX_REPLY_LINES) throw new ProbeAbort('protocol');
        if (m[2] !== '-') {
          const code = Number(m[1]);
          const texts = collected.map((l) => l.slice(4));
          const enhanced = /^([245]\.\d{1,3}\.\d{1,3})\b/.exec(m[3] ?? '')?.[1] ?? null;
          return { code, enhanced, text: texts.join('\n'), lines: texts };
        }
      }
      if (this.closed) throw this.error ?? new ProbeAbort('closed');
      const left = deadline - Date.now();
      if (left <= 0) throw new ProbeAbort('timeout');
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => {
          this.waiter = null;
          resolve();
        }, left);
        this.waiter = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
  }

  async command(line: string, timeoutMs: number): Promise<SmtpReply> {
    if (this.closed) throw this.error ?? new ProbeAbort('closed');
    this.socket.write(line + '\r\n');
    return this.read(timeoutMs);
  }

  destroy(): void {
    this.closed = true;
    this.socket.destroy();
  }
}

const emptyFlags = (): SmtpFlags => ({ host_exists: false, full_inbox: false, catch_all: false, deliverable: false, disabled: false });

/** Classifies a RCPT TO reply for the probed address. */
export function classifyRcpt(reply: SmtpReply): 'accepted' | 'full' | 'disabled' | 'no_mailbox' | 'unknown' {
  const { code, enhanced, text } = reply;
  if (code === 250 || code === 251) return 'accepted';
  if (code === 452 || code === 552 || enhanced?.slice(1) === '.2.2') return 'full';
  if (code >= 500) {
    if (enhanced === '5.2.1' || /\b(disabled|deactivated|inactive|suspended|locked)\b/i.test(text)) return 'disabled';
    if (enhanced?.startsWith('5.7.') || /\b(block(ed)?|spam|policy|reputation|blacklist(ed)?|listed|denied|rbl|spf|dmarc)\b/i.test(text)) return 'unknown';
    if (enhanced?.startsWith('5.1.')) return 'no_mailbox';
    if (!enhanced && (code === 550 || code === 551 || code === 553)) return 'no_mailbox';
    return 'unknown';
  }
  return 'unknown';
}

export class SmtpRecipientProber implements SmtpProber {
  private readonly o: Required<Omit<SmtpProbeOptions, 'randomLocal'>> & { randomLocal: () => string };

  constructor(options: SmtpProbeOptions) {
    this.o = {
      port: 25,
      connectTimeoutMs: 1500,
      commandTimeoutMs: 1500,
      totalTimeoutMs: 4500,
      maxHosts: 2,
      startTls: true,
      allowPrivateAddresses: false,
      maxSessionsPerHost: 4,
      deadHostTtlMs: 60_000,
      randomLocal: () => randomBytes(8).toString('hex'),
      ...options,
    };
  }

  async probe(address: string, asciiDomain: string, exchanges: readonly MailExchanger[]): Promise<SmtpProbeResult> {
    const deadline = Date.now() + this.o.totalTimeoutMs;
    const flags = emptyFlags();
    for (const mx of exchanges.slice(0, this.o.maxHosts)) {
      if (Date.now() >= deadline) break;
      let addresses: string[];
      try {
        addresses = await withTimeout(this.o.resolveHost(mx.exchange), deadline - Date.now(), []);
      } catch {
        addresses = [];
      }
      const target = addresses.find((a) => this.o.allowPrivateAddresses || isPublicAddress(a));
      if (!target) continue;
      if ((this.deadUntil.get(target) ?? 0) > Date.now()) continue;
      if (!(await this.acquire(target, deadline))) continue;
      let outcome: Awaited<ReturnType<SmtpRecipientProber['probeHost']>>;
      try {
        outcome = await this.probeHost(target, mx.exchange, address, asciiDomain, deadline);
      } finally {
        this.release(target);
      }
      if (outcome.greeted) flags.host_exists = true;
      else this.markDead(target);
      if (outcome.result) return outcome.result;
    }
    return { smtp: flags, reachability: 'unknown' };
  }

  private readonly deadUntil = new Map<string, number>();
  private readonly sessions = new Map<string, { active: number; waiters: Array<() => void> }>();

  /** A host that refused, stalled or never greeted is skipped for a while (so a batch pays its timeout once). */
  private markDead(ip: string): void {
    if (this.deadUntil.size > 10_000) this.deadUntil.clear();
    this.deadUntil.set(ip, Date.now() + this.o.deadHostTtlMs);
  }

  /** Waits for one of the host's session slots until `deadline`; false when none freed up in time. */
  private acquire(ip: string, deadline: number): Promise<boolean> {
    let s = this.sessions.get(ip);
    if (!s) {
      s = { active: 0, waiters: [] };
      this.sessions.set(ip, s);
    }
    if (s.active < this.o.maxSessionsPerHost) {
      s.active++;
      return Promise.resolve(true);
    }
    const slot = s;
    return new Promise((resolve) => {
      const waiter = (): void => {
        clearTimeout(timer);
        slot.active++;
        resolve(true);
      };
      const timer = setTimeout(() => {
        const i = slot.waiters.indexOf(waiter);
        if (i >= 0) slot.waiters.splice(i, 1);
        resolve(false);
      }, Math.max(1, deadline - Date.now()));
      slot.waiters.push(waiter);
    });
  }

  private release(ip: string): void {
    const s = this.sessions.get(ip);
    if (!s) return;
    s.active--;
    const next = s.waiters.shift();
    if (next) next();
    else if (s.active === 0) this.sessions.delete(ip);
  }

  /** One host; `result` is set when the host gave a definitive RCPT answer. */
  private async probeHost(
    ip: string,
    hostName: string,
    address: string,
    asciiDomain: string,
    deadline: number,
  ): Promise<{ greeted: boolean; result?: SmtpProbeResult }> {
    const step = (): number => Math.max(1, Math.min(this.o.commandTimeoutMs, deadline - Date.now()));
    let session: SmtpSession | null = null;
    let greeted = false;
    try {
      const socket = await connect(ip, this.o.port, Math.min(this.o.connectTimeoutMs, deadline - Date.now()));
      session = new SmtpSession(socket);
      const greeting = await session.read(step());
      if (greeting.code !== 220) return { greeted: false };
      greeted = true;
      let ehlo = await session.command(`EHLO ${this.o.heloName}`, step());
      let extensions = ehlo.code === 250 ? ehlo.lines.slice(1).map((l) => l.split(' ')[0]!.toUpperCase()) : [];
      if (ehlo.code !== 250) {
        ehlo = await session.command(`HELO ${this.o.heloName}`, step());
        if (ehlo.code !== 250) return { greeted };
      }
      if (this.o.startTls && extensions.includes('STARTTLS')) {
        const r = await session.command('STARTTLS', step());
        if (r.code === 220) {
          session.detach();
          const secure = await upgrade(session.socket as net.Socket, hostName, step());
          session.attach(secure);
          ehlo = await session.command(`EHLO ${this.o.heloName}`, step());
          if (ehlo.code !== 250) return { greeted };
          extensions = ehlo.lines.slice(1).map((l) => l.split(' ')[0]!.toUpperCase());
        }
      }
      const utf8 = /[^\x00-\x7f]/.test(address);
      if (utf8 && !extensions.includes('SMTPUTF8')) return { greeted };
      const from = await session.command(`MAIL FROM:<${this.o.mailFrom}>${utf8 ? ' SMTPUTF8' : ''}`, step());
      if (from.code !== 250) return { greeted };
      const rcpt = await session.command(`RCPT TO:<${address}>`, step());
      const verdict = classifyRcpt(rcpt);
      const smtp: SmtpFlags = { ...emptyFlags(), host_exists: true };
      switch (verdict) {
        case 'accepted': {
          smtp.deliverable = true;
          const probe = await session.command(`RCPT TO:<${this.o.randomLocal()}@${asciiDomain}>`, step()).catch(() => null);
          smtp.catch_all = probe !== null && (probe.code === 250 || probe.code === 251);
          return { greeted, result: { smtp, reachability: smtp.catch_all ? 'unknown' : 'yes' } };
        }
        case 'full':
          smtp.full_inbox = true;
          return { greeted, result: { smtp, reachability: 'unknown' } };
        case 'disabled':
          smtp.disabled = true;
          return { greeted, result: { smtp, reachability: 'no' } };
        case 'no_mailbox':
          return { greeted, result: { smtp, reachability: 'no' } };
        case 'unknown':
          // 4xx (greylisting) or a policy refusal: another exchanger would answer the same way.
          return { greeted, result: { smtp, reachability: 'unknown' } };
        default: {
          const never: never = verdict;
          throw new Error(String(never));
        }
      }
    } catch {
      return { greeted };
    } finally {
      if (session) {
        const s = session;
        // Polite close without waiting: RSET then QUIT, then drop the socket.
        try {
          s.socket.write('RSET\r\nQUIT\r\n');
        } catch {
          /* socket already gone */
        }
        setTimeout(() => s.destroy(), 50).unref();
      }
    }
  }
}

function connect(ip: string, port: number, timeoutMs: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: ip, port });
    const t = setTimeout(() => {
      socket.destroy();
      reject(new ProbeAbort('timeout'));
    }, Math.max(1, timeoutMs));
    socket.once('connect', () => {
      clearTimeout(t);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', () => {
      clearTimeout(t);
      socket.destroy();
      reject(new ProbeAbort('connect'));
    });
  });
}

function upgrade(socket: net.Socket, servername: string, timeoutMs: number): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const secure = tls.connect({ socket, servername: net.isIP(servername) ? undefined : servername, rejectUnauthorized: false });
    const t = setTimeout(() => {
      secure.destroy();
      reject(new ProbeAbort('timeout'));
    }, timeoutMs);
    secure.once('secureConnect', () => {
      clearTimeout(t);
      secure.removeAllListeners('error');
      resolve(secure);
    });
    secure.once('error', () => {
      clearTimeout(t);
      secure.destroy();
      reject(new ProbeAbort('closed'));
    });
  });
}

function withTimeout<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => resolve(fallback), Math.max(1, ms));
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}

/** True for globally routable unicast addresses (not loopback, private, link-local, reserved...; {@link addressRange}). */
export function isPublicAddress(ip: string): boolean {
  return addressRange(ip) === 'unicast';
}
