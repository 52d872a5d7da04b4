import https from 'node:https';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import type { TestCertificate } from './webhook-receiver.ts';

/** One answer of the logo server: status, body bytes, content type, or `hang` (never answers). */
export type LogoAnswer = { status: number; body?: Buffer; type?: string } | 'hang';

export interface LogoServer {
  /** `https://localhost:<port>` */
  origin: string;
  /** Requests per path so far. */
  count(path: string): number;
  /** How `path` answers its n-th request (1-based). Default 404. */
  on(path: string, answer: (n: number) => LogoAnswer): void;
  close(): Promise<void>;
}

/** A solid-colour PNG of `w`x`h` px, made with sharp (a real, decodable image). */
export async function makePng(w: number, h: number, rgb: { r: number; g: number; b: number } = { r: 10, g: 124, b: 102 }): Promise<Buffer> {
  return sharp({ create: { width: w, height: h, channels: 4, background: { ...rgb, alpha: 1 } } }).png().toBuffer();
}

/** An HTTPS server on loopback (self-signed certificate) serving logos per path, binary-safe. */
export async function startLogoServer(cert: TestCertificate): Promise<LogoServer> {
  const answers = new Map<string, (n: number) => LogoAnswer>();
  const counts = new Map<string, number>();
  const sockets = new Set<import('node:stream').Duplex>();
  const server = https.createServer({ key: cert.key, cert: cert.cert }, (req, res) => {
    const p = (req.url ?? '/').split('?')[0]!;
    const n = (counts.get(p) ?? 0) + 1;
    counts.set(p, n);
    const a = answers.get(p)?.(n) ?? { status: 404 };
    if (a === 'hang') return;
    res.writeHead(a.status, { 'content-type': a.type ?? 'application/octet-stream' });
    res.end(a.body ?? '');
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `https://localhost:${port}`,
    count: (p) => counts.get(p) ?? 0,
    on: (p, answer) => void answers.set(p, answer),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
