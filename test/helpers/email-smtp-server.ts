/**
 * A real SMTP server on loopback (the `smtp-server` package, STARTTLS offered with its built-in test
 * certificate) whose RCPT TO answers depend on the recipient's local part, for the SMTP probe's tests:
 * `ok*` 250, `unknown*` 550 5.1.1, `full*` 552 5.2.2, `disabled*` 550 5.2.1, `grey*` 451 4.7.1,
 * `blocked*` 550 5.7.1 (policy), `stallrcpt*` never answers; a domain starting with `catchall` accepts any
 * recipient; any other local part gets 550 5.1.1. Records every command so tests can check DATA never came.
 */
import net from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface TestSmtpServer {
  port: number;
  /** `MAIL FROM`/`RCPT TO` addresses and `DATA` markers, in order. */
  log: string[];
  /** EHLO/HELO names seen. */
  helo: string[];
  /** Sessions that upgraded with STARTTLS. */
  tlsSessions: number;
  /** Most SMTP sessions open at once. */
  peakSessions: number;
  close(): Promise<void>;
}

function coded(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

export async function startTestSmtpServer(options: { host?: string; startTls?: boolean } = {}): Promise<TestSmtpServer> {
  const log: string[] = [];
  const helo: string[] = [];
  const state = { tlsSessions: 0, open: 0, peak: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: options.startTls === false ? ['AUTH', 'STARTTLS'] : ['AUTH'],
    logger: false,
    banner: 'test mx',
    onConnect(_session, cb) {
      state.open++;
      state.peak = Math.max(state.peak, state.open);
      cb();
    },
    onClose() {
      state.open--;
    },
    onSecure(_socket, _session, cb) {
      state.tlsSessions++;
      cb();
    },
    onMailFrom(address, session, cb) {
      helo.push(session.hostNameAppearsAs);
      log.push(`MAIL ${address.address}`);
      cb();
    },
    onRcptTo(address, _session, cb) {
      log.push(`RCPT ${address.address}`);
      const [local = '', domain = ''] = address.address.toLowerCase().split('@');
      if (domain.startsWith('catchall')) return cb();
      if (local.startsWith('ok')) return cb();
      if (local.startsWith('full')) return cb(coded(552, '5.2.2 Mailbox full'));
      if (local.startsWith('disabled')) return cb(coded(550, '5.2.1 Mailbox disabled, not accepting messages'));
      if (local.startsWith('grey')) return cb(coded(451, '4.7.1 Greylisted, please try again later'));
      if (local.startsWith('blocked')) return cb(coded(550, '5.7.1 Client host rejected: blocked by policy'));
      if (local.startsWith('stallrcpt')) return; // never answer
      return cb(coded(550, '5.1.1 User unknown'));
    },
    onData(stream, _session, cb) {
      log.push('DATA');
      stream.resume();
      stream.on('end', () => cb());
    },
  });
  server.on('error', () => {});
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  const port = ((server as unknown as { server: net.Server }).server.address() as net.AddressInfo).port;
  return {
    port,
    log,
    helo,
    get tlsSessions() {
      return state.tlsSessions;
    },
    get peakSessions() {
      return state.peak;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // smtp-server waits for open sessions (the stalled ones) before its callback: don't wait for them.
        setTimeout(resolve, 200).unref();
      }),
  };
}

/** A TCP server that accepts connections and never says anything (an SMTP host that stalls). */
export async function startSilentServer(): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let count = 0;
  const srv = net.createServer((s) => {
    count++;
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (srv.address() as net.AddressInfo).port,
    connections: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        srv.close(() => resolve());
      }),
  };
}
