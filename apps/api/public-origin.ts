/**
 * The origin of every link the API hands out or e-mails (signing links, `signing_url`, `download_url`,
 * `certificate_url`, preview and export links), chosen from configuration, never taken from the request
 * (issue 31: a forged `Host: attacker.example` put the e-mailed signing links on the attacker's host).
 *
 * 1. `PUBLIC_BASE_URL` when set;
 * 2. else, when the request's `Host` is the host of one of `PUBLIC_ORIGINS` (an operator's allow-list),
 *    that configured origin (scheme and port included: nothing of it comes from the request);
 * 3. else the address the server bound: `http://<HOST>:<port>`, `localhost` for a wildcard bind
 *    (`0.0.0.0`, `::`), the port the listener really holds (so `PORT=0` works).
 */
import type { FastifyRequest } from 'fastify';
import type { AddressInfo } from 'node:net';

/** The configuration this module reads (a slice of `apps/api/config.ts`). */
export interface PublicOriginConfig {
  PUBLIC_BASE_URL?: string | undefined;
  /** Parsed `PUBLIC_ORIGINS`: each allowed origin by its lower-case host (`host[:port]`). */
  PUBLIC_ORIGINS: ReadonlyMap<string, string>;
  HOST: string;
  PORT: number;
}

/**
 * Parses `PUBLIC_ORIGINS`: comma-separated absolute `http(s)://host[:port]` origins (no path, query,
 * user or password), e.g. `https://firma.example.mx,https://kyc.cliente.mx`.
 * @returns each origin (serialised by WHATWG URL, no trailing slash) keyed by its lower-case `host[:port]`.
 * @throws Error naming the bad entry (the server refuses to start).
 */
export function parsePublicOrigins(value: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const raw of (value ?? '').split(',').map((x) => x.trim()).filter(Boolean)) {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw new Error(`PUBLIC_ORIGINS: ${JSON.stringify(raw)} is not an absolute URL`);
    }
    if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.username || u.password || u.pathname !== '/' || u.search || u.hash) {
      throw new Error(`PUBLIC_ORIGINS: ${JSON.stringify(raw)} must be an origin like https://firma.example.mx (http or https, no path, query or credentials)`);
    }
    out.set(u.host.toLowerCase(), u.origin);
  }
  return out;
}

/** The server's own base URL from what it bound (see the module comment, rule 3). */
export function boundOrigin(config: Pick<PublicOriginConfig, 'HOST' | 'PORT'>, address?: AddressInfo | string | null): string {
  const bound = address && typeof address === 'object' ? address : null;
  const host = bound?.address ?? config.HOST;
  const port = bound?.port ?? config.PORT;
  const name = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/** The origin of links in the answer to `request` (see the module comment). */
export function linkOrigin(config: PublicOriginConfig, request: FastifyRequest): string {
  if (config.PUBLIC_BASE_URL) return config.PUBLIC_BASE_URL.replace(/\/+$/, '');
  const allowed = config.PUBLIC_ORIGINS.get((request.host ?? '').toLowerCase());
  if (allowed) return allowed;
  return boundOrigin(config, request.server.server.address());
}
