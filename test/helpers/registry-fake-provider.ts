/**
 * A real HTTP server behaving like a certified registry provider (the protocol of
 * `infra/registry-provider/http`), backed by the sandbox's fixture registry so both adapters answer
 * the same data. Modes simulate the provider's failures; tests switch them at run time.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SandboxRegistryProvider } from '../../infra/registry-provider/sandbox/sandbox-provider.ts';
import { RegistryUnavailableError } from '../../infra/ports/registry-provider.ts';

export type FakeProviderMode =
  | 'ok'
  /** Answers after `delayMs`. */
  | 'slow'
  /** Sends headers, then stalls the body for `delayMs`. */
  | 'slow-body'
  | 'http500'
  | 'http502'
  | 'http503'
  | 'http429'
  /** 200 with a body that is not JSON. */
  | 'garbage'
  /** 200 JSON that does not follow the protocol. */
  | 'wrong-shape'
  | 'maintenance'
  /** Destroys the connection without answering. */
  | 'reset'
  /** 200 with a body larger than any sane answer. */
  | 'huge';

export interface FakeProvider {
  url: string;
  mode: FakeProviderMode;
  delayMs: number;
  /** Fail this many next requests with the mode, then answer normally ('ok'); -1 = always. */
  failTimes: number;
  /** Requests received (all paths). */
  requests: Array<{ path: string; headers: IncomingMessage['headers']; body: unknown; at: number }>;
  /** Token the server requires (`Bearer`), or null for none. */
  requiredAuth: string | null;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startFakeProvider(options: { requiredAuth?: string | null } = {}): Promise<FakeProvider> {
  const registry = new SandboxRegistryProvider();
  const sockets = new Set<import('node:net').Socket>();
  const state: FakeProvider = {
    url: '',
    mode: 'ok',
    delayMs: 0,
    failTimes: -1,
    requests: [],
    requiredAuth: options.requiredAuth === undefined ? 'test-provider-key' : options.requiredAuth,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: unknown = null;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      body = null;
    }
    state.requests.push({ path: req.url ?? '', headers: req.headers, body, at: Date.now() });
    if (state.requiredAuth && req.headers.authorization !== `Bearer ${state.requiredAuth}`) return send(res, 401, { message: 'bad credentials' });

    let mode = state.mode;
    if (mode !== 'ok' && state.failTimes >= 0) {
      if (state.failTimes === 0) mode = 'ok';
      else state.failTimes--;
    }
    const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
    switch (mode) {
      case 'slow':
        await wait(state.delayMs);
        break;
      case 'slow-body': {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"status":');
        await wait(state.delayMs);
        if (!res.destroyed) res.end('"NOT_FOUND"}');
        return;
      }
      case 'http500':
        return send(res, 500, { message: 'internal error' });
      case 'http502':
        return send(res, 502, { message: 'bad gateway' });
      case 'http503':
        return send(res, 503, { message: 'unavailable' });
      case 'http429':
        return send(res, 429, { message: 'slow down' });
      case 'garbage':
        res.writeHead(200, { 'content-type': 'text/html' });
        return void res.end('<html>gateway page</html>');
      case 'wrong-shape':
        return send(res, 200, { status: 'FOUND', data: { curp: 12 } });
      case 'maintenance':
        return send(res, 503, { status: 'MAINTENANCE', message: 'scheduled maintenance' });
      case 'reset':
        req.socket.destroy();
        return;
      case 'huge':
        return send(res, 200, { status: 'FOUND', data: { padding: 'x'.repeat(2 * 1024 * 1024) } });
      default:
        break;
    }
    try {
      if (req.url === '/v1/renapo/curp') {
        const r = await registry.getCurp(body as never);
        return r.found ? send(res, 200, { status: 'FOUND', data: r.record }) : send(res, 404, { status: 'NOT_FOUND', message: r.message });
      }
      if (req.url === '/v1/ine/voter-list') {
        const r = await registry.validateVoter(body as never);
        if (!r.valid) return send(res, 200, { status: 'NOT_VALID', message: r.message });
        const { valid: _v, ...data } = r;
        return send(res, 200, { status: 'VALID', data });
      }
      return send(res, 404, { message: 'no such path' });
    } catch (e) {
      if (e instanceof RegistryUnavailableError) return send(res, 503, { status: 'MAINTENANCE', message: e.message });
      return send(res, 500, { message: 'fake provider error' });
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return state;
}
