/**
 * The Kafka job queue (`JOB_QUEUE=kafka`) on the real broker (Kafka 4.1.1, KRaft) and the real S3 server
 * (MinIO) of `npm run engines -- up`: the port's contract suite unchanged, then what only this adapter
 * promises: claim check (images never in a message; every claim deleted when its job ends), retries and
 * the dead-letter topic, back-pressure, an unreachable broker, a broker restart (a broker of the test's own),
 * a worker process killed (SIGKILL) mid-job, a worker process stopped (SIGTERM) mid-job, and a restarted
 * group resuming exactly where it stopped. Each test uses its own prefix (topics, group, claims) and bucket.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { serialize } from 'node:v8';
import { Admin, Consumer, Producer } from '@platformatic/kafka';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkerPoolJobQueue } from '../../infra/job-queue/worker-pool/worker-pool-queue.ts';
import { KafkaJobQueue } from '../../infra/job-queue/kafka/kafka-queue.ts';
import { KafkaJobConsumer } from '../../infra/job-queue/kafka/kafka-consumer.ts';
import { runOnPool } from '../../infra/job-queue/run-on-pool.ts';
import { S3BlobStore } from '../../infra/blob-store/s3/s3-blob-store.ts';
import { JobFailedError, JobTimeoutError, type JobQueue, type JobRunner } from '../../infra/ports/job-queue.ts';
import { decodeJob, encodeReply, kafkaNames, type DeadLetter } from '../../infra/job-queue/kafka/wire.ts';
import { closeConsumer } from '../../infra/job-queue/kafka/clients.ts';
import { WORKER_ENTRY } from '../../apps/platform/platform.ts';
import { jobQueueContract } from './job-queue.contract.ts';
import { deleteKafkaPrefix, kafkaReachable, testKafkaBrokerList, testKafkaBrokers, uniqueQueuePrefix } from '../helpers/kafka.ts';
import { minioReachable, objectNames, s3BlobConfig, testS3, TestBuckets } from '../helpers/minio.ts';
import { freePort, ROOT, startProcess, waitFor, type Proc } from '../helpers/processes.ts';

const reachable = (await kafkaReachable('Kafka job-queue contract')) && (await minioReachable('Kafka job-queue contract'));
const brokers = testKafkaBrokerList();
const buckets = new TestBuckets('sello-kafka');
const prefixes: string[] = [];
const newPrefix = (): string => {
  const p = uniqueQueuePrefix('sello-t');
  prefixes.push(p);
  return p;
};
const store = (bucket: string): S3BlobStore => {
  const s3 = testS3();
  return new S3BlobStore({ endpoint: s3.endpoint, accessKey: s3.accessKey, secretKey: s3.secretKey, region: s3.region, bucket });
};

/** A producer and a consumer on their own prefix and bucket; the consumer runs jobs on a worker-thread pool unless given `run`. */
async function stack(options: { maxQueue?: number; attempts?: number; run?: JobRunner; consumer?: boolean; partitions?: number; timeoutMs?: number } = {}) {
  const prefix = newPrefix();
  const bucket = buckets.name();
  const blobs = store(bucket);
  const pool = options.run || options.consumer === false ? null : new WorkerPoolJobQueue({ threads: 2, workerFile: WORKER_ENTRY });
  const consumer =
    options.consumer === false
      ? null
      : new KafkaJobConsumer({ brokers, topicPrefix: prefix, concurrency: 2, run: options.run ?? runOnPool(pool!), blobs, attempts: options.attempts, sessionTimeoutMs: 6000, partitions: options.partitions ?? 4 });
  // The first job boots a worker thread (tsx + platform): slow on a loaded machine.
  const producer = new KafkaJobQueue({ brokers, topicPrefix: prefix, blobs, maxQueue: options.maxQueue, timeoutMs: options.timeoutMs ?? 120_000, partitions: options.partitions ?? 4 });
  await consumer?.ready();
  const queue: JobQueue = {
    run: (t, i, o) => producer.run(t, i, o),
    stats: () => producer.stats(),
    async close() {
      await producer.close();
      await consumer?.close();
      await pool?.close();
    },
  };
  return { queue, producer, consumer, pool, prefix, bucket, blobs };
}

/** Every record of `topic` so far (from its start, read by a throw-away group), as raw values. */
async function readTopic(topic: string, expected: number, timeoutMs = 15_000): Promise<Array<{ key: string; value: Buffer }>> {
  const consumer = new Consumer({ clientId: 'sello-test-reader', bootstrapBrokers: brokers, groupId: `${topic}.reader-${randomBytes(3).toString('hex')}`, maxWaitTime: 200 });
  const out: Array<{ key: string; value: Buffer }> = [];
  try {
    const stream = await consumer.consume({ topics: [topic], mode: 'earliest', autocommit: false });
    const deadline = Date.now() + timeoutMs;
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (out.length >= expected || Date.now() > deadline) {
          clearInterval(timer);
          resolve();
        }
      }, 50);
      stream.on('data', (m) => out.push({ key: m.key?.toString() ?? '', value: m.value }));
    });
    await stream.close();
  } finally {
    await closeConsumer(consumer).catch(() => undefined);
  }
  return out;
}

if (!reachable) {
  describe.skip('job queue contract: kafka (no Kafka broker or MinIO reachable)', () => it('skipped', () => undefined));
} else {
  afterAll(async () => {
    for (const p of prefixes) await deleteKafkaPrefix(p);
    await buckets.removeAll();
  }, 60_000);

  jobQueueContract('kafka (Kafka 4.1 + MinIO claim check) + worker-thread consumer', async () => (await stack()).queue);

  describe('kafka job queue: claim check, dead letter, back-pressure, unreachable broker', () => {
    const opened: Array<{ close(): Promise<void> }> = [];
    afterAll(async () => {
      for (const o of opened) await o.close();
    }, 60_000);

    it('images travel by claim check, never inside a message, and every claim is deleted when its job ends (success, failure, timeout)', async () => {
      const s = await stack();
      opened.push(s.queue);
      const image = randomBytes(64 * 1024);
      const r = await s.queue.run<{ bytes: Uint8Array }, { length: number }>('system.checksum', { bytes: image });
      expect(r.length).toBe(image.length);
      await s.producer.settled();
      expect(await objectNames(s.bucket, 'job-claims/')).toEqual([]);
      // A failed job (coded error) and a timed-out one: their claims are gone as soon as the caller has its answer.
      const failed = await s.queue.run('system.fail', { code: 'no_face_detected', bytes: image }).catch((e: unknown) => e);
      expect((failed as JobFailedError).code).toBe('no_face_detected');
      await s.producer.settled();
      expect(await objectNames(s.bucket, 'job-claims/')).toEqual([]);
      const late = await s.queue.run('system.sleep', { ms: 3000, bytes: image }, { timeoutMs: 300 }).catch((e: unknown) => e);
      expect(late).toBeInstanceOf(JobTimeoutError);
      await s.producer.settled();
      expect(await objectNames(s.bucket, 'job-claims/')).toEqual([]);
      // The three messages carry a claim key and a few hundred bytes, never the 64 KiB image.
      const messages = await readTopic(`${s.prefix}.jobs`, 3);
      expect(messages).toHaveLength(3);
      for (const m of messages) {
        expect(m.value.length).toBeLessThan(1024);
        expect(m.value.includes(image.subarray(0, 64))).toBe(false);
        expect(m.value.includes(Buffer.from(`job-claims/${s.prefix}/`))).toBe(true);
      }
      // A job without binary input travels inline (no blob written).
      await s.queue.run('system.health', {});
      await s.producer.settled();
      expect(await objectNames(s.bucket, 'job-claims/')).toEqual([]);
    }, 180_000);

    it('a binary result comes back by claim check too, and that claim is deleted once read', async () => {
      const s = await stack({ run: async (_type, input) => ({ ok: true, result: { echo: (input as { bytes: Uint8Array }).bytes } }) });
      opened.push(s.queue);
      const bytes = randomBytes(300 * 1024);
      const r = await s.queue.run<{ bytes: Uint8Array }, { echo: Uint8Array }>('echo', { bytes });
      expect(Buffer.compare(Buffer.from(r.echo), bytes)).toBe(0);
      await s.producer.settled();
      expect(await objectNames(s.bucket, 'job-claims/')).toEqual([]);
    }, 60_000);

    it('a second answer to a job (a worker re-ran it) is ignored: the caller keeps the first, and its claim is deleted', async () => {
      const s = await stack({ run: async () => ({ ok: true, result: 'first' }) });
      opened.push(s.queue);
      expect(await s.queue.run('dup', {})).toBe('first');
      const [sent] = await readTopic(`${s.prefix}.jobs`, 1);
      const job = decodeJob(kafkaNames(s.prefix), sent!.value);
      // What a worker that ran the job again would send: an answer with a (binary) result by claim check.
      const key = `job-claims/${s.prefix}/${job.deadline}-${job.id}.reply-again`;
      await s.blobs.put(key, serialize({ ok: true, result: { second: new Uint8Array([1]) } }));
      const producer = new Producer({ clientId: 'sello-test-duplicate', bootstrapBrokers: brokers });
      await producer.send({ messages: [{ topic: job.replyTo, key: Buffer.from(job.id), value: encodeReply({ id: job.id, worker: 'test', claim: { key, bytes: 10 } }) }] });
      await producer.close();
      await expect.poll(() => s.producer.duplicateReplies, { timeout: 10_000 }).toBe(1);
      await expect.poll(() => objectNames(s.bucket, 'job-claims/'), { timeout: 5000 }).toEqual([]);
    }, 60_000);

    it('a worker whose caller is gone (its reply topic deleted when it closed) drops the answer and goes on with the next job', async () => {
      const s = await stack({ run: async (type) => (await new Promise((r) => setTimeout(r, 1500)), { ok: true, result: type }) });
      opened.push(s.queue);
      const gone = s.producer.run('orphan', { bytes: new Uint8Array([1]) }).catch((e: unknown) => e);
      await expect.poll(() => s.consumer!.active, { timeout: 10_000 }).toBe(1);
      await s.producer.close(); // deletes its reply topic while the worker runs the job
      expect(((await gone) as JobFailedError).code).toBe('queue_unavailable');
      await expect.poll(() => s.consumer!.active, { timeout: 10_000 }).toBe(0);
      const next = new KafkaJobQueue({ brokers, topicPrefix: s.prefix, blobs: s.blobs, timeoutMs: 20_000 });
      opened.push(next);
      const t0 = Date.now();
      expect(await next.run('next', {})).toBe('next');
      expect(Date.now() - t0).toBeLessThan(5000);
      await next.settled();
      expect(await objectNames(s.bucket, 'job-claims/')).toEqual([]);
    }, 60_000);

    it('a crashing job is retried, then dead-lettered (worker_error to the caller); a coded error is final at the first attempt', async () => {
      let calls = 0;
      const s = await stack({
        attempts: 3,
        timeoutMs: 20_000,
        run: async (type) => {
          calls++;
          if (type === 'crash') throw new Error('worker crashed');
          return { ok: false, message: 'nope', code: 'no_face_detected' };
        },
      });
      opened.push(s.queue);
      const error = await s.queue.run('crash', { bytes: new Uint8Array([1, 2, 3]) }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(JobFailedError);
      expect((error as JobFailedError).code).toBe('worker_error');
      expect(calls).toBe(3);
      const [letter] = await readTopic(`${s.prefix}.jobs.dlt`, 1);
      const dead = JSON.parse(letter!.value.toString()) as DeadLetter;
      expect(dead).toMatchObject({ type: 'crash', reason: 'attempts_exhausted', attempts: 3, error: 'worker crashed' });
      expect(letter!.key).toBe(dead.id);
      await s.producer.settled();
      expect(await objectNames(s.bucket, 'job-claims/')).toEqual([]);
      calls = 0;
      const coded = await s.queue.run('coded', {}).catch((e: unknown) => e);
      expect((coded as JobFailedError).code).toBe('no_face_detected');
      expect(calls).toBe(1);
    }, 60_000);

    it('answers queue_full at once when the backlog passes the bound (no consumer running)', async () => {
      const s = await stack({ maxQueue: 3, consumer: false });
      opened.push(s.queue);
      const waiting = Array.from({ length: 3 }, () => s.queue.run('system.health', {}, { timeoutMs: 6000 }).catch((e: unknown) => e));
      // Until the three are in the topic, then past the producer's 250 ms cache of the backlog.
      const admin = new Consumer({ clientId: 'sello-test-probe', bootstrapBrokers: brokers, groupId: `${s.prefix}.probe` });
      await expect.poll(async () => ((await admin.listOffsets({ topics: [`${s.prefix}.jobs`] })).get(`${s.prefix}.jobs`) ?? []).reduce((a, b) => a + b, 0n), { timeout: 5000 }).toBe(3n);
      await admin.close();
      await new Promise((r) => setTimeout(r, 300));
      const t0 = Date.now();
      const error = await s.queue.run('system.health', {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(JobFailedError);
      expect((error as JobFailedError).code).toBe('queue_full');
      expect(Date.now() - t0).toBeLessThan(1000);
      expect(s.queue.stats().queued).toBe(3);
      // The three waiting ones time out (nobody consumes), as JobTimeoutError.
      for (const r of await Promise.all(waiting)) expect((r as Error).name).toBe('JobTimeoutError');
    }, 30_000);

    it('answers queue_unavailable at once when the broker cannot be reached', async () => {
      const producer = new KafkaJobQueue({ brokers: ['127.0.0.1:1'], topicPrefix: newPrefix(), blobs: store(buckets.name()) });
      opened.push(producer);
      const t0 = Date.now();
      const error = await producer.run('system.health', { bytes: new Uint8Array([1]) }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(JobFailedError);
      expect((error as JobFailedError).code).toBe('queue_unavailable');
      expect(Date.now() - t0).toBeLessThan(4000);
      // And a worker cannot start without it: ready() rejects instead of hanging.
      const consumer = new KafkaJobConsumer({ brokers: ['127.0.0.1:1'], topicPrefix: newPrefix(), concurrency: 1, run: async () => ({ ok: true, result: null }), blobs: store(buckets.name()) });
      await expect(consumer.ready()).rejects.toThrow();
      await consumer.close();
    }, 30_000);

    it('a restarted group resumes exactly after the last answered job: none run twice, none skipped', async () => {
      const prefix = newPrefix();
      const blobs = store(buckets.name());
      const ran: string[] = [];
      const consumerFor = () =>
        new KafkaJobConsumer({ brokers, topicPrefix: prefix, concurrency: 1, partitions: 1, sessionTimeoutMs: 6000, blobs, run: async (type) => (ran.push(type), { ok: true, result: type }) });
      const producer = new KafkaJobQueue({ brokers, topicPrefix: prefix, blobs, partitions: 1, timeoutMs: 30_000 });
      opened.push(producer);
      const first = consumerFor();
      await first.ready();
      for (const t of ['a', 'b', 'c']) expect(await producer.run(t, {})).toBe(t);
      await first.close(); // graceful: commits, leaves the group
      const second = consumerFor();
      opened.push(second);
      await second.ready();
      expect(await producer.run('d', {})).toBe('d');
      expect(ran).toEqual(['a', 'b', 'c', 'd']);
      expect(producer.duplicateReplies).toBe(0);
    }, 60_000);
  });

  describe('kafka job queue: a broker restart', () => {
    // A broker of this test's own (free ports, its own state directory, started and stopped by
    // scripts/engines.ts), never the shared one.
    const state = mkdtempSync(path.join(tmpdir(), 'sello-kafka-restart-'));
    let env: NodeJS.ProcessEnv;
    const engines = (command: 'up' | 'down'): void => {
      const r = spawnSync(process.execPath, ['--no-warnings', '--import', 'tsx', 'scripts/engines.ts', command, 'kafka'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'], timeout: 180_000 });
      if (r.status !== 0) throw new Error(`engines ${command} kafka: ${r.stderr?.toString().slice(-600)}`);
    };
    afterAll(() => {
      if (env) engines('down');
      rmSync(state, { recursive: true, force: true });
    }, 60_000);

    it('answers queue_unavailable at once while the broker is down, and both sides work again within seconds of its return', async () => {
      env = { ...process.env, SELLO_ENGINES_STATE: state, SELLO_KAFKA_PORT: String(await freePort()), SELLO_KAFKA_CONTROLLER_PORT: String(await freePort()) };
      engines('up');
      const own = [`127.0.0.1:${env.SELLO_KAFKA_PORT}`];
      const blobs = store(buckets.name());
      const consumer = new KafkaJobConsumer({ brokers: own, topicPrefix: 'restart', concurrency: 2, partitions: 2, sessionTimeoutMs: 6000, blobs, run: async (type) => ({ ok: true, result: type }) });
      const producer = new KafkaJobQueue({ brokers: own, topicPrefix: 'restart', blobs, partitions: 2, timeoutMs: 15_000 });
      try {
        await consumer.ready();
        expect(await producer.run('before', { bytes: new Uint8Array([1]) })).toBe('before');
        engines('down');
        const t0 = Date.now();
        expect(((await producer.run('during', {}).catch((e: unknown) => e)) as JobFailedError).code).toBe('queue_unavailable');
        expect(Date.now() - t0).toBeLessThan(4000);
        await new Promise((r) => setTimeout(r, 10_000));
        engines('up');
        const up = Date.now();
        let answer: unknown;
        while (Date.now() - up < 60_000) {
          answer = await producer.run('after', { bytes: new Uint8Array([2]) }).catch((e: unknown) => e);
          if (answer === 'after') break;
          expect((answer as JobFailedError).code).toBe('queue_unavailable');
          await new Promise((r) => setTimeout(r, 500));
        }
        expect(answer).toBe('after'); // the same producer and the same worker, no restart of either
        console.log(`broker restart: first job answered ${Date.now() - up} ms after the broker was back`);
      } finally {
        await producer.close();
        await consumer.close();
      }
    }, 300_000);
  });

  describe('kafka job queue: worker processes (npm run start:worker) killed and stopped mid-job', () => {
    const prefix = newPrefix();
    const bucket = buckets.name();
    const dirs: string[] = [];
    const procs: Proc[] = [];
    let producer: KafkaJobQueue;
    const env = (): Record<string, string> => {
      const dir = mkdtempSync(path.join(tmpdir(), 'sello-kworker-'));
      dirs.push(dir);
      return {
        DATA_DIR: dir,
        LOG_LEVEL: 'warn',
        JOB_QUEUE: 'kafka',
        KAFKA_BROKERS: testKafkaBrokers(),
        JOB_QUEUE_PREFIX: prefix,
        KAFKA_JOB_PARTITIONS: '4',
        KAFKA_SESSION_TIMEOUT_MS: '6000',
        WORKER_THREADS: '1',
        ...s3BlobConfig(bucket),
      };
    };
    const startWorker = async (extra: Record<string, string> = {}): Promise<Proc> => {
      const proc = startProcess('apps/worker/main.ts', { ...env(), ...extra });
      procs.push(proc);
      await waitFor(() => proc.output().includes('"ready":true'), 90_000, `worker\n${proc.output()}`);
      return proc;
    };
    /**
     * Members of the workers group and their partitions, as the broker sees them once the group is stable
     * (none while a rebalance is in progress).
     */
    const members = async (): Promise<Array<{ clientId: string; partitions: number[] }>> => {
      const admin = new Admin({ clientId: 'sello-test-admin', bootstrapBrokers: brokers });
      try {
        const group = (await admin.describeGroups({ groups: [`${prefix}.workers`] })).get(`${prefix}.workers`);
        if (group?.state !== 'STABLE') return [];
        return [...group.members.values()].map((m) => ({ clientId: m.clientId, partitions: [...(m.assignments?.values() ?? [])].flatMap((a) => a.partitions) }));
      } finally {
        await admin.close();
      }
    };
    const stableWith = async (n: number): Promise<boolean> => {
      const m = await members();
      return m.length === n && m.every((x) => x.partitions.length > 0);
    };

    afterAll(async () => {
      await producer?.close();
      for (const p of procs) p.kill('SIGKILL');
      await Promise.all(procs.map((p) => p.exited));
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }, 60_000);

    it('SIGKILL mid-job loses no job: the group gives the partitions to the other worker, which runs the unanswered jobs; each caller gets one answer', async () => {
      producer = new KafkaJobQueue({ brokers, topicPrefix: prefix, blobs: store(bucket), partitions: 4, timeoutMs: 120_000 });
      // A logs each job it starts and answers (debug), so the test knows it is mid-job when it kills it.
      const a = await startWorker({ LOG_LEVEL: 'debug' });
      const b = await startWorker();
      await waitFor(() => stableWith(2), 30_000, 'workers A and B sharing the partitions');
      // 3-second jobs with an image each, spread over the four partitions (by their random keys), one at a
      // time per worker: four at once, then one more every half second until A has started one.
      const image = randomBytes(32 * 1024);
      const t0 = Date.now();
      const send = () => producer.run<{ ms: number; bytes: Uint8Array }, { slept: number }>('system.sleep', { ms: 3000, bytes: image }).then((r) => ({ r, at: Date.now() - t0 }));
      const calls = Array.from({ length: 4 }, send);
      const startedOnA = (): string[] => [...a.output().matchAll(/"id":"([0-9a-f-]{36})"[^\n]*job started/g)].map((m) => m[1]!);
      const answeredByA = (): string[] => [...a.output().matchAll(/"id":"([0-9a-f-]{36})"[^\n]*job answered/g)].map((m) => m[1]!);
      // Kill A once it runs a job it has not answered.
      await waitFor(() => {
        if (startedOnA().some((id) => !answeredByA().includes(id))) return true;
        if (calls.length < 16 && Date.now() - t0 > calls.length * 500) calls.push(send());
        return false;
      }, 60_000, `A mid-job\n${a.output()}`);
      const lost = startedOnA().filter((id) => !answeredByA().includes(id));
      a.kill('SIGKILL');
      const killedAt = Date.now() - t0;
      // After the session timeout (6 s) B owns every partition (polled every 200 ms: the rebalance time).
      const moved = waitFor(async () => {
        const m = await members();
        return m.length === 1 && m[0]!.partitions.length === 4;
      }, 30_000, 'B owning the four partitions').then(() => Date.now() - t0 - killedAt);
      expect(await a.exited).toBe('SIGKILL');
      const results = await Promise.all(calls);
      expect(results.map((x) => x.r.slept)).toEqual(calls.map(() => 3000));
      const movedMs = await moved;
      expect(lost.length).toBeGreaterThan(0); // answered all the same: B ran them
      // Every claim was deleted, and nothing is left to run (the group's lag is 0).
      await producer.settled();
      expect(await objectNames(bucket, 'job-claims/')).toEqual([]);
      await waitFor(async () => (await producer.run('system.health', {}), producer.stats().queued === 0), 20_000, 'no backlog');
      console.log(`SIGKILL at ${killedAt} ms with ${lost.length} job(s) running on A; its partitions moved to B ${movedMs} ms later; answers at ${results.map((x) => x.at).sort((x, y) => x - y).join(', ')} ms; answers ignored as duplicates: ${producer.duplicateReplies}`);
      expect(b.child.exitCode).toBeNull();
    }, 240_000);

    it('SIGTERM mid-job: the worker finishes and answers the running job, commits, leaves the group and exits 0', async () => {
      // Two workers of their own with a 30 s session: on a loaded machine a 6 s session can expire while a
      // starved worker shuts down, and the broker would then move its partition before its commit (a
      // rebalance, not the graceful path this test is about).
      for (const p of procs.filter((p) => p.child.exitCode === null && p.child.signalCode === null)) {
        p.kill('SIGTERM');
        await p.exited;
      }
      const b = await startWorker({ KAFKA_SESSION_TIMEOUT_MS: '30000' });
      const c = await startWorker({ KAFKA_SESSION_TIMEOUT_MS: '30000' });
      await waitFor(() => stableWith(2), 60_000, 'workers B and C sharing the partitions');
      const duplicatesBefore = producer.duplicateReplies;
      const calls = Array.from({ length: 4 }, () => producer.run<{ ms: number }, { slept: number }>('system.sleep', { ms: 1500 }));
      await new Promise((r) => setTimeout(r, 700)); // both are mid-job
      const stoppedAt = Date.now();
      b.kill('SIGTERM');
      expect(await b.exited).toBe(0);
      const stopMs = Date.now() - stoppedAt;
      expect((await Promise.all(calls)).map((r) => r.slept)).toEqual([1500, 1500, 1500, 1500]);
      // It left the group: C owns everything once the rebalance B's leaving started is over, well before B's
      // 30 s session could have expired (members() reads [] while the group is rebalancing: a clean-clone CI
      // run at high load read it mid-rebalance right after B exited).
      const leftAt = Date.now();
      let m: Awaited<ReturnType<typeof members>> = [];
      await waitFor(async () => (m = await members()).length === 1, 15_000, 'C alone in the group after B left');
      expect(m).toHaveLength(1);
      expect(m[0]!.partitions).toHaveLength(4);
      expect(Date.now() - leftAt).toBeLessThan(30_000);
      // Its running jobs were answered before it left. Their commits usually reach the broker first, so
      // nothing runs twice; at high load (seen in one CI run in three, at a load average near 10) C can be
      // handed a partition before B's last commit lands and run one of B's jobs again. Its second answer is
      // ignored (each call settles once, nothing is charged twice): at most B's two running jobs.
      const rerun = producer.duplicateReplies - duplicatesBefore;
      console.log(`SIGTERM: worker stopped in ${stopMs} ms; jobs run again by the other worker: ${rerun}`);
      expect(rerun).toBeLessThanOrEqual(2);
      expect(stopMs).toBeLessThan(10_000);
      c.kill('SIGTERM');
      expect(await c.exited).toBe(0);
    }, 120_000);
  });
}
