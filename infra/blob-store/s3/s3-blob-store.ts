import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Client } from 'minio';
import { assertBlobKey, type BlobStore } from '../../ports/blob-store.ts';

export interface S3BlobStoreOptions {
  /** e.g. `https://s3.example.com` or `http://127.0.0.1:9000` (scheme, host and port of the S3 endpoint). */
  endpoint: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  /** Default `us-east-1`. */
  region?: string;
  /** Key prefix inside the bucket (several deployments may share one). Default none. */
  prefix?: string;
  /** Path-style addressing (`endpoint/bucket/key`, MinIO and most self-hosted servers). Default true. */
  pathStyle?: boolean;
}

/**
 * Scaled-out blob store (`BLOB_STORE=s3`): any S3-compatible server (MinIO, Ceph RGW, AWS S3) through
 * the `minio` client. Every API and worker process on every machine sees the same blobs; downloads can
 * be handed out as presigned URLs, so bytes need not pass through the API. The bucket is created on
 * first use when missing. Keys follow the port's grammar (checked before any request).
 */
export class S3BlobStore implements BlobStore {
  private readonly client: Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly region: string;
  private ready: Promise<void> | null = null;

  constructor(options: S3BlobStoreOptions) {
    const url = new URL(options.endpoint);
    const useSSL = url.protocol === 'https:';
    this.client = new Client({
      endPoint: url.hostname,
      port: url.port ? Number(url.port) : useSSL ? 443 : 80,
      useSSL,
      accessKey: options.accessKey,
      secretKey: options.secretKey,
      region: options.region ?? 'us-east-1',
      pathStyle: options.pathStyle ?? true,
    });
    this.bucket = options.bucket;
    this.region = options.region ?? 'us-east-1';
    this.prefix = options.prefix ? `${options.prefix.replace(/\/+$/, '')}/` : '';
  }

  private async bucketReady(): Promise<void> {
    this.ready ??= (async () => {
      if (!(await this.client.bucketExists(this.bucket))) {
        try {
          await this.client.makeBucket(this.bucket, this.region);
        } catch (error) {
          // Another process created it first.
          if (!(await this.client.bucketExists(this.bucket))) throw error;
        }
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
    await this.client.putObject(this.bucket, name, body, body.length, { 'Content-Type': options?.contentType ?? 'application/octet-stream' });
  }

  async get(key: string): Promise<Buffer | null> {
    const name = this.object(key);
    await this.bucketReady();
    try {
      const stream = await this.client.getObject(this.bucket, name);
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  /**
   * Streams `source` into one object without holding it in memory: the chunks are spooled to a temporary
   * file first (so the size is known and a failing source uploads nothing), then sent as one PUT, or as a
   * multipart upload above the client's 64 MiB part size. S3 makes an object visible only once complete.
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
      await this.client.putObject(this.bucket, name, createReadStream(spool), bytes, { 'Content-Type': options?.contentType ?? 'application/octet-stream' });
      return { bytes };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** The object's body as a stream and its size (from a HEAD request), or null when absent. */
  async getStream(key: string): Promise<{ stream: NodeJS.ReadableStream & AsyncIterable<Buffer>; bytes: number } | null> {
    const name = this.object(key);
    await this.bucketReady();
    try {
      const stat = await this.client.statObject(this.bucket, name);
      const stream = await this.client.getObject(this.bucket, name);
      return { stream: stream as unknown as NodeJS.ReadableStream & AsyncIterable<Buffer>, bytes: stat.size };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<boolean> {
    const name = this.object(key);
    await this.bucketReady();
    try {
      await this.client.statObject(this.bucket, name);
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
    await this.client.removeObject(this.bucket, name);
    return true;
  }

  async list(prefix: string): Promise<string[]> {
    await this.bucketReady();
    const keys: string[] = [];
    const stream = this.client.listObjectsV2(this.bucket, this.prefix + prefix, true);
    for await (const item of stream as AsyncIterable<{ name?: string }>) {
      if (item.name) keys.push(item.name.slice(this.prefix.length));
    }
    return keys.sort();
  }

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
