import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Client } from 'minio';
import { assertBlobKey, InvalidBlobKeyError, type BlobStore } from '../../ports/blob-store.ts';

export interface S3BlobStoreOptions {
  /** e.g. `https://s3.example.com` or `http://127.0.0.1:9000` (scheme, host and port of the S3 endpoint). */
  endpoint: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  /** Default `us-east-1`. */
  region?: string;
  /**
   * Key prefix inside the bucket (several deployments may share one): segments of `[A-Za-z0-9._-]`
   * joined by `/`, like a blob key; leading and trailing slashes are dropped. Default none.
   */
  prefix?: string;
  /** Path-style addressing (`endpoint/bucket/key`, MinIO and most self-hosted servers). Default true. */
  pathStyle?: boolean;
  /**
   * Longest the server may stay silent before a request fails with code `ETIMEDOUT`, ms: until the
   * answer's headers, and while `get` reads a body. Default 30 000.
   */
  timeoutMs?: number;
}

/**
 * A request the S3 server refused or never answered, named for the operator: the endpoint, the bucket,
 * the operation, the server's error code (`SignatureDoesNotMatch`, `InvalidAccessKeyId`,
 * `AccessDenied`, `NoSuchBucket`...) or the network's (`ECONNREFUSED`, `ETIMEDOUT`...), and which
 * setting to check. The original error is its `cause`. Never carries the credentials.
 */
export class S3BlobStoreError extends Error {
  override readonly name = 'S3BlobStoreError';
  constructor(
    message: string,
    /** The S3 error code, or the Node.js network error code. */
    readonly code: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** What the operator should check for the S3 error codes a misconfiguration produces. */
const HINTS: Record<string, string> = {
  SignatureDoesNotMatch: 'the server computed another signature: S3_SECRET_KEY is not the secret of S3_ACCESS_KEY (or a proxy rewrote the request)',
  InvalidAccessKeyId: 'the server does not know S3_ACCESS_KEY',
  AccessDenied: "the credentials are not allowed this operation on the bucket (check the key's policy), or they are wrong",
  RequestTimeTooSkewed: "this machine's clock differs from the server's by more than 15 minutes",
  AuthorizationHeaderMalformed: 'check S3_REGION against the region of the bucket',
  NoSuchBucket: 'the bucket does not exist (deleted after start-up?)',
  ECONNREFUSED: 'nothing listens at S3_ENDPOINT',
  ECONNRESET: 'the server closed the connection (restarting?)',
  ENOTFOUND: "S3_ENDPOINT's host name does not resolve",
  ETIMEDOUT: 'the server did not answer in time',
};

/**
 * Scaled-out blob store (`BLOB_STORE=s3`): any S3-compatible server (MinIO, Ceph RGW, SeaweedFS, Garage,
 * AWS S3) through the `minio` client. Every API and worker process on every machine sees the same
 * blobs; downloads can be handed out as presigned URLs, so bytes need not pass through the API. The
 * bucket is created on first use when missing. Keys follow the port's grammar (checked before any
 * request). Failures of the server or the network are {@link S3BlobStoreError}s; a missing blob is not a
 * failure (null / false).
 */
export class S3BlobStore implements BlobStore {
  private readonly client: Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly region: string;
  private readonly endpoint: string;
  private readonly timeoutMs: number;
  private ready: Promise<void> | null = null;

  /** @throws InvalidBlobKeyError when `prefix` is not a key path (e.g. `a//b`, `../x`). */
  constructor(options: S3BlobStoreOptions) {
    const url = new URL(options.endpoint);
    const useSSL = url.protocol === 'https:';
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.client = new Client({
      endPoint: url.hostname,
      port: url.port ? Number(url.port) : useSSL ? 443 : 80,
      useSSL,
      accessKey: options.accessKey,
      secretKey: options.secretKey,
      region: options.region ?? 'us-east-1',
      pathStyle: options.pathStyle ?? true,
      transport: timedTransport(useSSL ? https : http, this.timeoutMs),
    });
    this.endpoint = url.origin;
    this.bucket = options.bucket;
    this.region = options.region ?? 'us-east-1';
    // S3 servers drop a leading slash from object names but not from a listing's prefix (MinIO listed
    // nothing under `/deploy-a/`), and refuse empty or dot segments only when a request is made.
    const prefix = (options.prefix ?? '').replace(/^\/+|\/+$/g, '');
    if (prefix) {
      try {
        assertBlobKey(prefix);
      } catch {
        throw new InvalidBlobKeyError(`invalid S3 key prefix ${JSON.stringify(options.prefix)}: segments of [A-Za-z0-9._-] joined by /`);
      }
    }
    this.prefix = prefix ? `${prefix}/` : '';
  }

  /** The error to throw for a failed request: names the store, the operation and what to check. */
  private failure(operation: string, error: unknown): S3BlobStoreError {
    if (error instanceof S3BlobStoreError) return error;
    const code = (error as { code?: string }).code ?? 'Unknown';
    const detail = (error as Error).message ?? String(error);
    const hint = HINTS[code];
    return new S3BlobStoreError(`S3 blob store ${this.endpoint}, bucket ${this.bucket}: ${operation} failed: ${code}: ${detail}${hint ? ` (${hint})` : ''}`, code, { cause: error });
  }

  /**
   * Checks once per store that the bucket answers, creating it when missing. A GET listing (at most one
   * key under the prefix) rather than a HEAD: a HEAD's refusal has no body, so wrong credentials and a
   * policy refusal would both read `AccessDenied`; the listing names the cause. It needs only
   * `s3:ListBucket` on the prefix.
   */
  private async bucketReady(): Promise<void> {
    this.ready ??= (async () => {
      const query = `list-type=2&max-keys=1&prefix=${encodeURIComponent(this.prefix)}`;
      try {
        await this.client.makeRequestAsyncOmit({ method: 'GET', bucketName: this.bucket, query }, '', [200], this.region);
        return;
      } catch (error) {
        if ((error as { code?: string }).code !== 'NoSuchBucket') throw this.failure('opening the bucket', error);
      }
      try {
        await this.client.makeBucket(this.bucket, this.region);
      } catch (error) {
        // Another process created it first.
        const code = (error as { code?: string }).code;
        if (code !== 'BucketAlreadyOwnedByYou' && code !== 'BucketAlreadyExists') throw this.failure('creating the bucket', error);
      }
    })().catch((error: unknown) => {
      this.ready = null;
      throw error;
    });
    return this.ready;
  }

  private object(key: string): string {
    assertBlobKey(key);
    return this.prefix + key;
  }

  async put(key: string, data: Uint8Array, options?: { contentType?: string }): Promise<void> {
    const name = this.object(key);
    await this.bucketReady();
    const body = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    try {
      await this.client.putObject(this.bucket, name, body, body.length, { 'Content-Type': options?.contentType ?? 'application/octet-stream' });
    } catch (error) {
      throw this.failure(`put ${name}`, error);
    }
  }

  async get(key: string): Promise<Buffer | null> {
    const name = this.object(key);
    await this.bucketReady();
    try {
      const stream = await this.client.getObject(this.bucket, name);
      // The transport's timeout ends with the headers: a server that stalls mid-body fails here too.
      (stream as http.IncomingMessage).setTimeout?.(this.timeoutMs, () => stream.destroy(Object.assign(new Error(`no data for ${this.timeoutMs} ms`), { code: 'ETIMEDOUT' })));
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    } catch (error) {
      if (isNotFound(error)) return null;
      throw this.failure(`get ${name}`, error);
    }
  }

  /**
   * Streams `source` into one object without holding it in memory: the chunks are spooled to a temporary
   * file first (so the size is known and a failing source uploads nothing), then sent as one PUT, or as a
   * multipart upload above the client's 64 MiB part size. S3 makes an object visible only once complete.
   * An error of `source` is rethrown as it is.
   */
  async putStream(key: string, source: AsyncIterable<Uint8Array | string>, options?: { contentType?: string }): Promise<{ bytes: number }> {
    const name = this.object(key);
    await this.bucketReady();
    const dir = await mkdtemp(join(tmpdir(), 'sello-s3-'));
    const spool = join(dir, 'blob');
    try {
      let bytes = 0;
      const counted = async function* () {
        for await (const chunk of source) {
          const b = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
          bytes += b.length;
          yield b;
        }
      };
      await pipeline(Readable.from(counted()), createWriteStream(spool));
      try {
        await this.client.putObject(this.bucket, name, createReadStream(spool), bytes, { 'Content-Type': options?.contentType ?? 'application/octet-stream' });
      } catch (error) {
        throw this.failure(`put ${name}`, error);
      }
      return { bytes };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * The object's body as a stream and its size, or null when absent. One GET: the size is that answer's
   * `Content-Length`, so it always matches the bytes streamed (a HEAD first could see another version).
   */
  async getStream(key: string): Promise<{ stream: NodeJS.ReadableStream & AsyncIterable<Buffer>; bytes: number } | null> {
    const name = this.object(key);
    await this.bucketReady();
    try {
      const stream = (await this.client.getObject(this.bucket, name)) as http.IncomingMessage;
      return { stream, bytes: Number(stream.headers['content-length']) };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw this.failure(`get ${name}`, error);
    }
  }

  async delete(key: string): Promise<boolean> {
    const name = this.object(key);
    await this.bucketReady();
    try {
      await this.client.statObject(this.bucket, name);
    } catch (error) {
      if (isNotFound(error)) return false;
      throw this.failure(`delete ${name}`, error);
    }
    try {
      await this.client.removeObject(this.bucket, name);
    } catch (error) {
      throw this.failure(`delete ${name}`, error);
    }
    return true;
  }

  async list(prefix: string): Promise<string[]> {
    await this.bucketReady();
    const keys: string[] = [];
    try {
      const stream = this.client.listObjectsV2(this.bucket, this.prefix + prefix, true);
      for await (const item of stream as AsyncIterable<{ name?: string }>) {
        if (item.name) keys.push(item.name.slice(this.prefix.length));
      }
    } catch (error) {
      throw this.failure(`list ${this.prefix + prefix}`, error);
    }
    return keys.sort();
  }

  /**
   * A SigV4 query-signed GET URL on `S3_ENDPOINT`, valid `expiresSeconds` (the server refuses it after,
   * and refuses any change to its path or query). Computed locally: no request is made once the bucket
   * has been checked.
   */
  async presignedGetUrl(key: string, expiresSeconds: number): Promise<string> {
    const name = this.object(key);
    if (!Number.isInteger(expiresSeconds) || expiresSeconds < 1 || expiresSeconds > 7 * 24 * 3600) {
      throw new RangeError('expiresSeconds must be an integer from 1 to 604800 (7 days)');
    }
    await this.bucketReady();
    return this.client.presignedGetObject(this.bucket, name, expiresSeconds);
  }
}

function isNotFound(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === 'NoSuchKey' || code === 'NotFound' || code === 'NoSuchObject';
}

/**
 * The `minio` client's transport with a deadline: the client sets none, so a server that accepts the
 * connection and then stalls (stopped, overloaded, a dead peer behind a balancer) held a request, and the
 * API call or export waiting on it, forever. The socket may stay silent `ms` until the answer's headers;
 * the body is then the reader's (a download streams at its client's pace).
 */
function timedTransport(base: typeof http | typeof https, ms: number): typeof http {
  const request = (options: http.RequestOptions, callback?: (res: http.IncomingMessage) => void): http.ClientRequest => {
    const req = base.request(options, (res) => {
      req.setTimeout(0);
      callback?.(res);
    });
    req.setTimeout(ms, () => req.destroy(Object.assign(new Error(`no answer within ${ms} ms`), { code: 'ETIMEDOUT' })));
    return req;
  };
  return { request } as unknown as typeof http;
}
