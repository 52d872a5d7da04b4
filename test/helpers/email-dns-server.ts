/**
 * A real DNS server on loopback (the `dns2` package, UDP + TCP) answering from an in-memory zone, for the
 * e-mail verifier's tests and benchmark. Never touches the internet.
 */
import dns2 from 'dns2';
import net from 'node:net';

const Packet: any = dns2.Packet;

export interface ZoneEntry {
  /** MX records as [preference, exchange]; `[[0, '.']]` is a null MX (RFC 7505). */
  mx?: Array<[number, string]>;
  a?: string[];
  aaaa?: string[];
  /** TTL of the records (seconds, default 300). */
  ttl?: number;
  /** Answer every question for this name with this RCODE. */
  rcode?: 'SERVFAIL' | 'REFUSED' | 'NXDOMAIN';
  /** Never answer (the client must time out). */
  stall?: boolean;
  /** Wait this long before answering, ms. */
  delayMs?: number;
}

export interface TestDnsServer {
  /** `127.0.0.1:port`, for the resolver's `servers`. */
  server: string;
  port: number;
  zone: Map<string, ZoneEntry>;
  /** Queries received, as `TYPE name` strings, in order. */
  log: string[];
  /** Queries of one type for one name. */
  count(name: string, type: string): number;
  close(): Promise<void>;
}

const TYPE_NAMES: Record<number, string> = { 1: 'A', 15: 'MX', 28: 'AAAA', 6: 'SOA' };

/** Starts the server on 127.0.0.1 (random port). Names are matched case-insensitively, without a trailing dot. */
export async function startTestDnsServer(zone: Record<string, ZoneEntry>, options: { negativeTtl?: number } = {}): Promise<TestDnsServer> {
  const map = new Map(Object.entries(zone).map(([k, v]) => [k.toLowerCase(), v]));
  const log: string[] = [];
  const negativeTtl = options.negativeTtl ?? 60;
  const server = dns2.createServer({
    udp: true,
    tcp: true,
    handle: (request: any, send: (r: any) => void) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const name = String(question.name).toLowerCase().replace(/\.$/, '');
      const typeName = TYPE_NAMES[question.type] ?? String(question.type);
      log.push(`${typeName} ${name}`);
      const entry = map.get(name);
      const reply = (): void => {
        if (!entry) {
          response.header.rcode = Packet.RCODE.NXDOMAIN;
          response.authorities.push(soa(name, negativeTtl));
          return send(response);
        }
        if (entry.rcode) {
          response.header.rcode = Packet.RCODE[entry.rcode];
          return send(response);
        }
        const ttl = entry.ttl ?? 300;
        if (question.type === Packet.TYPE.MX) {
          for (const [priority, exchange] of entry.mx ?? []) {
            response.answers.push({ name: question.name, type: Packet.TYPE.MX, class: Packet.CLASS.IN, ttl, priority, exchange: exchange === '.' ? '' : exchange });
          }
        } else if (question.type === Packet.TYPE.A) {
          for (const address of entry.a ?? []) response.answers.push({ name: question.name, type: Packet.TYPE.A, class: Packet.CLASS.IN, ttl, address });
        } else if (question.type === Packet.TYPE.AAAA) {
          for (const address of entry.aaaa ?? []) response.answers.push({ name: question.name, type: Packet.TYPE.AAAA, class: Packet.CLASS.IN, ttl, address });
        }
        if (response.answers.length === 0) response.authorities.push(soa(name, negativeTtl));
        send(response);
      };
      if (entry?.stall) return;
      if (entry?.delayMs) setTimeout(reply, entry.delayMs);
      else reply();
    },
  });
  server.on('requestError', () => {});
  server.on('error', () => {});
  // UDP and TCP must share one port (a truncated UDP answer is retried over TCP on the same port):
  // take a free TCP port from the OS, then bind both to it.
  const port = await freePort();
  await server.listen({ udp: { port, address: '127.0.0.1', type: 'udp4' }, tcp: { port, address: '127.0.0.1' } } as any);
  return {
    server: `127.0.0.1:${port}`,
    port,
    zone: map,
    log,
    count: (name, type) => log.filter((l) => l === `${type} ${name.toLowerCase()}`).length,
    close: async () => {
      await server.close();
    },
  };
}

function soa(name: string, minimum: number): any {
  const zone = name.split('.').slice(-2).join('.');
  return {
    name: zone,
    type: Packet.TYPE.SOA,
    class: Packet.CLASS.IN,
    ttl: minimum,
    primary: `ns.${zone}`,
    admin: `hostmaster.${zone}`,
    serial: 1,
    refresh: 3600,
    retry: 600,
    expiration: 86400,
    minimum,
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
