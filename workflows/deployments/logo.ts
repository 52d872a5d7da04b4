import { createHash } from 'node:crypto';
import sharp, { type Metadata } from 'sharp';
import { request } from 'undici';
import { StepFailure } from '../../domain/deployments/errors.ts';
import { isIpLiteral } from '../../domain/webhooks/ssrf.ts';
import { createGuardedAgent } from '../webhook-delivery/sender.ts';

/** Largest logo accepted, bytes (issue 15: "at most 1 MB"). */
export const LOGO_MAX_BYTES = 1024 * 1024;
/** Largest logo side, pixels (issue 15: "at most 1024 px"). */
export const LOGO_MAX_SIDE = 1024;

/** A fetched, checked logo, re-encoded as PNG. */
export interface FetchedLogo {
  /** PNG bytes (re-encoded by sharp: metadata and anything trailing the image are dropped). */
  png: Buffer;
  /** Type detected from the fetched bytes: `image/png`, `image/jpeg`, `image/webp` or `image/gif`. */
  sourceType: string;
  sourceBytes: number;
  width: number;
  height: number;
  /** SHA-256 (hex) of `png`. */
  sha256: string;
}

export interface LogoFetcherOptions {
  /** Time limit of one fetch (connect to end of body), ms. Default 10,000. */
  timeoutMs?: number;
  /**
   * CIDRs exempt from the SSRF guard. NOT a configuration setting: production fetches only public
   * addresses. Tests pass `127.0.0.0/8` through `PlatformOverrides.capabilityTestOptions`.
   */
  allowCidrs?: string;
  /** PEM of extra trusted CAs (tests: the loopback server's self-signed certificate). */
  caCertsPem?: string;
}

export interface LogoFetcher {
  /**
   * GETs `url` once and checks it. Redirects are not followed (a 3xx fails like any non-2xx answer).
   * @throws StepFailure `logo_unreachable` (DNS, connection, TLS, timeout, non-2xx, refused address),
   *   `logo_too_large` (> 1 MB), `logo_unsupported_type` (not PNG/JPEG/WebP/GIF by content; SVG),
   *   `logo_too_big` (a side > 1024 px).
   */
  fetch(url: string): Promise<FetchedLogo>;
  /** Closes the connections, aborting fetches in flight (they fail; the caller decides what that means). */
  close(): Promise<void>;
}

/**
 * The image type of `bytes` by its signature (magic numbers), never by the `Content-Type` header or the
 * URL: PNG (`89 50 4E 47 0D 0A 1A 0A`), JPEG (`FF D8 FF`), GIF (`GIF87a`/`GIF89a`), WebP (`RIFF....WEBP`);
 * `image/svg+xml` for XML/SVG text; null otherwise.
 */
export function sniffImageType(bytes: Uint8Array): string | null {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 6 && /^GIF8[79]a$/.test(b.subarray(0, 6).toString('latin1'))) return 'image/gif';
  if (b.length >= 12 && b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  const head = b.subarray(0, 1024).toString('utf8').replace(/^\uFEFF/, '').trimStart().toLowerCase();
  if (head.startsWith('<') && (head.includes('<svg') || head.startsWith('<?xml'))) return 'image/svg+xml';
  return null;
}

/**
 * Checks fetched logo bytes and re-encodes them as PNG.
 * @throws StepFailure as {@link LogoFetcher.fetch}.
 */
export async function checkLogo(bytes: Buffer): Promise<FetchedLogo> {
  if (bytes.length > LOGO_MAX_BYTES) throw new StepFailure('logo_too_large', `the logo is ${bytes.length} bytes; at most ${LOGO_MAX_BYTES} (1 MB) are accepted`);
  const type = sniffImageType(bytes);
  if (type === 'image/svg+xml') {
    // SVG can carry scripts and external references; Sello refuses it rather than sanitising it.
    throw new StepFailure('logo_unsupported_type', 'SVG logos are refused (they can carry scripts); give a PNG, JPEG, WebP or GIF');
  }
  if (!type) throw new StepFailure('logo_unsupported_type', 'the logo is not a PNG, JPEG, WebP or GIF image (checked by content)');
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: LOGO_MAX_SIDE * LOGO_MAX_SIDE * 4 }).metadata();
  } catch {
    throw new StepFailure('logo_unsupported_type', `the logo looks like ${type} but cannot be decoded`);
  }
  const width = meta.width ?? 0;
  const height = meta.pageHeight ?? meta.height ?? 0;
  if (width > LOGO_MAX_SIDE || height > LOGO_MAX_SIDE) {
    throw new StepFailure('logo_too_big', `the logo is ${width}x${height} px; at most ${LOGO_MAX_SIDE} px per side are accepted`);
  }
  if (width < 1 || height < 1) throw new StepFailure('logo_unsupported_type', 'the logo has no pixels');
  let png: Buffer;
  try {
    // Re-encoding keeps only pixels: no metadata, no trailing payload (polyglot files), first frame of a GIF.
    png = await sharp(bytes, { limitInputPixels: LOGO_MAX_SIDE * LOGO_MAX_SIDE * 4 }).png({ compressionLevel: 9 }).toBuffer();
  } catch {
    throw new StepFailure('logo_unsupported_type', `the logo looks like ${type} but cannot be decoded`);
  }
  return { png, sourceType: type, sourceBytes: bytes.length, width, height, sha256: createHash('sha256').update(png).digest('hex') };
}

/**
 * The logo fetcher, on the webhook sender's SSRF guard (`createGuardedAgent`: public unicast addresses
 * only, checked inside the socket's DNS lookup; TLS verified), with a 1 MB body cap enforced while
 * streaming and one time limit for the whole fetch.
 */
export function createLogoFetcher(options: LogoFetcherOptions = {}): LogoFetcher {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const { agent, policy } = createGuardedAgent({ allowCidrs: options.allowCidrs, caCertsPem: options.caCertsPem, timeoutMs, connectionsPerOrigin: 2 });
  const unreachable = (why: string) => new StepFailure('logo_unreachable', `the logo could not be fetched: ${why}`);
  return {
    async fetch(url) {
      let u: URL;
      try {
        u = new URL(url);
      } catch {
        throw unreachable('not a URL');
      }
      if (u.protocol !== 'https:') throw unreachable('not an https URL');
      const host = u.hostname.replace(/^\[|\]$/g, '');
      if (isIpLiteral(host)) {
        const range = policy.check(host);
        if (range !== null) throw unreachable(`address ${host} is not allowed (${range})`);
      }
      let res: Awaited<ReturnType<typeof request>>;
      try {
        res = await request(u, { method: 'GET', headers: { accept: 'image/png,image/jpeg,image/webp,image/gif' }, dispatcher: agent, signal: AbortSignal.timeout(timeoutMs) });
      } catch (err) {
        throw unreachable(describe(err, timeoutMs));
      }
      if (res.statusCode < 200 || res.statusCode >= 300) {
        discard(res.body);
        throw unreachable(res.statusCode >= 300 && res.statusCode < 400 ? `redirect ${res.statusCode} not followed` : `the server answered HTTP ${res.statusCode}`);
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > LOGO_MAX_BYTES) {
        discard(res.body);
        throw new StepFailure('logo_too_large', `the logo is ${declared} bytes; at most ${LOGO_MAX_BYTES} (1 MB) are accepted`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      try {
        for await (const chunk of res.body) {
          size += (chunk as Buffer).length;
          if (size > LOGO_MAX_BYTES) {
            discard(res.body);
            throw new StepFailure('logo_too_large', `the logo is larger than ${LOGO_MAX_BYTES} bytes (1 MB)`);
          }
          chunks.push(chunk as Buffer);
        }
      } catch (err) {
        if (err instanceof StepFailure) throw err;
        throw unreachable(describe(err, timeoutMs));
      }
      return checkLogo(Buffer.concat(chunks));
    },
    async close() {
      await agent.destroy();
    },
  };
}

/** Drops an undici body without reading it (an abort error on it is expected, not unhandled). */
function discard(body: { on(event: 'error', fn: () => void): unknown; destroy(): unknown }): void {
  body.on('error', () => undefined);
  body.destroy();
}

function describe(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || code?.startsWith('UND_ERR_') && code.includes('TIMEOUT')) return `no complete answer within ${timeoutMs} ms`;
  if (code === 'EADDRNOTALLOWED') return e.message ?? e.cause?.message ?? 'address not allowed';
  if (code && /CERT|SELF_SIGNED|TLS/.test(code)) return `invalid TLS certificate (${code})`;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND') return 'host does not resolve';
  return `connection error${code ? ` (${code})` : ''}`;
}
