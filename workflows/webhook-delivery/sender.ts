import dns from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { readFileSync } from 'node:fs';
import tls from 'node:tls';
import { Agent, request } from 'undici';
import { DELIVERY_TIMEOUT_MS, RESPONSE_BODY_LIMIT } from '../../domain/webhooks/delivery.ts';
import { checkUrlSyntax } from '../../domain/webhooks/endpoint.ts';
import { WebhookError } from '../../domain/webhooks/errors.ts';
import { createAddressPolicy, isIpLiteral, parseAllowCidrs, type AddressPolicy } from '../../domain/webhooks/ssrf.ts';

/** Result of one HTTP attempt (see `AttemptOutcome` in `domain/webhooks/delivery.ts`). */
export interface SendResult {
  outcome: 'success' | 'failed' | 'gone';
  /** HTTP status, or null when no answer came (timeout, connection or TLS error, refused address). */
  responseStatus: number | null;
  /** Milliseconds from the start of the attempt to the end of the answer or the failure (wall clock). */
  responseTimeMs: number;
  errorMessage: string | null;
  /** The first {@link RESPONSE_BODY_LIMIT} bytes of the answer as UTF-8 ('' without an answer). */
  responseBody: string;
  responseBodyTruncated: boolean;
}

export interface WebhookSenderOptions {
  /** `WEBHOOK_ALLOW_CIDRS`: comma-separated CIDRs exempt from the SSRF guard. */
  allowCidrs?: string;
  /** `WEBHOOK_CA_CERTS`: path of a PEM file with extra trusted CA certificates (added to Node's roots). */
  caCertsPath?: string;
  /** PEM text of extra trusted CAs (alternative to `caCertsPath`). */
  caCertsPem?: string;
  /** Attempt timeout in ms, connect to end of answer. Default 10,000 (spec Limits). */
  timeoutMs?: number;
  /** Kept sockets per receiver origin. Default 16. */
  connectionsPerOrigin?: number;
  /** Time limit of the creation-time DNS check (ms). Default 5,000. */
  dnsTimeoutMs?: number;
}

export interface WebhookSender {
  /**
   * Creation-time SSRF and syntax check of a webhook URL: raises `WebhookError` `invalid_url`,
   * `url_unresolvable` (the name does not exist) or `url_not_allowed` (some address is not public and not
   * allowed). A transient DNS failure is accepted: delivery re-checks anyway.
   */
  checkUrl(url: string): Promise<void>;
  /** POSTs `body` to `url` once. Never raises: every failure is a `failed` result with a message. */
  send(url: string, headers: Record<string, string>, body: string): Promise<SendResult>;
  close(): Promise<void>;
}

class AddressNotAllowedError extends Error {
  readonly code = 'EADDRNOTALLOWED';
}

/**
 * An undici Agent whose every connection goes through the SSRF guard: the address policy (public
 * unicast only, plus `allowCidrs`) runs inside the socket's DNS lookup, so the address checked is the
 * address connected to (no DNS-rebinding window). TLS is verified against Node's roots plus `caCertsPem`.
 * Shared by the webhook sender and other outbound fetches of user-given URLs (deployment logos).
 * IP-literal hosts bypass the lookup: callers check them with `policy.check` first.
 */
export function createGuardedAgent(options: { allowCidrs?: string; caCertsPem?: string; timeoutMs: number; connectionsPerOrigin?: number }): { agent: Agent; policy: AddressPolicy } {
  const policy: AddressPolicy = createAddressPolicy(parseAllowCidrs(options.allowCidrs));
  const timeoutMs = options.timeoutMs;
  const extraCa = options.caCertsPem ?? '';
  // One secure context for every connection: passing `ca` per connection would rebuild the trust store
  // (Node's ~150 roots) on each TLS handshake.
  const secureContext = extraCa.trim() ? tls.createSecureContext({ ca: [...tls.rootCertificates, extraCa] }) : undefined;

  // Re-resolve at delivery: DNS can change after creation (SSRF). Checked on every new connection.
  const guardedLookup = (hostname: string, opts: dns.LookupOptions, cb: (...args: any[]) => void): void => {
    dns.lookup(hostname, { ...opts, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return cb(err);
      const bad = addresses.find((a) => policy.check(a.address) !== null);
      if (bad) {
        return cb(new AddressNotAllowedError(`address ${bad.address} of ${hostname} is not allowed (${policy.check(bad.address)})`));
      }
      if (addresses.length === 0) return cb(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }));
      if (opts.all) return cb(null, addresses);
      const first = addresses[0]!;
      return cb(null, first.address, first.family);
    });
  };

  const agent = new Agent({
    connect: { ...(secureContext ? { secureContext } : {}), lookup: guardedLookup as never, timeout: timeoutMs, rejectUnauthorized: true },
    connections: options.connectionsPerOrigin ?? 16,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    keepAliveTimeout: 4_000,
  });

  return { agent, policy };
}

/**
 * The HTTP side of deliveries, on undici:
 * - redirects are never followed (undici's `request` does not follow them; a 3xx is a failed attempt);
 * - TLS certificates are verified against Node's roots plus `WEBHOOK_CA_CERTS`;
 * - the SSRF guard runs inside the socket's DNS lookup, so the address checked is the address connected
 *   to (no window for DNS rebinding between check and connect); IP-literal hosts are checked up front;
 * - one time limit covers connect, TLS, headers and body.
 */
export function createWebhookSender(options: WebhookSenderOptions = {}): WebhookSender {
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const dnsTimeoutMs = options.dnsTimeoutMs ?? 5_000;
  let extraCa = options.caCertsPem ?? '';
  if (options.caCertsPath) extraCa += '\n' + readFileSync(options.caCertsPath, 'utf8');
  const { agent, policy } = createGuardedAgent({ allowCidrs: options.allowCidrs, caCertsPem: extraCa, timeoutMs, connectionsPerOrigin: options.connectionsPerOrigin });

  async function resolveAll(host: string): Promise<LookupAddress[]> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        dns.promises.lookup(host, { all: true }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(Object.assign(new Error('DNS timeout'), { code: 'ETIMEOUT' })), dnsTimeoutMs);
        }),
      ]);
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  return {
    async checkUrl(url) {
      const u = checkUrlSyntax(url);
      const host = u.hostname.replace(/^\[|\]$/g, '');
      let addresses: string[];
      if (isIpLiteral(host)) addresses = [host];
      else {
        try {
          addresses = (await resolveAll(host)).map((a) => a.address);
        } catch (err) {
          const code = (err as { code?: string }).code;
          if (code === 'ENOTFOUND' || code === 'ENODATA') {
            throw new WebhookError('url_unresolvable', `host ${host} does not resolve`, { host });
          }
          return; // transient (EAI_AGAIN, timeout): accepted; the delivery-time guard still applies
        }
      }
      for (const a of addresses) {
        const range = policy.check(a);
        if (range !== null) {
          throw new WebhookError('url_not_allowed', `url resolves to a ${range} address, which webhooks may not target`, {
            host,
            range,
          });
        }
      }
    },

    async send(url, headers, body) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const fail = (msg: string, status: number | null = null, responseBody = '', truncated = false): SendResult => ({
        outcome: 'failed',
        responseStatus: status,
        responseTimeMs: elapsed(),
        errorMessage: msg,
        responseBody,
        responseBodyTruncated: truncated,
      });
      let u: URL;
      try {
        u = checkUrlSyntax(url);
      } catch (err) {
        return fail((err as Error).message);
      }
      const host = u.hostname.replace(/^\[|\]$/g, '');
      if (isIpLiteral(host)) {
        const range = policy.check(host);
        if (range !== null) return fail(`address ${host} is not allowed (${range})`);
      }
      const signal = AbortSignal.timeout(timeoutMs);
      try {
        const res = await request(u, { method: 'POST', headers, body, dispatcher: agent, signal });
        const { text, truncated } = await readLimited(res.body, RESPONSE_BODY_LIMIT);
        const status = res.statusCode;
        if (status >= 200 && status < 300) {
          return { outcome: 'success', responseStatus: status, responseTimeMs: elapsed(), errorMessage: null, responseBody: text, responseBodyTruncated: truncated };
        }
        if (status === 410) {
          return { outcome: 'gone', responseStatus: status, responseTimeMs: elapsed(), errorMessage: 'receiver answered 410 Gone: endpoint disabled', responseBody: text, responseBodyTruncated: truncated };
        }
        const msg = status >= 300 && status < 400 ? `redirect ${status} not followed` : `receiver answered HTTP ${status}`;
        return fail(msg, status, text, truncated);
      } catch (err) {
        return fail(describeError(err, timeoutMs));
      }
    },

    async close() {
      await agent.close();
    },
  };
}

/** Reads at most `limit` bytes of a body, then discards the rest (bounded memory for hostile receivers). */
async function readLimited(body: AsyncIterable<Buffer> & { destroy(): void }, limit: number): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of body) {
    if (size + chunk.length > limit) {
      chunks.push(chunk.subarray(0, limit - size));
      size = limit;
      truncated = true;
      body.destroy();
      break;
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  // Cut at a UTF-8 boundary: drop a trailing partial character.
  let buf = Buffer.concat(chunks);
  if (truncated) {
    let end = buf.length;
    let i = end - 1;
    while (i >= 0 && i >= end - 4 && (buf[i]! & 0xc0) === 0x80) i--;
    if (i >= 0) {
      const lead = buf[i]!;
      const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
      if (end - i < need) end = i;
    }
    buf = buf.subarray(0, end);
  }
  return { text: buf.toString('utf8'), truncated };
}

/** A short, log-safe message for a failed attempt (no stack, no secrets). */
function describeError(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return `timeout: no complete answer within ${timeoutMs} ms`;
  }
  if (code === 'EADDRNOTALLOWED') return e.message ?? e.cause?.message ?? 'address not allowed';
  const tlsCodes = ['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_NOT_YET_VALID'];
  if (code && tlsCodes.includes(code)) return `invalid TLS certificate (${code})`;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND') return 'host does not resolve';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset by receiver';
  return `connection error${code ? ` (${code})` : ''}`;
}
