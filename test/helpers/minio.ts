import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'minio';
import { freePort, ROOT } from './processes.ts';
import { serverMissing } from './servers.ts';

/** Where the S3 server of the tests is and how to sign for it. */
export interface TestS3 {
  /** e.g. `http://127.0.0.1:9000`. */
  endpoint: string;
  accessKey: string;
  secretKey: string;
  region: string;
}

/**
 * The S3 server tests use: `S3_ENDPOINT`, `S3_ACCESS_KEY`, `S3_SECRET_KEY`, `S3_REGION` (as
 * `npm run -s engines -- env --connections` prints them and `.ci/run` exports them), else the MinIO that
 * `npm run engines -- up` starts on its default port with its credentials.
 */
export function testS3(): TestS3 {
  return {
    endpoint: process.env.S3_ENDPOINT ?? 'http://127.0.0.1:9000',
    accessKey: process.env.S3_ACCESS_KEY ?? 'sello-minio',
    secretKey: process.env.S3_SECRET_KEY ?? 'sello-minio-secret',
    region: process.env.S3_REGION ?? 'us-east-1',
  };
}

/** A `minio` client for `s3` (the tests' own bookkeeping: cleaning up, looking at what the adapter wrote). */
export function s3Client(s3: TestS3 = testS3()): Client {
  const url = new URL(s3.endpoint);
  const useSSL = url.protocol === 'https:';
  return new Client({ endPoint: url.hostname, port: url.port ? Number(url.port) : useSSL ? 443 : 80, useSSL, accessKey: s3.accessKey, secretKey: s3.secretKey, region: s3.region, pathStyle: true });
}

/**
 * True when the test S3 server answers a signed request (so it is up and the credentials are right);
 * otherwise skips the caller's tests with the reason, or throws where servers are required
 * (`SELLO_REQUIRE_SERVERS=1`, {@link serverMissing}).
 */
export async function minioReachable(what: string): Promise<boolean> {
  const s3 = testS3();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      s3Client(s3).listBuckets(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('no answer within 3 s')), 3000);
      }),
    ]);
    return true;
  } catch (error) {
    const e = error as { code?: string; message?: string };
    return serverMissing(what, `no S3 server (MinIO) answering at ${s3.endpoint} with S3_ACCESS_KEY/S3_SECRET_KEY (${e.code ? `${e.code}: ` : ''}${e.message})`);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Fresh bucket names for one test file on the test S3 server, each removed with everything in it by
 * {@link TestBuckets.removeAll} (call it in `afterAll`). Names carry the process id and random bytes, so
 * test files running at once never share a bucket.
 */
export class TestBuckets {
  private readonly names: string[] = [];

  constructor(private readonly label = 'sello-t') {}

  /** A new bucket name (the adapter creates the bucket on first use). */
  name(): string {
    const n = `${this.label}-${process.pid}-${randomBytes(4).toString('hex')}`;
    this.names.push(n);
    return n;
  }

  /** Deletes every object of every bucket named here, then the buckets; a bucket never created is skipped. */
  async removeAll(): Promise<void> {
    const client = s3Client();
    for (const bucket of this.names.splice(0)) {
      if (!(await client.bucketExists(bucket))) continue;
      const keys = await objectNames(bucket);
      if (keys.length > 0) await client.removeObjects(bucket, keys);
      await client.removeBucket(bucket);
    }
  }
}

/** The object names in `bucket` on the test S3 server under `prefix`, sorted: what a server really wrote there. */
export async function objectNames(bucket: string, prefix = ''): Promise<string[]> {
  const names: string[] = [];
  for await (const item of s3Client().listObjectsV2(bucket, prefix, true) as AsyncIterable<{ name?: string }>) if (item.name) names.push(item.name);
  return names.sort();
}

/**
 * Configuration (env-style names, for `startTestServer({ config })` or a child process's environment) that
 * puts a server's blobs in `bucket` on the test S3 server (`BLOB_STORE=s3`), under `prefix` when given.
 */
export function s3BlobConfig(bucket: string, prefix?: string): Record<string, string> {
  const s3 = testS3();
  return {
    BLOB_STORE: 's3',
    S3_ENDPOINT: s3.endpoint,
    S3_ACCESS_KEY: s3.accessKey,
    S3_SECRET_KEY: s3.secretKey,
    S3_REGION: s3.region,
    S3_BUCKET: bucket,
    ...(prefix ? { S3_PREFIX: prefix } : {}),
  };
}

/**
 * The MinIO binary `npm run engines` built (`MINIO_BIN`, else asked of `engines env --connections`), or
 * null when it has not been built on this machine.
 */
export function minioBinary(): string | null {
  let bin = process.env.MINIO_BIN;
  if (!bin) {
    try {
      const out = execFileSync(process.execPath, ['--no-warnings', '--import', 'tsx', 'scripts/engines.ts', 'env', '--connections'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
      bin = /^export MINIO_BIN=(.+)$/m.exec(out)?.[1]?.trim();
    } catch {
      return null;
    }
  }
  return bin && existsSync(bin) ? bin : null;
}

/** A MinIO server of one test's own (its data directory, port and credentials), for stopping, freezing and restarting it. */
export interface OwnMinio extends TestS3 {
  /** The running server process. */
  readonly process: ChildProcess;
  /** Stops the server (SIGTERM) and waits for it to exit; the data directory stays. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data directory; resolves once it is ready. */
  restart(): Promise<void>;
  /**
   * Freezes it (SIGSTOP): connections are accepted by the kernel and never answered. Resolves once the
   * process is seen stopped (`/proc/<pid>/stat` state T): the signal reaches each of the Go server's threads
   * in turn, and one still running answered a request sent right after the kill (seen in a CI run).
   */
  freeze(): Promise<void>;
  /** Thaws a frozen server (SIGCONT). */
  thaw(): void;
  /** Stops it and removes its data directory. */
  close(): Promise<void>;
}

/**
 * Starts a MinIO of the caller's own on a free loopback port with a fresh data directory (`bin` from
 * {@link minioBinary}); resolves once it answers a signed request. Close it in `afterAll`, so a test that
 * times out leaves no server behind.
 */
export async function startOwnMinio(bin: string): Promise<OwnMinio> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sello-minio-'));
  const port = await freePort();
  const consolePort = await freePort();
  const accessKey = 'own-minio';
  const secretKey = randomBytes(12).toString('hex');
  const endpoint = `http://127.0.0.1:${port}`;
  const launch = async (): Promise<ChildProcess> => {
    const child = spawn(bin, ['server', dir, '--address', `127.0.0.1:${port}`, '--console-address', `127.0.0.1:${consolePort}`, '--quiet'], {
      env: { ...process.env, MINIO_ROOT_USER: accessKey, MINIO_ROOT_PASSWORD: secretKey, MINIO_BROWSER: 'off', MINIO_UPDATE: 'off', MINIO_CALLHOME_ENABLE: 'off' },
      stdio: 'ignore',
    });
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`own MinIO exited with ${child.exitCode}`);
      try {
        // A signed request, not /minio/health/ready: that answers 200 while the first bucket calls still get 503.
        await s3Client({ endpoint, accessKey, secretKey, region: 'us-east-1' }).listBuckets();
        return child;
      } catch {
        // not yet serving
      }
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`own MinIO on ${endpoint} not ready after 60 s`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  let child = await launch();
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGCONT');
    child.kill('SIGTERM');
    await exited;
  };
  return {
    endpoint,
    accessKey,
    secretKey,
    region: 'us-east-1',
    get process() {
      return child;
    },
    stop,
    async restart() {
      await stop();
      child = await launch();
    },
    async freeze() {
      child.kill('SIGSTOP');
      const pid = child.pid!;
      const stopped = () => {
        try {
          return readdirSync(`/proc/${pid}/task`).every((tid) => /^\d+ \(.*\) [Tt] /.test(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')));
        } catch {
          return true; // no /proc (not Linux): the kill alone, as before
        }
      };
      for (let i = 0; i < 100 && !stopped(); i++) await new Promise((r) => setTimeout(r, 20));
    },
    thaw: () => child.kill('SIGCONT'),
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
