import { randomBytes, randomUUID } from 'node:crypto';
import { Admin, Consumer, Producer, type Message, type MessagesStream } from '@platformatic/kafka';
import type { BlobStore } from '../../ports/blob-store.ts';
import { JobFailedError, JobTimeoutError, type JobEnvelope, type JobOptions, type JobQueue } from '../../ports/job-queue.ts';
import { RETRY_FOREVER, closeConsumer, describeError, ensureTopics, isProtocolError, silentLog, type QueueLog } from './clients.ts';
import { withTimeout } from '../../shared/with-timeout.ts';
import { resumeOffset } from './offsets.ts';
import { asEnvelope, claimExpired, decodeReply, encodeJob, inputClaimKey, kafkaNames, pack, unpack, type KafkaNames, type ReplyMessage } from './wire.ts';

export interface KafkaJobQueueOptions {
  /** Bootstrap brokers, `host:port` each. */
  brokers: readonly string[];
  /** `JOB_QUEUE_PREFIX`: the deployment's topics, group and claim keys. Default `sello`. */
  topicPrefix?: string;
  /** Where job inputs (and large or binary results) wait: a store every API and worker process reaches. */
  blobs: BlobStore;
  /** Default deadline of a job, ms (the caller's whole wait, queueing included). Default 60 000. */
  timeoutMs?: number;
  /** Jobs waiting or running in the group (its lag) beyond which `run` answers `queue_full` at once. Default 1000. */
  maxQueue?: number;
  /** Partitions of `<prefix>.jobs` if this process is the first to create it. Default 12. */
  partitions?: number;
  /**
   * How long a connection attempt and a send may take before `run` answers `queue_unavailable`, ms. Default
   * 3000. (A refused connection fails at once; joining this process's reply group can take longer, up to
   * the broker's `group.initial.rebalance.delay.ms`, 3 s by default: the first calls wait for it, within
   * their deadline, at most {@link START_WAIT_MS}.)
   */
  connectTimeoutMs?: number;
  log?: QueueLog;
}

/** A caller waiting for its answer. */
interface Pending {
  resolve(reply: ReplyMessage): void;
  reject(error: Error): void;
}

/** Claims and reply topics older than this whose owner is gone are deleted by any API process's sweep. */
const SWEEP_INTERVAL_MS = 10 * 60_000;
const SWEEP_GRACE_MS = 60_000;
const STALE_REPLY_TOPIC_MS = 10 * 60_000;
/** Longest a call waits for this process's reply stream to be ready (topics created, group joined), ms. */
const START_WAIT_MS = 15_000;

/**
 * Producer side of the Kafka job queue (`JOB_QUEUE=kafka`): API processes write inference jobs to
 * `<prefix>.jobs`; worker processes (`apps/worker/main.ts`, {@link KafkaJobConsumer}) run them and answer
 * on this process's own reply topic.
 *
 * - Request/reply with a deadline: each process owns `<prefix>.replies.<instance>` (one partition, read
 *   from its end by a one-member group of the same name, deleted at `close()`); `run` waits for the reply
 *   carrying its job id up to the deadline, then rejects with {@link JobTimeoutError}. The job carries the
 *   deadline, and a worker that takes it later drops it. The first answer wins; a second one (a job run
 *   again after its worker died before committing) is counted in {@link duplicateReplies} and ignored, so a
 *   call is settled, and charged, once.
 * - Claim check: an input holding binary data (images) or larger than 256 KiB is written to the blob store
 *   and the message carries its key (`./wire.ts`); it is deleted as soon as the job ends, whatever the
 *   outcome (in the background: {@link settled} waits for it).
 *   Claims of a process that died are deleted by a sweep (every 10 minutes, by every API process) once
 *   their deadline has passed, and reply topics whose group has had no member for 10 minutes are deleted.
 * - Back-pressure: the backlog is the workers group's lag on `<prefix>.jobs` (jobs written and not yet
 *   committed by a worker, summed over partitions; read at most every 250 ms); past `maxQueue`, `run`
 *   rejects at once with `queue_full` (the routes answer 503 with `Retry-After`). A broker that refuses or
 *   does not answer within `connectTimeoutMs` is `queue_unavailable` (also 503).
 * - Retries and the dead letter are the workers' (see {@link KafkaJobConsumer}); a coded domain error is
 *   an answer, never retried.
 */
export class KafkaJobQueue implements JobQueue {
  private readonly names: KafkaNames;
  private readonly log: QueueLog;
  private readonly timeoutMs: number;
  private readonly maxQueue: number;
  private readonly connectTimeoutMs: number;
  /** This process's reply topic and the one-member group that reads it. */
  readonly replyTopic: string;
  private readonly producer: Producer;
  private readonly admin: Admin;
  /** Reads the workers group's committed offsets and the topic's ends; never joins a group. */
  private readonly probe: Consumer;
  private replyConsumer: Consumer | null = null;
  private replyStream: MessagesStream<Buffer, Buffer, Buffer, Buffer> | null = null;
  private starting: Promise<void> | null = null;
  /** The reply topic exists (created by this process): close() deletes it. */
  private opened = false;
  private closed = false;
  private readonly pending = new Map<string, Pending>();
  private inFlight = 0;
  private completed = 0;
  private duplicates = 0;
  private backlog = { value: 0, at: 0, reading: null as Promise<number> | null };
  private workers = { value: 0, at: 0 };
  private sweeper: NodeJS.Timeout | null = null;

  constructor(private readonly options: KafkaJobQueueOptions) {
    if (options.brokers.length === 0) throw new Error('the Kafka job queue needs at least one broker (KAFKA_BROKERS)');
    this.names = kafkaNames(options.topicPrefix ?? 'sello');
    this.log = options.log ?? silentLog;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.maxQueue = options.maxQueue ?? 1000;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 3000;
    // The instance id starts with its creation time (base 36), so a sweep can tell an old topic from one
    // being created right now.
    const instance = `${Date.now().toString(36)}-${randomBytes(5).toString('hex')}`;
    this.replyTopic = `${this.names.repliesPrefix}${instance}`;
    const base = { bootstrapBrokers: [...options.brokers], connectTimeout: this.connectTimeoutMs, timeout: 5000 };
    // A send is retried once, then answered queue_unavailable: a caller should not wait on a broken broker.
    this.producer = new Producer({ ...base, clientId: `sello-api-${instance}`, retries: 1, retryDelay: 250 });
    this.admin = new Admin({ ...base, clientId: `sello-api-admin-${instance}`, retries: 1, retryDelay: 250 });
    this.probe = new Consumer({ ...base, clientId: `sello-api-probe-${instance}`, groupId: this.names.workersGroup, retries: 0 });
    // Connect now, as the first caller would otherwise wait for the topics and the reply group's join; a
    // failure here is retried by that caller.
    this.start().catch(() => undefined);
  }

  /**
   * Creates the topics if missing and starts reading this process's replies; memoised until it fails
   * (the next `run` tries again).
   */
  private start(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('job queue closed'));
    this.starting ??= this.open().catch((error: unknown) => {
      this.starting = null;
      void this.closeReplies();
      throw error;
    });
    return this.starting;
  }

  private async open(): Promise<void> {
    await ensureTopics(this.admin, [
      { name: this.names.jobs, partitions: this.options.partitions ?? 12 },
      { name: this.names.deadLetters, partitions: 1 },
      // Answers are read within the job's deadline: a day of retention is plenty.
      { name: this.replyTopic, partitions: 1, configs: { 'retention.ms': String(24 * 3600_000) } },
    ]);
    // Network errors are retried for as long as it takes: the stream must outlive a broker restart.
    this.replyConsumer = new Consumer({
      bootstrapBrokers: [...this.options.brokers],
      clientId: `sello-api-replies-${process.pid}`,
      groupId: this.replyTopic,
      retries: RETRY_FOREVER,
      retryDelay: 1000,
      sessionTimeout: 30_000,
      heartbeatInterval: 3000,
      rebalanceTimeout: 30_000,
    });
    const stream = await this.replyConsumer.consume({ topics: [this.replyTopic], mode: 'latest', autocommit: false, maxWaitTime: 1000 });
    this.replyStream = stream;
    // Jobs are sent only once the stream knows where it reads from: an answer written before that would be
    // behind its starting point and never seen.
    const positioned = new Promise<void>((resolve, reject) => {
      stream.once('offsets', () => resolve());
      stream.once('error', reject);
    });
    stream.on('data', (message: Message<Buffer, Buffer, Buffer, Buffer>) => void this.onReply(message));
    stream.on('error', (err: Error) => {
      this.log.error({ err: describeError(err) }, 'kafka job queue: reply stream failed; waiting callers get queue_unavailable');
      this.failPending(new JobFailedError(`job queue unavailable: ${describeError(err)}`, 'queue_unavailable'));
      this.starting = null;
      void this.closeReplies();
    });
    await positioned;
    this.opened = true;
    this.sweeper ??= setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
    void this.sweep();
  }

  private async onReply(message: Message<Buffer, Buffer, Buffer, Buffer>): Promise<void> {
    let reply: ReplyMessage;
    try {
      reply = decodeReply(this.names, message.value);
    } catch (error) {
      this.log.warn({ err: describeError(error), offset: String(message.offset) }, 'kafka job queue: unreadable reply ignored');
      return;
    }
    const waiting = this.pending.get(reply.id);
    if (waiting) {
      this.pending.delete(reply.id);
      waiting.resolve(reply);
      return;
    }
    // Nobody waits: a job run twice (its first worker died before committing), or answered after its deadline.
    this.duplicates++;
    this.log.debug({ id: reply.id, worker: reply.worker }, 'kafka job queue: answer for no waiting call ignored');
    if (reply.claim) this.forget(reply.claim.key);
  }

  async run<I, O>(jobType: string, input: I, options?: JobOptions): Promise<O> {
    const timeoutMs = options?.timeoutMs ?? this.timeoutMs;
    const deadline = Date.now() + timeoutMs;
    const signal = options?.signal;
    if (signal?.aborted) throw signal.reason;
    const id = randomUUID();
    let claimKey: string | undefined;
    this.inFlight++;
    try {
      try {
        const wait = Math.max(1, Math.min(START_WAIT_MS, deadline - Date.now()));
        await withTimeout(this.start(), wait, `the reply stream was not ready within ${wait} ms`);
      } catch (error) {
        throw new JobFailedError(`job queue unavailable: ${describeError(error)}`, 'queue_unavailable');
      }
      let backlog: number;
      try {
        backlog = await this.readBacklog();
      } catch (error) {
        throw new JobFailedError(`job queue unavailable: ${describeError(error)}`, 'queue_unavailable');
      }
      if (backlog >= this.maxQueue) throw new JobFailedError('job queue is full', 'queue_full');
      let carried;
      try {
        carried = await pack(this.options.blobs, inputClaimKey(this.names, id, deadline), input);
      } catch (error) {
        if (error instanceof Error && /could not be cloned|DataCloneError/i.test(`${error.name} ${error.message}`)) throw new JobFailedError(`job input cannot be serialised: ${error.message}`, 'invalid_job_input');
        throw new JobFailedError(`job queue unavailable (blob store): ${describeError(error)}`, 'queue_unavailable');
      }
      if ('claim' in carried) claimKey = carried.claim.key;
      const answered = new Promise<ReplyMessage>((resolve, reject) => this.pending.set(id, { resolve, reject }));
      answered.catch(() => undefined);
      try {
        await withTimeout(
          this.producer.send({ messages: [{ topic: this.names.jobs, key: Buffer.from(id), value: encodeJob({ id, type: jobType, deadline, replyTo: this.replyTopic, ...carried }) }] }),
          Math.max(1, Math.min(this.connectTimeoutMs, deadline - Date.now())),
          `the broker did not take the job within ${this.connectTimeoutMs} ms`,
        );
      } catch (error) {
        this.pending.delete(id);
        throw new JobFailedError(`job queue unavailable: ${describeError(error)}`, 'queue_unavailable');
      }
      const reply = await until(answered, deadline, signal, () => new JobTimeoutError(`job ${jobType} timed out after ${timeoutMs} ms`));
      let envelope: JobEnvelope;
      try {
        const opened = await unpack<unknown>(this.options.blobs, reply);
        if (opened === null) throw new Error('the answer\'s claim is missing');
        envelope = asEnvelope(opened);
      } catch (error) {
        throw new JobFailedError(`answer unreadable: ${describeError(error)}`, 'worker_error');
      } finally {
        if (reply.claim) this.forget(reply.claim.key);
      }
      if (!envelope.ok) throw new JobFailedError(envelope.message, envelope.code, envelope.details);
      return envelope.result as O;
    } finally {
      this.pending.delete(id);
      this.inFlight--;
      this.completed++;
      // The job has ended for its caller: its input is needed no more (a worker taking it now finds the
      // claim gone, or its deadline passed, and drops it).
      if (claimKey) this.forget(claimKey);
    }
  }

  /**
   * Deletes a claim off the caller's path (an S3 delete is two round trips: 4-5 ms each measured on MinIO);
   * `close()` waits for the deletions under way. A failed one is left to the sweep.
   */
  private forget(key: string): void {
    const deletion = this.options.blobs.delete(key).then(
      () => undefined,
      (err: unknown) => this.log.warn({ err: describeError(err) }, 'kafka job queue: claim not deleted (the sweep will)'),
    );
    this.deletions.add(deletion);
    void deletion.finally(() => this.deletions.delete(deletion));
  }

  /** Claims being deleted now ({@link forget}). */
  private readonly deletions = new Set<Promise<void>>();

  /** Resolves once every claim deletion started so far has finished (tests; `close()`). */
  async settled(): Promise<void> {
    while (this.deletions.size > 0) await Promise.allSettled([...this.deletions]);
  }

  private failPending(error: Error): void {
    for (const [id, waiting] of this.pending) {
      this.pending.delete(id);
      waiting.reject(error);
    }
  }

  /** The workers group's lag on `<prefix>.jobs`: read at most every 250 ms (a bound on the backlog, not an exact count). */
  private readBacklog(): Promise<number> {
    if (Date.now() - this.backlog.at <= 250) return Promise.resolve(this.backlog.value);
    this.backlog.reading ??= (async () => {
      try {
        const topic = this.names.jobs;
        const [ends, starts] = await Promise.all([this.probe.listOffsets({ topics: [topic] }), this.probe.listOffsets({ topics: [topic], timestamp: -2n })]);
        const end = ends.get(topic) ?? [];
        const committed = (await this.probe.listCommittedOffsets({ topics: [{ topic, partitions: end.map((_, i) => i) }] })).get(topic) ?? [];
        let lag = 0n;
        end.forEach((e, p) => {
          const from = resumeOffset(committed[p] ?? -1n) ?? starts.get(topic)?.[p] ?? 0n;
          if (e > from) lag += e - from;
        });
        this.backlog.value = Number(lag);
        this.backlog.at = Date.now();
        return this.backlog.value;
      } finally {
        this.backlog.reading = null;
      }
    })();
    return this.backlog.reading;
  }

  /** Answers that reached this process for no waiting call (jobs answered twice, or after their deadline). */
  get duplicateReplies(): number {
    return this.duplicates;
  }

  /**
   * `queued`: the last backlog read (the workers group's lag); `running`: this process's calls in flight;
   * `workers`: members of the workers group (read in the background, at most every 2 s).
   */
  stats() {
    if (Date.now() - this.workers.at > 2000 && !this.closed) {
      this.workers.at = Date.now();
      void this.admin
        .describeGroups({ groups: [this.names.workersGroup] })
        .then((groups) => {
          this.workers.value = groups.get(this.names.workersGroup)?.members.size ?? 0;
        })
        .catch(() => undefined);
      void this.readBacklog().catch(() => undefined);
    }
    return { queued: this.backlog.value, running: this.inFlight, completed: this.completed, workers: this.workers.value };
  }

  /**
   * Deletes what dead processes left: claims whose deadline passed a minute ago, and reply topics (with their
   * group) created more than 10 minutes ago whose group has no member. Never throws.
   */
  private async sweep(): Promise<void> {
    try {
      const now = Date.now();
      for (const key of await this.options.blobs.list(this.names.claimsPrefix)) {
        if (claimExpired(this.names, key, now, SWEEP_GRACE_MS)) await this.options.blobs.delete(key);
      }
      const stale = (await this.admin.listTopics()).filter((t) => {
        if (!t.startsWith(this.names.repliesPrefix) || t === this.replyTopic) return false;
        const created = parseInt(t.slice(this.names.repliesPrefix.length).split('-')[0] ?? '', 36);
        return Number.isFinite(created) && created + STALE_REPLY_TOPIC_MS < now;
      });
      if (stale.length === 0) return;
      const groups = await this.admin.describeGroups({ groups: stale });
      const orphans = stale.filter((t) => (groups.get(t)?.members.size ?? 0) === 0);
      if (orphans.length === 0) return;
      await this.admin.deleteTopics({ topics: orphans });
      await this.admin.deleteGroups({ groups: orphans }).catch(() => undefined);
      this.log.info({ topics: orphans.length }, 'kafka job queue: deleted the reply topics of processes that are gone');
    } catch (err) {
      this.log.warn({ err: describeError(err) }, 'kafka job queue: sweep failed; next one in 10 minutes');
    }
  }

  private async closeReplies(): Promise<void> {
    const stream = this.replyStream;
    const consumer = this.replyConsumer;
    this.replyStream = null;
    this.replyConsumer = null;
    if (stream) await withTimeout(stream.close(), 5000, 'reply stream close timed out').catch(() => undefined);
    if (consumer) await withTimeout(closeConsumer(consumer), 5000, 'reply consumer close timed out').catch(() => undefined);
  }

  /** Fails the calls still waiting (`queue_unavailable`), deletes this process's reply topic and group, closes the clients. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.sweeper) clearInterval(this.sweeper);
    this.failPending(new JobFailedError('job queue closed', 'queue_unavailable'));
    if (this.starting) await withTimeout(this.starting, 5000, 'start did not settle').catch(() => undefined);
    await this.closeReplies();
    await this.settled();
    if (this.opened) {
      await withTimeout(this.admin.deleteTopics({ topics: [this.replyTopic] }), 5000, 'reply topic deletion timed out').catch((err: unknown) => {
        if (!isProtocolError(err, 'UNKNOWN_TOPIC_OR_PARTITION')) this.log.warn({ err: describeError(err) }, 'kafka job queue: reply topic not deleted (a later sweep will)');
      });
      await withTimeout(this.admin.deleteGroups({ groups: [this.replyTopic] }), 5000, 'reply group deletion timed out').catch(() => undefined);
    }
    for (const client of [this.producer, this.probe, this.admin]) await withTimeout(client.close(), 5000, 'client close timed out').catch(() => undefined);
  }
}

/** Settles like `answered`, or rejects with `timeout()` at `deadline` (epoch ms), or with `signal.reason` when it aborts. */
function until<T>(answered: Promise<T>, deadline: number, signal: AbortSignal | undefined, timeout: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const timer = setTimeout(() => {
      done();
      reject(timeout());
    }, Math.max(0, deadline - Date.now()));
    const onAbort = (): void => {
      done();
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    answered.then(
      (v) => {
        done();
        resolve(v);
      },
      (e: unknown) => {
        done();
        reject(e);
      },
    );
  });
}
