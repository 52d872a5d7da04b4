/**
 * The Kafka client choice (issue 27, item 3), measured against the pinned broker (Kafka 4.1.1, KRaft,
 * `npm run engines -- up kafka`): for kafkajs 2.2.4 and @platformatic/kafka 1.22.0 in turn, the same
 * request/reply exchange the job-queue adapter needs, with real worker processes:
 *
 * 1. create a 2-partition job topic and a 1-partition reply topic (the client's admin API);
 * 2. start two worker processes in one consumer group (each reads jobs, produces a reply, then commits
 *    the job's offset) and time their group join;
 * 3. per-job round trip: `--jobs` sequential jobs producer -> broker -> worker -> broker -> reply consumer
 *    (p50, p99);
 * 4. rebalance after SIGKILL: one slow job (2 s) per partition; the worker running the first is killed
 *    (SIGKILL) as it starts it; time from the kill to that job's reply from the other worker, minus the job's
 *    own 2 s, is the rebalance delay (session timeout 6 s, the broker's minimum); every job must be answered;
 * 5. the offsets committed, as the broker reports them (a standard consumer resumes at the committed offset:
 *    a group that processed everything shows lag 0);
 * 6. an unreachable broker (127.0.0.1:1): how long `send` takes to fail;
 * 7. with `--broker-restart`: a broker restart under a running consumer and producer. A private broker
 *    (this run's own, started by `scripts/engines.ts` on free ports with its own state directory, never the
 *    shared one) is stopped for `--down-seconds` (default 5) and started again; does the same consumer consume, and the same producer
 *    produce, afterwards?
 *
 *   node --import tsx bench/kafka-clients.bench.ts [--client kafkajs|platformatic|both] [--jobs 200]
 *        [--broker-restart [--down-seconds 5]] [--only-restart] [--plt-retries N]
 *   (KAFKA_BROKERS, default 127.0.0.1:9092)
 *
 * Prints one block of figures per client. The worker role of this same file is started with `--role worker`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import kafkajs from 'kafkajs';
import { Admin, Consumer, Producer } from '@platformatic/kafka';

const { values } = parseArgs({
  options: {
    client: { type: 'string', default: 'both' },
    jobs: { type: 'string', default: '200' },
    role: { type: 'string' },
    'broker-restart': { type: 'boolean', default: false },
    'down-seconds': { type: 'string', default: '5' },
    'only-restart': { type: 'boolean', default: false },
    'plt-retries': { type: 'string' },
    topic: { type: 'string' },
    reply: { type: 'string' },
    group: { type: 'string' },
  },
});
const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
type ClientName = 'kafkajs' | 'platformatic';
const SESSION_TIMEOUT_MS = 6000;
const HEARTBEAT_MS = 1000;

/** One message as both clients hand it over. */
interface Msg { partition: number; offset: string; value: Buffer }

/** The minimum the exchange needs from a client. */
interface Client {
  createTopic(topic: string, partitions: number): Promise<void>;
  send(topic: string, value: Buffer, partition?: number): Promise<void>;
  /** Consumes `topic` in `group`; `handle` runs one message at a time per partition, then its offset is committed. */
  consume(topic: string, group: string, fromLatest: boolean, handle: (m: Msg) => Promise<void>): Promise<void>;
  committed(topic: string, group: string, partitions: number): Promise<string[]>;
  endOffsets(topic: string): Promise<string[]>;
  /** Deletes topics and consumer groups (this run's own). */
  remove(topics: string[], groups: string[]): Promise<void>;
  close(): Promise<void>;
}

function kafkajsClient(clientId: string, brokerList = brokers, quick = false): Client {
  const kafka = new kafkajs.Kafka({
    clientId,
    brokers: brokerList,
    logLevel: kafkajs.logLevel.NOTHING,
    ...(quick ? { connectionTimeout: 1000, retry: { retries: 0 } } : {}),
  });
  const producer = kafka.producer({ createPartitioner: kafkajs.Partitioners.DefaultPartitioner });
  const admin = kafka.admin();
  const consumers: kafkajs.Consumer[] = [];
  let connected: Promise<void> | null = null;
  const connect = () => (connected ??= Promise.all([producer.connect(), admin.connect()]).then(() => undefined));
  return {
    async createTopic(topic, partitions) {
      await connect();
      await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true });
    },
    async send(topic, value, partition) {
      await connect();
      await producer.send({ topic, messages: [{ value, partition }] });
    },
    async consume(topic, group, fromLatest, handle) {
      const consumer = kafka.consumer({ groupId: group, sessionTimeout: SESSION_TIMEOUT_MS, heartbeatInterval: HEARTBEAT_MS, rebalanceTimeout: SESSION_TIMEOUT_MS });
      consumers.push(consumer);
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: !fromLatest });
      const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
      await consumer.run({
        autoCommit: false,
        partitionsConsumedConcurrently: 4,
        eachMessage: async ({ partition, message }) => {
          await handle({ partition, offset: message.offset, value: message.value! });
          // The standard convention: the committed offset is the next one to read.
          await consumer.commitOffsets([{ topic, partition, offset: String(BigInt(message.offset) + 1n) }]);
        },
      });
      await joined;
    },
    async committed(topic, group) {
      await connect();
      const [t] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
      return t!.partitions.sort((a, b) => a.partition - b.partition).map((p) => p.offset);
    },
    async endOffsets(topic) {
      await connect();
      return (await admin.fetchTopicOffsets(topic)).sort((a, b) => a.partition - b.partition).map((p) => p.high);
    },
    async remove(topics, groups) {
      await connect();
      await admin.deleteTopics({ topics }).catch(() => undefined);
      await admin.deleteGroups(groups).catch(() => undefined);
    },
    async close() {
      for (const c of consumers) await c.disconnect();
      await producer.disconnect();
      await admin.disconnect();
    },
  };
}

function platformaticClient(clientId: string, brokerList = brokers, quick = false): Client {
  // `--plt-retries N`: the library's retries of a failed request (default 3, 1 s apart); its streams end once exhausted.
  const retries = values['plt-retries'] === undefined ? {} : { retries: Number(values['plt-retries']) };
  const base = { clientId, bootstrapBrokers: brokerList, ...(quick ? { connectTimeout: 1000, retries: 0 } : retries) };
  const producer = new Producer(base);
  const admin = new Admin(base);
  const consumers: Consumer[] = [];
  return {
    async createTopic(topic, partitions) {
      await admin.createTopics({ topics: [topic], partitions, replicas: 1 });
    },
    async send(topic, value, partition) {
      await producer.send({ messages: [{ topic, value, partition }] });
    },
    async consume(topic, group, fromLatest, handle) {
      const consumer = new Consumer({ ...base, groupId: group, sessionTimeout: SESSION_TIMEOUT_MS, heartbeatInterval: HEARTBEAT_MS, rebalanceTimeout: SESSION_TIMEOUT_MS });
      consumers.push(consumer);
      const stream = await consumer.consume({ topics: [topic], mode: 'committed', fallbackMode: fromLatest ? 'latest' : 'earliest', autocommit: false, maxWaitTime: 500 });
      void (async () => {
        for await (const m of stream) {
          await handle({ partition: m.partition, offset: String(m.offset), value: m.value });
          // 1.22.0's message.commit() commits the message's own offset (fixed to offset + 1 in 1.24.0, #196).
          await m.commit();
        }
      })().catch((e: unknown) => console.log(`platformatic stream ended with ${(e as Error).name}: ${(e as Error).message.slice(0, 160)} at ${new Date().toISOString()}`));
    },
    async committed(topic, group, partitions) {
      const probe = new Consumer({ ...base, groupId: group });
      try {
        const offsets = await probe.listCommittedOffsets({ topics: [{ topic, partitions: Array.from({ length: partitions }, (_, i) => i) }] });
        return (offsets.get(topic) ?? []).map(String);
      } finally {
        await probe.close();
      }
    },
    async endOffsets(topic) {
      const probe = new Consumer({ ...base, groupId: `probe-${Date.now()}` });
      try {
        return ((await probe.listOffsets({ topics: [topic] })).get(topic) ?? []).map(String);
      } finally {
        await probe.close();
      }
    },
    async remove(topics, groups) {
      await admin.deleteTopics({ topics }).catch(() => undefined);
      await admin.deleteGroups({ groups }).catch(() => undefined);
    },
    async close() {
      for (const c of consumers) await c.close(true);
      await producer.close();
      await admin.close();
    },
  };
}

const makeClient = (name: ClientName, id: string, list?: string[], quick?: boolean): Client =>
  name === 'kafkajs' ? kafkajsClient(id, list, quick) : platformaticClient(id, list, quick);

interface Job { id: number; sleepMs: number }
interface Reply { id: number; pid: number }

// --- parent role -------------------------------------------------------------------------------------------
async function main(): Promise<void> {
  const names: ClientName[] = values.client === 'both' ? ['kafkajs', 'platformatic'] : [values.client as ClientName];
  console.log(`brokers ${brokers.join(',')} | load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  for (const name of names) {
    try {
      if (values['only-restart']) {
        console.log(`\n== ${name} ==`);
        await brokerRestart(name);
      } else await measureClient(name);
    } catch (error) {
      console.log(`${name}: FAILED ${(error as Error).stack ?? String(error)}`);
    } finally {
      for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    }
  }
  process.exit(0);
}

/** Worker processes started by this run (killed when a client's measurement fails). */
const children: ChildProcess[] = [];

function startWorker(name: ClientName, topic: string, reply: string, group: string): { child: ChildProcess; lines: string[]; ready: Promise<number> } {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--role', 'worker', '--client', name, '--topic', topic, '--reply', reply, '--group', group], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const lines: string[] = [];
  const t0 = performance.now();
  const ready = new Promise<number>((resolve) => {
    child.stdout!.on('data', (d: Buffer) => {
      for (const l of d.toString().split('\n').filter(Boolean)) {
        lines.push(l);
        if (l === 'ready') resolve(performance.now() - t0);
      }
    });
  });
  return { child, lines, ready };
}

const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function measureClient(name: ClientName): Promise<void> {
  const tag = `${name}-${process.pid}-${Date.now().toString(36)}`;
  const topic = `bench-clients-jobs-${tag}`;
  const reply = `bench-clients-replies-${tag}`;
  const group = `bench-clients-workers-${tag}`;
  const client = makeClient(name, `bench-parent-${process.pid}`);
  console.log(`\n== ${name} ==`);
  await client.createTopic(topic, 2);
  await client.createTopic(reply, 1);
  const waiters = new Map<number, (r: Reply) => void>();
  const seen = new Map<number, number>();
  await client.consume(reply, `${group}-reply`, false, async (m) => {
    const r = JSON.parse(m.value.toString()) as Reply;
    seen.set(r.id, (seen.get(r.id) ?? 0) + 1);
    waiters.get(r.id)?.(r);
    waiters.delete(r.id);
  });
  const call = (job: Job, partition?: number): Promise<Reply> => {
    const answered = new Promise<Reply>((resolve) => waiters.set(job.id, resolve));
    return client.send(topic, Buffer.from(JSON.stringify(job)), partition).then(() => answered);
  };

  const w1 = startWorker(name, topic, reply, group);
  const w2 = startWorker(name, topic, reply, group);
  const joins = await Promise.all([w1.ready, w2.ready]);
  console.log(`group join of 2 worker processes (process start included): ${joins.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ')}`);

  let id = 0;
  for (let i = 0; i < 10; i++) await call({ id: ++id, sleepMs: 0 }); // warm-up: both workers assigned, connections open
  const lat: number[] = [];
  const jobs = Number(values.jobs);
  for (let i = 0; i < jobs; i++) {
    const t0 = performance.now();
    await call({ id: ++id, sleepMs: 0 });
    lat.push(performance.now() - t0);
  }
  console.log(`round trip (${jobs} sequential jobs): p50 ${pct(lat, 50).toFixed(2)} ms, p99 ${pct(lat, 99).toFixed(2)} ms`);

  // Rebalance after SIGKILL.
  const slowA = ++id;
  const slowB = ++id;
  const workers = [w1, w2];
  const startedA = new Promise<(typeof workers)[number]>((resolve) => {
    const timer = setInterval(() => {
      const w = workers.find((x) => x.lines.some((l) => l.startsWith(`start ${slowA} `)));
      if (w) {
        clearInterval(timer);
        resolve(w);
      }
    }, 5);
  });
  const answerA = call({ id: slowA, sleepMs: 2000 }, 0);
  const answerB = call({ id: slowB, sleepMs: 2000 }, 1);
  const victim = await startedA;
  const killedAt = performance.now();
  victim.child.kill('SIGKILL');
  const outcome = await Promise.race([
    answerA.then((r) => ({ r, ms: performance.now() - killedAt })),
    new Promise<null>((r) => setTimeout(() => r(null), 60_000)),
  ]);
  const b = await Promise.race([answerB, new Promise<null>((r) => setTimeout(() => r(null), 30_000))]);
  if (!outcome) console.log('rebalance after SIGKILL: the killed job was NOT answered within 60 s');
  else console.log(`rebalance after SIGKILL: killed job answered by pid ${outcome.r.pid} ${(outcome.ms / 1000).toFixed(2)} s after the kill, i.e. ${((outcome.ms - 2000) / 1000).toFixed(2)} s of rebalance (session timeout ${SESSION_TIMEOUT_MS / 1000} s); other job ${b ? 'answered' : 'NOT answered'}`);
  // Jobs answered by the survivor after the rebalance (it may re-run uncommitted ones: duplicates are expected).
  for (let i = 0; i < 10; i++) await call({ id: ++id, sleepMs: 0 });
  await new Promise((r) => setTimeout(r, 1500));
  const lost = Array.from({ length: id }, (_, i) => i + 1).filter((n) => !seen.has(n));
  const duplicates = [...seen.values()].filter((n) => n > 1).length;
  console.log(`jobs sent ${id}, answered ${id - lost.length}, lost ${lost.length}, answered twice ${duplicates}`);

  const survivor = workers.find((w) => w !== victim)!;
  survivor.child.kill('SIGTERM');
  await new Promise((r) => survivor.child.once('exit', r));
  const committed = await client.committed(topic, group, 2);
  const ends = await client.endOffsets(topic);
  console.log(`offsets committed by the group ${JSON.stringify(committed)}, partition ends ${JSON.stringify(ends)} -> lag a standard tool reports: ${committed.map((c, i) => Number(ends[i]) - Number(c)).join(', ')}`);
  await client.close();
  const cleaner = makeClient(name, `bench-cleanup-${process.pid}`);
  await cleaner.remove([topic, reply], [group, `${group}-reply`]);
  await cleaner.close();

  const unreachable = makeClient(name, 'bench-unreachable', ['127.0.0.1:1'], true);
  const t0 = performance.now();
  const error = await unreachable.send(topic, Buffer.from('x')).then(() => null, (e: unknown) => e as Error);
  console.log(`unreachable broker: send ${error ? `failed after ${(performance.now() - t0).toFixed(0)} ms (${error.name}: ${error.message.slice(0, 120)})` : 'did not fail'}`);
  await unreachable.close().catch(() => undefined);
  if (values['broker-restart']) await brokerRestart(name);
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });

/** Step 7: a private broker stopped for a while under a consumer and a producer of `name`, then started again. */
async function brokerRestart(name: ClientName): Promise<void> {
  const state = mkdtempSync(path.join(tmpdir(), 'sello-kafka-bench-'));
  const port = await freePort();
  const env = { ...process.env, SELLO_ENGINES_STATE: state, SELLO_KAFKA_PORT: String(port), SELLO_KAFKA_CONTROLLER_PORT: String(await freePort()) };
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const engines = (command: 'up' | 'down'): void => {
    const r = spawnSync(process.execPath, ['--no-warnings', '--import', 'tsx', 'scripts/engines.ts', command, 'kafka'], { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
    if (r.status !== 0) throw new Error(`engines ${command} kafka failed: ${r.stderr.toString().slice(-400)}`);
  };
  engines('up');
  const client = makeClient(name, `bench-restart-${process.pid}`, [`127.0.0.1:${port}`]);
  try {
    const topic = `bench-restart-${name}`;
    await client.createTopic(topic, 1);
    const got: string[] = [];
    await client.consume(topic, `bench-restart-${name}`, false, async (m) => void got.push(m.value.toString()));
    await client.send(topic, Buffer.from('before'));
    const until = async (what: string, ms: number): Promise<number | null> => {
      const t0 = performance.now();
      while (performance.now() - t0 < ms) {
        if (got.includes(what)) return performance.now() - t0;
        await new Promise((r) => setTimeout(r, 50));
      }
      return null;
    };
    if ((await until('before', 30_000)) === null) throw new Error('nothing consumed before the restart');
    engines('down');
    console.log(`broker stopped at ${new Date().toISOString()}`);
    await new Promise((r) => setTimeout(r, Number(values['down-seconds']) * 1000));
    engines('up');
    console.log(`broker started again at ${new Date().toISOString()}`);
    const t0 = performance.now();
    const sent = await client.send(topic, Buffer.from('after')).then(() => 'produced', (e: unknown) => `send failed (${(e as Error).message.slice(0, 100)})`);
    const consumedIn = await until('after', 60_000);
    console.log(`broker restart (down ${values['down-seconds']} s): same producer after restart: ${sent} in ${(performance.now() - t0).toFixed(0)} ms; same consumer: ${consumedIn === null ? 'consumed NOTHING within 60 s' : `consumed the new message ${(consumedIn / 1000).toFixed(1)} s after the send`}`);
  } finally {
    await Promise.race([client.close().catch(() => undefined), new Promise((r) => setTimeout(r, 5000))]);
    engines('down');
    rmSync(state, { recursive: true, force: true });
  }
}

// --- worker role ---------------------------------------------------------------------------------------
if (values.role === 'worker') {
  const client = makeClient(values.client as ClientName, `bench-worker-${process.pid}`);
  await client.consume(values.topic!, values.group!, false, async (m) => {
    const job = JSON.parse(m.value.toString()) as Job;
    if (job.sleepMs > 0) process.stdout.write(`start ${job.id} ${m.partition}\n`);
    if (job.sleepMs > 0) await new Promise((r) => setTimeout(r, job.sleepMs));
    await client.send(values.reply!, Buffer.from(JSON.stringify({ id: job.id, pid: process.pid } satisfies Reply)));
  });
  process.stdout.write('ready\n');
  process.on('SIGTERM', () => void client.close().then(() => process.exit(0)));
} else {
  await main();
}
