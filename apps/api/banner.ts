/**
 * What `npm start` prints once it listens: the addresses the server really bound (Fastify's
 * `addresses()`), not the configured HOST, so a wildcard bind is said as such.
 */

/** One bound socket, as `server.address()` / Fastify's `addresses()` give it. */
export interface BoundAddress {
  address: string;
  family: string | number;
  port: number;
}

const WILDCARDS = new Set(['0.0.0.0', '::']);

/** `http://127.0.0.1:3000`, `http://[::1]:3000`. */
export function urlOf(a: BoundAddress): string {
  const v6 = a.family === 'IPv6' || a.family === 6 || a.address.includes(':');
  return `http://${v6 ? `[${a.address}]` : a.address}:${a.port}`;
}

/**
 * The banner's lines.
 * @param bound every address the server listens on (at least one)
 * @param first the first start's tenant and key, shown once
 */
export function bannerLines(bound: readonly BoundAddress[], dataDir: string, first: { tenantId: string; key: string } | null): string[] {
  const wildcard = bound.some((a) => WILDCARDS.has(a.address));
  // A wildcard bind is reached locally through localhost; otherwise through the first bound address.
  const local = wildcard ? `http://localhost:${bound[0]!.port}` : urlOf(bound[0]!);
  const lines = [
    ``,
    `Sello is listening on ${bound.map(urlOf).join(' and ')}${wildcard ? ' (every network interface: reachable from other machines)' : ''}`,
    `  API reference: ${local}/docs  (OpenAPI: ${local}/openapi.json)`,
    `  Data directory: ${dataDir}`,
  ];
  if (!wildcard) lines.push(`  Only this machine can connect; set HOST=0.0.0.0 (or an interface's address) to serve others.`);
  if (first) {
    lines.push(
      ``,
      `  First start: created tenant ${first.tenantId} (Free plan) and a test API key (read,write).`,
      `  It is shown only this once; keep it:`,
      ``,
      `    ${first.key}`,
      ``,
      `  Try: curl -H "Authorization: Bearer ${first.key}" ${local}/v1/credits/balance`,
    );
  } else {
    lines.push(`  Get an API key: npm run cli -- tenant create --name NAME --plan free, then npm run cli -- key create --tenant ID --permissions read,write`);
  }
  return lines;
}
