import { createHash } from 'node:crypto';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root (the child processes run the TypeScript sources through tsx from here). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A free loopback TCP port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
    s.on('error', reject);
  });
}

/** A child process of the project (an API server or an inference worker) with its output kept. */
export interface Proc {
  child: ChildProcess;
  output: () => string;
  /** Resolves when the process exited (its exit code, or the signal's name). */
  exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): void;
}

/** Starts `node --import tsx <entry>` from the project root with `env` added to this environment. */
export function startProcess(entry: string, env: Record<string, string>): Proc {
  const child = spawn(process.execPath, ['--no-warnings', '--import', 'tsx', entry], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return {
    child,
    output: () => out,
    exited,
    kill: (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}

/** Waits until `check` resolves true (polling every 200 ms), or throws with `what` after `timeoutMs`. */
export async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Runs `npm run cli -- <args>` (as a node process) with `env`; resolves with its JSON answer. */
export function cli(args: string[], env: Record<string, string>): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--no-warnings', '--import', 'tsx', 'apps/cli/cli.ts', ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 120_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`cli ${args.join(' ')} failed: ${stderr || error.message}`));
        else resolve(JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, unknown>);
      },
    );
  });
}

/** Where the servers of a scaled-out deployment are, for {@link scaledOutEnv}. */
export interface ScaledOutServers {
  databaseUrl: string;
  /** PostgreSQL schema of the event store. */
  schema: string;
  redisUrl: string;
  /** Prefix of Redis keys and queue names, so several tests share the servers. */
  prefix: string;
  /** Temporal frontend `host:port` (workflows on Temporal, on task queue `prefix`). */
  temporalAddress: string;
  /** MinIO / S3 blob settings (`s3BlobConfig` of test/helpers/minio.ts). */
  blobs: Record<string, string>;
  /** `kafka` (the card's, with `kafkaBrokers`) or `bullmq` (Redis). */
  jobQueue: 'kafka' | 'bullmq';
  kafkaBrokers?: string;
}

/**
 * The environment of a scaled-out deployment's processes on the design card's profile
 * (docs/operations.md): PostgreSQL event store in `schema`, workflows on Temporal, inference jobs on
 * Kafka (or BullMQ), blobs on MinIO, Redis rate limiter, per-process SQLite read models. Callers add
 * their own timeouts, worker threads and webhook settings.
 */
export function scaledOutEnv(o: ScaledOutServers): Record<string, string> {
  return {
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    BOOTSTRAP: 'false',
    EVENT_STORE: 'postgres',
    READ_MODELS: 'sqlite',
    DATABASE_URL: o.databaseUrl,
    DATABASE_SCHEMA: o.schema,
    WORKFLOWS: 'temporal',
    TEMPORAL_ADDRESS: o.temporalAddress,
    TEMPORAL_TASK_QUEUE: o.prefix,
    RATE_LIMITER: 'redis',
    REDIS_URL: o.redisUrl,
    REDIS_PREFIX: `${o.prefix}:`,
    JOB_QUEUE: o.jobQueue,
    JOB_QUEUE_PREFIX: o.prefix,
    ...(o.kafkaBrokers ? { KAFKA_BROKERS: o.kafkaBrokers } : {}),
    // One master key for every process (docs/privacy.md): each has a DATA_DIR of its own, where an unset
    // key would be generated apart, and a data key wrapped by one process would not open in another.
    PRIVACY_MASTER_KEY: createHash('sha256').update(`sello-test-master:${o.prefix}`).digest('hex'),
    ...o.blobs,
  };
}
