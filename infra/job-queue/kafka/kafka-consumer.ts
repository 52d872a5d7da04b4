import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Admin, Consumer, Producer, type Message, type MessagesStream } from '@platformatic/kafka';
import type { BlobStore } from '../../ports/blob-store.ts';
import type { JobConsumer, JobEnvelope, JobRunner } from '../../ports/job-queue.ts';
import { RETRY_FOREVER, closeConsumer, describeError, ensureTopics, isProtocolError, silentLog, type QueueLog } from './clients.ts';
import { withTimeout } from '../../shared/with-timeout.ts';
import { commitValue, PartitionProgress } from './offsets.ts';
import { MalformedMessageError, decodeJob, encodeReply, kafkaNames, pack, replyClaimKey, unpack, type DeadLetter, type JobMessage, type KafkaNames } from './wire.ts';

export interface KafkaJobConsumerOptions {
  /** Bootstrap brokers, `host:port` each. */
  brokers: readonly string[];
  /** `JOB_QUEUE_PREFIX`: the deployment's topics, group and claim keys. Default `sello`. */
  topicPrefix?: string;
  /** Jobs this process runs at once (its inference threads). */
  concurrency: number;
  /** Runs one job (in `apps/worker`: on the process's inference threads, `runOnPool`). */
  run: JobRunner;
  /** Where job inputs and large or binary results wait (claim check); the API processes read the same store. */
  blobs: BlobStore;
  /** Attempts of a job whose run crashes (rejects) before it is dead-lettered; a coded error is never retried. Default 3. */
  attempts?: number;
  /** Back-off before the second attempt, ms; doubled for each further one. Default 200. */
  retryDelayMs?: number;
  /** Partitions of `<prefix>.jobs` if this process is the first to create it. Default 12. */
  partitions?: number;
  /** A member that stops heartbeating loses its partitions after this long, ms. Default 10 000. */
  sessionTimeoutMs?: number;
  log?: QueueLog;
}

/**
 * The worker side of the Kafka job queue (`JOB_QUEUE=kafka`): a member of the consumer group
 * `<prefix>.workers` on `<prefix>.jobs` that runs each job through `run` and produces its answer to the
 * caller's reply topic.
 *
 * - At least once, never lost: a job's offset is committed only after its answer was produced, and only
 *   once every job before it on its partition was answered too ({@link PartitionProgress}). A process killed
 *   mid-job (SIGKILL) commits nothing for it; after `sessionTimeoutMs` the group gives its partitions to
 *   another member, which runs the job again. The caller takes the first answer and ignores a second one
 *   (credits are settled by the API once per request, never here).
 * - Retries: a run that crashes is retried in place `attempts` times with exponential back-off, within the
 *   job's deadline; then the job is written to `<prefix>.jobs.dlt` (id, type, error, attempts; never its
 *   input) and the caller gets a `worker_error` answer. A coded domain error is an answer, sent at once.
 * - A job past its deadline (its caller gave up) is dropped without running; a message no worker can read
 *   is dead-lettered (`malformed`) and skipped, never retried.
 * - Images are read from the blob store (claim check) and are never written into a message.
 * - `close()` (SIGTERM): stops fetching, lets the running jobs finish and answer, commits, leaves the group
 *   (its partitions move at once, without waiting for the session timeout).
 */
export class KafkaJobConsumer implements JobConsumer {
  private readonly names: KafkaNames;
  private readonly log: QueueLog;
  private readonly attempts: number;
  private readonly retryDelayMs: number;
  private readonly worker = `${hostname()}:${process.pid}`;
  private readonly consumer: Consumer;
  private readonly producer: Producer;
  private readonly admin: Admin;
  private stream: MessagesStream<Buffer, Buffer, Buffer, Buffer> | null = null;
  private started: Promise<void> | null = null;
  private closing: Promise<void> | null = null;
  private readonly progress = new Map<number, PartitionProgress>();
  private readonly running = new Set<Promise<void>>();
  /** Per partition, the highest watermark waiting to be committed. */
  private readonly toCommit = new Map<number, bigint>();
  private committing: Promise<void> | null = null;
  private commitTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: KafkaJobConsumerOptions) {
    if (options.brokers.length === 0) throw new Error('the Kafka job consumer needs at least one broker (KAFKA_BROKERS)');
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) throw new Error(`concurrency must be a positive integer, got ${options.concurrency}`);
    this.names = kafkaNames(options.topicPrefix ?? 'sello');
    this.log = options.log ?? silentLog;
    this.attempts = Math.max(1, options.attempts ?? 3);
    this.retryDelayMs = options.retryDelayMs ?? 200;
    const base = { bootstrapBrokers: [...options.brokers], retries: RETRY_FOREVER, retryDelay: 1000, connectTimeout: 5000 };
    const sessionTimeout = options.sessionTimeoutMs ?? 10_000;
    this.consumer = new Consumer({
      ...base,
      clientId: `sello-worker-${process.pid}`,
      groupId: this.names.workersGroup,
      sessionTimeout,
      heartbeatInterval: Math.max(100, Math.floor(sessionTimeout / 5)),
      // The coordinator waits this long for members to rejoin during a rebalance; this client rejoins at once.
      rebalanceTimeout: sessionTimeout,
    });
    // No retries inside the client: a send to a reply topic that is gone (its API process closed) would be
    // retried for ever with RETRY_FOREVER, and after 3 s with the default. reply() retries itself, until
    // the job's deadline, and gives up at once on a topic that is gone.
    this.producer = new Producer({ ...base, retries: 0, clientId: `sello-worker-${process.pid}` });
    this.admin = new Admin({ ...base, retries: 3, clientId: `sello-worker-admin-${process.pid}` });
  }

  /** Creates the topics if missing, joins the group and starts taking jobs. Idempotent. */
  ready(): Promise<void> {
    this.started ??= this.start();
    return this.started;
  }

  private async start(): Promise<void> {
    await ensureTopics(this.admin, [
      { name: this.names.jobs, partitions: this.options.partitions ?? 12 },
      { name: this.names.deadLetters, partitions: 1 },
    ]);
    await this.openStream();
    this.commitTimer = setInterval(() => void this.flushCommits(), 1000);
    this.commitTimer.unref();
  }

  /**
   * Starts fetching. A stream that fails (a non-retriable error; network errors are retried forever) is
   * replaced after a second: a member that stayed in the group without fetching would hold its partitions'
   * jobs until it died. The jobs already taken go on; re-deliveries of them are recognised and skipped.
   */
  private async openStream(): Promise<void> {
    const stream = await this.consumer.consume({
      topics: [this.names.jobs],
      mode: 'committed',
      fallbackMode: 'earliest',
      autocommit: false,
      // Fetched jobs wait in this process until a thread is free; keep that backlog small (they are
      // re-delivered to another member if this one dies, and they are not another member's meanwhile).
      highWaterMark: this.options.concurrency,
      maxWaitTime: 500,
    });
    this.stream = stream;
    // Paused mode, read only while a thread is free: the stream then stops fetching once `highWaterMark`
    // jobs wait (Node's back-pressure). Explicit pause()/resume() of a flowing stream stalls 1.22.0's stream
    // for good (measured: its fetch returns without pushing while paused, and Node never asks again).
    stream.on('readable', () => this.drain());
    stream.once('error', (err: Error) => {
      this.log.error({ err: describeError(err) }, 'kafka job consumer: stream failed; reopening it');
      if (this.stream === stream) this.stream = null;
      void this.reopen();
    });
  }

  private async reopen(): Promise<void> {
    for (let attempt = 1; !this.closing; attempt++) {
      await sleep(Math.min(30_000, 1000 * attempt));
      if (this.closing) return;
      try {
        await this.openStream();
        this.log.info({ attempt }, 'kafka job consumer: consuming again');
        return;
      } catch (err) {
        this.log.error({ err: describeError(err), attempt }, 'kafka job consumer: could not reopen the stream; retrying');
      }
    }
  }

  /** Takes waiting messages while threads are free. */
  private drain(): void {
    const stream = this.stream;
    while (stream && !this.closing && this.running.size < this.options.concurrency) {
      const message = stream.read() as Message<Buffer, Buffer, Buffer, Buffer> | null;
      if (message === null) return;
      this.take(message);
    }
  }

  private take(message: Message<Buffer, Buffer, Buffer, Buffer>): void {
    let progress = this.progress.get(message.partition);
    if (!progress) this.progress.set(message.partition, (progress = new PartitionProgress()));
    if (!progress.take(message.offset)) return; // a re-delivery of a job this process has (had) in hand
    const job = this.handle(message).then(
      () => this.finished(message.partition, message.offset),
      // handle() never rejects by design; a bug here must not stop the partition's commits for good.
      (err: unknown) => {
        this.log.error({ err: describeError(err), partition: message.partition, offset: String(message.offset) }, 'kafka job consumer: unexpected failure');
        this.finished(message.partition, message.offset);
      },
    );
    this.running.add(job);
    void job.finally(() => {
      this.running.delete(job);
      this.drain();
    });
  }

  private finished(partition: number, offset: bigint): void {
    const watermark = this.progress.get(partition)?.finish(offset);
    if (watermark === null || watermark === undefined) return;
    this.toCommit.set(partition, watermark);
    void this.flushCommits();
  }

  /** Commits the pending watermarks (one commit at a time; a failed one is retried by the next call). */
  private flushCommits(): Promise<void> {
    if (this.committing) return this.committing;
    if (this.toCommit.size === 0) return Promise.resolve();
    const batch = [...this.toCommit];
    this.toCommit.clear();
    this.committing = this.consumer
      .commit({ offsets: batch.map(([partition, done]) => ({ topic: this.names.jobs, partition, offset: commitValue(done), leaderEpoch: -1 })) })
      .catch((err: unknown) => {
        // A rebalance in progress, or the broker away: keep the highest pending value and commit it later.
        for (const [partition, done] of batch) if ((this.toCommit.get(partition) ?? -1n) < done) this.toCommit.set(partition, done);
        this.log.warn({ err: describeError(err) }, 'kafka job consumer: commit failed; will retry');
      })
      .finally(() => {
        this.committing = null;
      });
    return this.committing;
  }

  /** Runs one job message to its end: answered, dropped or dead-lettered. Never rejects. */
  private async handle(message: Message<Buffer, Buffer, Buffer, Buffer>): Promise<void> {
    let job: JobMessage;
    try {
      job = decodeJob(this.names, message.value);
    } catch (error) {
      await this.deadLetter(message, null, 'malformed', 0, error instanceof MalformedMessageError ? error.message : describeError(error));
      return;
    }
    if (Date.now() >= job.deadline) {
      this.log.debug({ job: job.type, id: job.id }, 'kafka job consumer: deadline passed before the job started; dropped');
      return;
    }
    this.log.debug({ job: job.type, id: job.id, partition: message.partition, offset: String(message.offset) }, 'kafka job consumer: job started');
    let envelope: JobEnvelope | null = null;
    let lastError = '';
    let attempt = 0;
    while (attempt < this.attempts) {
      attempt++;
      const left = job.deadline - Date.now();
      if (left <= 0) return; // the caller has given up: nobody to answer
      try {
        const input = await unpack<unknown>(this.options.blobs, job);
        if (input === null) {
          this.log.debug({ job: job.type, id: job.id }, 'kafka job consumer: claim gone (the job ended); dropped');
          return;
        }
        envelope = await this.options.run(job.type, input, left);
        break;
      } catch (error) {
        lastError = describeError(error);
        const final = attempt >= this.attempts;
        (final ? this.log.error : this.log.warn).call(this.log, { job: job.type, id: job.id, attempt, err: lastError }, final ? 'job failed: dead-lettered' : 'job failed: will retry');
        if (!final) await sleep(Math.min(this.retryDelayMs * 2 ** (attempt - 1), Math.max(0, job.deadline - Date.now())));
      }
    }
    if (!envelope) {
      await this.deadLetter(message, job, 'attempts_exhausted', attempt, lastError);
      envelope = { ok: false, message: `job failed after ${attempt} attempts: ${lastError}`, code: 'worker_error' };
    }
    await this.reply(job, envelope);
  }

  /**
   * Produces the answer to the caller's reply topic, retrying until it is written or the caller has given
   * up (its deadline passed, or its reply topic is gone: the API process closed).
   */
  private async reply(job: JobMessage, envelope: JobEnvelope): Promise<void> {
    let claim: string | undefined;
    let unknownTopic = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        const carried = await pack(this.options.blobs, replyClaimKey(this.names, job.id, job.deadline), envelope);
        if ('claim' in carried) claim = carried.claim.key;
        await this.producer.send({ messages: [{ topic: job.replyTo, key: Buffer.from(job.id), value: encodeReply({ id: job.id, worker: this.worker, ...carried }) }] });
        this.log.debug({ job: job.type, id: job.id, ok: envelope.ok }, 'kafka job consumer: job answered');
        return;
      } catch (error) {
        // A topic unknown three times running (not a metadata delay) is a caller that is gone.
        unknownTopic = isProtocolError(error, 'UNKNOWN_TOPIC_OR_PARTITION') ? unknownTopic + 1 : 0;
        const gone = unknownTopic >= 3;
        if (gone || Date.now() >= job.deadline) {
          this.log.warn({ job: job.type, id: job.id, err: describeError(error) }, gone ? 'kafka job consumer: the caller\'s reply topic is gone; answer dropped' : 'kafka job consumer: answer not delivered before the deadline; dropped');
          if (claim) await this.options.blobs.delete(claim).catch(() => undefined);
          return;
        }
        if (unknownTopic === 0) this.log.warn({ job: job.type, id: job.id, attempt, err: describeError(error) }, 'kafka job consumer: answer not delivered; retrying');
        if (claim) {
          await this.options.blobs.delete(claim).catch(() => undefined); // the next attempt writes its own
          claim = undefined;
        }
        await sleep(Math.min(1000, 100 * attempt));
      }
    }
  }

  private async deadLetter(message: Message<Buffer, Buffer, Buffer, Buffer>, job: JobMessage | null, reason: DeadLetter['reason'], attempts: number, error: string): Promise<void> {
    const letter: DeadLetter = {
      id: job?.id ?? null,
      type: job?.type ?? null,
      reason,
      attempts,
      error,
      worker: this.worker,
      failed_at: new Date().toISOString(),
      partition: message.partition,
      offset: String(message.offset),
    };
    if (reason === 'malformed') this.log.error({ partition: message.partition, offset: String(message.offset), err: error }, 'kafka job consumer: unreadable job message; dead-lettered');
    for (let attempt = 1; ; attempt++) {
      try {
        await this.producer.send({ messages: [{ topic: this.names.deadLetters, key: job ? Buffer.from(job.id) : undefined, value: Buffer.from(JSON.stringify(letter)) }] });
        return;
      } catch (err) {
        if (attempt < 5) {
          await sleep(200 * attempt);
          continue;
        }
        // The answer still goes to the caller; only the operator's copy is missing (it is in this log).
        this.log.error({ ...letter, err: describeError(err) }, 'kafka job consumer: dead letter not written');
        return;
      }
    }
  }

  /** Jobs running now. */
  get active(): number {
    return this.running.size;
  }

  /**
   * Graceful stop: stops fetching, waits for the running jobs' answers, commits, leaves the group (its
   * partitions move at once). Each broker step is bounded (10 s), so a stop never hangs on a lost broker.
   */
  close(): Promise<void> {
    this.closing ??= this.stop();
    return this.closing;
  }

  private async stop(): Promise<void> {
    const stream = this.stream;
    if (stream) await withTimeout(stream.close(), 10_000, 'stream close timed out').catch((err: unknown) => this.log.warn({ err: describeError(err) }, 'kafka job consumer: stream close'));
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
    if (this.commitTimer) clearInterval(this.commitTimer);
    await this.committing;
    await withTimeout(this.flushCommits(), 10_000, 'final commit timed out').catch(() => undefined);
    for (const [what, close] of [
      ['consumer', () => closeConsumer(this.consumer)],
      ['producer', () => this.producer.close()],
      ['admin', () => this.admin.close()],
    ] as const) {
      await withTimeout(close(), 10_000, `${what} close timed out`).catch((err: unknown) => this.log.warn({ err: describeError(err) }, `kafka job consumer: ${what} close`));
    }
  }
}
