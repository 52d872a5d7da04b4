/**
 * The usage-writer thread of an API process (see `UsageWriterThread` in `./usage-writer.ts`): it
 * appends the usage batches the main thread posts (as `ApiCallsRecorded` events), with its own connection to the event
 * store, and runs the projections that read usage events (`usage-events`, `usage-analytics`; see
 * `readsUsageEvents`) against its own connection to the read models, so neither the SQLite writes
 * nor the projection of a call's usage event run on the thread that serves HTTP.
 *
 * It runs below the HTTP thread's priority (`SCHED_IDLE`, or `USAGE_WRITER_NICE`), back at the process's
 * priority while it lags more than a second behind the batches posted to it (see {@link Priority}).
 *
 * Messages in: `{ id, op: 'append', batch, postedAt }` (the calls as `UsageColumns`; epoch ms of the post), `{ id, op: 'catchUp' }`, `{ id, op: 'close' }`.
 * Answers: `{ id, ok: true }` or `{ id, ok: false, error }` (the message of the error).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readFileSync, readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { execFileSync } from 'node:child_process';
import type { Config } from '../api/config.ts';
import { createEventStore } from '../../infra/event-store/index.ts';
import { createReadModels } from '../../infra/read-models/index.ts';
import { ProjectionRunner } from '../../projections/runner.ts';
import { capabilities, projectionsOf } from '../capabilities/index.ts';
import { appendUsage, readsUsageEvents, type UsageColumns } from './usage-recorder.ts';
import type { VectorIndex } from '../../infra/ports/vector-index.ts';

type Message = { id: number; op: 'append'; batch: UsageColumns; postedAt: number } | { id: number; op: 'catchUp' } | { id: number; op: 'close' };

const config = (workerData as { config: Config }).config;

/** Lag behind the posted batches (ms) above which the thread returns to the HTTP thread's priority. */
const CATCH_UP_LAG_MS = 1000;
/** Lag under which it goes back to `USAGE_WRITER_NICE`. */
const RELAXED_LAG_MS = 200;

/**
 * This thread's scheduling priority (Linux), two states with hysteresis:
 * - relaxed, while it keeps up: the `SCHED_IDLE` policy (sched(7): the thread runs only where a core has
 *   nothing else to run, and the scheduler counts a core that runs only such threads as idle when it
 *   places a woken thread), or, with `USAGE_WRITER_IDLE=false` or without util-linux's `chrt`, nice
 *   `USAGE_WRITER_NICE` steps below the HTTP thread. On 2 cores under load the HTTP thread and its
 *   clients then take the cores first and this thread appends and projects in the gaps, in larger
 *   batches; with the policy, a client woken by a response no longer preempts the HTTP thread because
 *   the other core was busy with usage (issue 18, `bench/edge.bench.ts`);
 * - catching up, while a batch it takes up was posted more than {@link CATCH_UP_LAG_MS} before:
 *   `SCHED_OTHER` at the HTTP thread's priority, so its backlog (and the memory it holds) stays bounded.
 * On Linux `/proc/thread-self` names the calling thread's id, and setpriority(2) and
 * sched_setscheduler(2) (`chrt -p`) on a thread id apply to that thread alone. Returning from either
 * relaxed state needs CAP_SYS_NICE (root has it): a process without it never lowers the thread (it could
 * not bound the backlog), nor does one off Linux.
 */
class Priority {
  private readonly tid: number | null;
  /** The HTTP (main) thread's nice value, which this thread starts with. */
  private readonly base: number;
  private readonly relaxedNice: number;
  private readonly idlePolicy: boolean;
  private relaxed = false;

  /**
   * @param lower how far below the HTTP thread this thread runs while it keeps up (nice steps, capped at
   *   19) when it does not use `SCHED_IDLE`; 0 with `idle` false: never lowered
   * @param idle use `SCHED_IDLE` while it keeps up (where `chrt` is present)
   */
  constructor(lower: number, idle: boolean) {
    let tid: number | null = null;
    try {
      tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
      if (!Number.isInteger(tid) || tid <= 0) tid = null;
    } catch {
      tid = null; // not Linux
    }
    // Without CAP_SYS_NICE a lowered thread could not be raised back: stay at the HTTP thread's priority.
    this.tid = tid !== null && hasCapSysNice() ? tid : null;
    this.base = this.tid === null ? 0 : getPriority(process.pid);
    this.relaxedNice = Math.min(19, this.base + lower);
    this.idlePolicy = idle && this.tid !== null && chrt(['-p', String(this.tid)]);
    this.relax(true);
  }

  /** Called with the age (ms) of each batch as it is taken up. */
  observe(lagMs: number): void {
    if (lagMs > CATCH_UP_LAG_MS) this.relax(false);
    else if (lagMs < RELAXED_LAG_MS) this.relax(true);
  }

  private relax(relaxed: boolean): void {
    if (this.tid === null || relaxed === this.relaxed) return;
    const tid = String(this.tid);
    try {
      if (this.idlePolicy) {
        if (!chrt(relaxed ? ['--idle', '-p', '0', tid] : ['--other', '-p', '0', tid])) return;
        if (!relaxed) setPriority(this.tid, this.base);
      } else {
        if (this.relaxedNice === this.base) return;
        setPriority(this.tid, relaxed ? this.relaxedNice : this.base);
      }
      this.relaxed = relaxed;
    } catch {
      // not permitted: keep the current priority
    }
  }
}

/** Runs util-linux's `chrt` with `args` (sched_setscheduler(2) on a thread); false where it is missing or fails. */
function chrt(args: string[]): boolean {
  try {
    execFileSync('chrt', args, { stdio: 'ignore', timeout: 2000 });
    return true;
  } catch {
    return false;
  }
}
/**
 * True when this process holds CAP_SYS_NICE (capability 23, linux/capability.h) in its effective set,
 * read from `CapEff` in /proc/self/status; false where that cannot be read.
 */
function hasCapSysNice(): boolean {
  try {
    const hex = /^CapEff:\s*([0-9a-f]+)$/im.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return hex !== undefined && (BigInt(`0x${hex}`) & (1n << 23n)) !== 0n;
  } catch {
    return false;
  }
}
const priority = new Priority(config.USAGE_WRITER_NICE ?? 0, config.USAGE_WRITER_IDLE ?? true);
// The projections below read back every usage event this thread appends: they get them from memory
// (neither they nor `appendUsage` modify events), not from a query and a JSON parse each (issue 18).
const events = createEventStore(config, { recentAppends: 4000 });
const readModels = createReadModels(config);
const projections = projectionsOf(capabilities).filter(readsUsageEvents);
const noVectorIndex = new Proxy({} as VectorIndex, {
  get() {
    throw new Error('a projection of usage events may not use the vector index (it runs on the usage-writer thread)');
  },
});
const runner = new ProjectionRunner(events, projections, { store: readModels, vectorIndex: noVectorIndex }, (name, error) =>
  parentPort!.postMessage({ id: 0, ok: false, error: `projection ${name} failed: ${(error as Error).message}` }),
);
await runner.start();

const port = parentPort!;
port.on('message', (m: Message) => {
  void (async () => {
    try {
      if (m.op === 'append') {
        priority.observe(Date.now() - m.postedAt);
        await appendUsage(events, m.batch);
      }
      else if (m.op === 'catchUp') await runner.catchUp();
      else {
        await runner.stop();
        await readModels.close();
        await events.close();
        port.postMessage({ id: m.id, ok: true });
        port.close();
        return;
      }
      port.postMessage({ id: m.id, ok: true });
    } catch (error) {
      port.postMessage({ id: m.id, ok: false, error: (error as Error).message });
    }
  })();
});
port.postMessage({ id: -1, ok: true }); // ready
