import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generate } from 'selfsigned';

/** One request as the receiver saw it: the raw body bytes and the lower-cased headers. */
export interface ReceivedRequest {
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  /** performance.now() when the body was complete. */
  at: number;
}

/** What the receiver answers on a path: a status, optional body, delay (ms) and extra headers. */
export type Behaviour = { status: number; body?: string; delayMs?: number; headers?: Record<string, string> };

export interface WebhookReceiver {
  /** `https://localhost:<port>` */
  origin: string;
  port: number;
  requests: ReceivedRequest[];
  /** Sets how a path answers (default 200 `ok`). A function gets the 1-based count of requests on the path. */
  on(pathName: string, b: Behaviour | ((n: number) => Behaviour)): void;
  onRequest?: (r: ReceivedRequest) => void;
  close(): Promise<void>;
}

export interface TestCertificate {
  key: string;
  cert: string;
  /** A PEM file holding `cert` (for `WEBHOOK_CA_CERTS`). */
  certFile: string;
  /** Removes the PEM file's temporary folder. */
  dispose(): void;
}

/** A self-signed certificate for `localhost` (+ SAN IP 127.0.0.1), generated at test time. */
export async function makeCertificate(commonName = 'localhost'): Promise<TestCertificate> {
  const pems = await generate([{ name: 'commonName', value: commonName }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: new Date(Date.now() - 60_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: commonName }, { type: 7, ip: '127.0.0.1' }] },
    ],
  } as never);
  const dir = mkdtempSync(path.join(tmpdir(), 'sello-wh-cert-'));
  const certFile = path.join(dir, 'ca.pem');
  writeFileSync(certFile, pems.cert);
  return { key: pems.private, cert: pems.cert, certFile, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** An HTTPS receiver on loopback that records raw bodies and answers per path. */
export async function startReceiver(cert: TestCertificate): Promise<WebhookReceiver> {
  const behaviours = new Map<string, Behaviour | ((n: number) => Behaviour)>();
  const counts = new Map<string, number>();
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<import('node:stream').Duplex>();
  const receiver: WebhookReceiver = {
    origin: '',
    port: 0,
    requests,
    on(p, b) {
      behaviours.set(p, b);
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server = https.createServer({ key: cert.key, cert: cert.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const p = (req.url ?? '/').split('?')[0]!;
      const rec: ReceivedRequest = {
        path: p,
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : (v ?? '')])),
        body: Buffer.concat(chunks),
        at: performance.now(),
      };
      requests.push(rec);
      receiver.onRequest?.(rec);
      const n = (counts.get(p) ?? 0) + 1;
      counts.set(p, n);
      const spec = behaviours.get(p);
      const b: Behaviour = typeof spec === 'function' ? spec(n) : (spec ?? { status: 200, body: 'ok' });
      const answer = () => {
        if (res.destroyed) return;
        res.writeHead(b.status, { 'content-type': 'text/plain', ...(b.headers ?? {}) });
        res.end(b.body ?? '');
      };
      if (b.delayMs) setTimeout(answer, b.delayMs).unref();
      else answer();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.origin = `https://localhost:${receiver.port}`;
  return receiver;
}
