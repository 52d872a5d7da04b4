/**
 * The PDF threads of a process: MuPDF parsing, scanning and rendering of uploads (signing intake, page
 * images of the signing and preview pages) run here, never on the HTTP thread (issue 31, item 1).
 *
 * Why a pool of its own and not the job queue that runs face and OCR jobs: a job past its deadline keeps its
 * inference thread until it returns (terminating a thread inside onnxruntime's native code aborts the
 * process), so one costly PDF would hold a shared inference thread for minutes. MuPDF is WebAssembly: a
 * thread running it can be terminated at any instruction, so each task here gets a hard deadline that frees
 * its thread at once (CPU time of the thread, read from /proc on Linux, so a busy machine does not refuse a
 * legitimate file; wall time capped at {@link WALL_FACTOR} times it), and PDFs never compete with inference. The bytes also stay in the process (no 10 MB
 * message through Redis or a claim check for a synchronous upload).
 *
 * Scheduling: tasks wait in one queue per tenant; the next task is the one of the waiting tenant served
 * longest ago (round-robin across tenants), a tenant running at most half the threads (at least one) while
 * others wait, so a tenant uploading costly files
 * delays its own work, not other tenants'. A tenant with {@link PdfPoolOptions.maxWaitingPerTenant} tasks
 * waiting, or a task not started within `waitMs`, is refused with `pdf_busy` (503, Retry-After).
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { SigningError } from '../../domain/signing/errors.ts';
import type { PdfInfo } from '../../domain/signing/pdf.ts';
import type { HashJob, PdfEnvelope, PdfTask } from './pdf-thread.ts';
import type { EfirmaPrepareTask, EfirmaPrepared } from './efirma-pdf.ts';

/** The thread entry module (registers tsx, then loads `./pdf-thread.ts`). */
export const PDF_THREAD_ENTRY = fileURLToPath(new URL('./pdf-entry.mjs', import.meta.url));

export interface PdfPoolOptions {
  /** Threads; default: cores - 1 (one core stays with the HTTP thread), 1 to 4. */
  threads?: number;
  /** Deadline of an `inspect` task once started, in ms (default {@link INSPECT_DEADLINE_MS}). */
  inspectMs?: number;
  /** Deadline of a `render` task once started, in ms (default {@link RENDER_DEADLINE_MS}). */
  renderMs?: number;
  /** Longest wait for a thread before `pdf_busy`, in ms (default 15 000). */
  waitMs?: number;
  /** Most tasks of one tenant waiting at once (default 8). */
  maxWaitingPerTenant?: number;
  /** Thread entry module (default {@link PDF_THREAD_ENTRY}). */
  workerFile?: string;
}

/**
 * Deadline of judging an upload (ms): MuPDF opens the file, looks through every object and extracts the
 * text of every page. Within the content bound (`MAX_CONTENT_BYTES`, about 2 s of scanning) a 200-page
 * contract takes 1-3 s here.
 */
export const INSPECT_DEADLINE_MS = 10_000;
/** Deadline of rendering one page image (ms): an A4 page renders in 50-300 ms here. */
export const RENDER_DEADLINE_MS = 5_000;
/** Longest start-up of a new PDF thread (ms) before its task is answered `pdf_busy`. */
export const STARTUP_LIMIT_MS = 60_000;
/** Wall-clock cap of a task, as a multiple of its (CPU-time) deadline. */
export const WALL_FACTOR = 3;
/** How often a running task's CPU time is read (ms). */
const CPU_POLL_MS = 100;

/**
 * CPU time (user + system, ms) of thread `tid` of this process, from `/proc/self/task/<tid>/stat` (fields 14
 * and 15, in clock ticks of 10 ms: USER_HZ is 100 on Linux); null when unreadable (not Linux, thread gone).
 */
export function threadCpuMs(tid: number): number | null {
  if (!(tid > 0)) return null;
  try {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'latin1');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(rest[11]) + Number(rest[12]);
    return Number.isFinite(ticks) ? ticks * 10 : null;
  } catch {
    return null;
  }
}

interface Waiting {
  task: PdfTask;
  tenantId: string;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  timer: NodeJS.Timeout;
}

/** MuPDF work with deadlines, fair across tenants (module comment). */
export class PdfPool {
  readonly threads: number;
  private readonly inspectMs: number;
  private readonly renderMs: number;
  private readonly waitMs: number;
  private readonly maxWaiting: number;
  private readonly perTenantRunning: number;
  private readonly workerFile: string;
  private pool: Piscina | null = null;
  private readonly queues = new Map<string, Waiting[]>();
  /** Tenants with waiting tasks. */
  private readonly ring: string[] = [];
  /** Start order of each tenant's last task (forgotten once it has nothing waiting or running). */
  private readonly lastStarted = new Map<string, number>();
  private startSeq = 0;
  private readonly runningOf = new Map<string, number>();
  private running = 0;
  private closed = false;

  constructor(options: PdfPoolOptions = {}) {
    this.threads = Math.max(1, Math.min(4, options.threads ?? availableParallelism() - 1));
    this.inspectMs = options.inspectMs ?? INSPECT_DEADLINE_MS;
    this.renderMs = options.renderMs ?? RENDER_DEADLINE_MS;
    this.waitMs = options.waitMs ?? 15_000;
    this.maxWaiting = options.maxWaitingPerTenant ?? 8;
    this.perTenantRunning = Math.max(1, Math.floor(this.threads / 2));
    this.workerFile = options.workerFile ?? PDF_THREAD_ENTRY;
  }

  /**
   * Judges an upload on a PDF thread (`inspectPdf`).
   * @throws SigningError as inspectPdf does; `pdf_too_complex` (422, `details.reason` `time_limit`) past the
   *   deadline; `pdf_busy` (503) when no thread is free in time
   */
  inspect(tenantId: string, bytes: Uint8Array): Promise<PdfInfo> {
    return this.submit(tenantId, { op: 'inspect', bytes }) as Promise<PdfInfo>;
  }

  /**
   * Renders page `index` (0-based) to PNG on a PDF thread (`renderPagePng`).
   * @throws SigningError as {@link inspect}; `pdf_corrupted` when the page cannot be rendered
   */
  async render(tenantId: string, bytes: Uint8Array, index: number, scale: number): Promise<Buffer> {
    const png = (await this.submit(tenantId, { op: 'render', bytes, index, scale })) as Uint8Array;
    return Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  }

  /**
   * Digests of byte ranges of `bytes` on a PDF thread (verify's signatures: tens of MB of SHA-256 stay off
   * the HTTP thread). One result per job, in order.
   * @throws SigningError `pdf_busy`, or `pdf_too_complex` past the inspect deadline
   */
  async hash(tenantId: string, bytes: Uint8Array, jobs: HashJob[]): Promise<Buffer[]> {
    if (jobs.length === 0) return [];
    const out = (await this.submit(tenantId, { op: 'hash', bytes, jobs })) as Uint8Array[];
    return out.map((d) => Buffer.from(d.buffer, d.byteOffset, d.byteLength));
  }

  /**
   * e.firma (issue 29): the signer's signature placeholder appended to `bytes` (made an incremental base
   * first when `base`), on a PDF thread with the inspect deadline.
   * @throws SigningError `pdf_busy`, `pdf_too_complex`, `invalid_placement`
   */
  async efirmaPrepare(tenantId: string, task: Omit<EfirmaPrepareTask, 'op'>): Promise<{ pdf: Buffer; byteRange: [number, number, number, number]; digest: Buffer }> {
    const r = (await this.submit(tenantId, { op: 'efirma-prepare', ...task })) as EfirmaPrepared;
    return { pdf: Buffer.from(r.pdf.buffer, r.pdf.byteOffset, r.pdf.byteLength), byteRange: r.byteRange, digest: Buffer.from(r.digest.buffer, r.digest.byteOffset, r.digest.byteLength) };
  }

  /** e.firma: the CMS written into a prepared placeholder, on a PDF thread. @throws SigningError `pdf_busy` */
  async efirmaEmbed(tenantId: string, p: { pdf: Buffer; byteRange: [number, number, number, number]; digest: Buffer }, cms: Buffer): Promise<Buffer> {
    const out = (await this.submit(tenantId, { op: 'efirma-embed', bytes: p.pdf, byteRange: p.byteRange, digest: p.digest, cms })) as Uint8Array;
    return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  }

  /** Tasks waiting and running (for tests and benchmarks). */
  stats(): { waiting: number; running: number } {
    let waiting = 0;
    for (const q of this.queues.values()) waiting += q.length;
    return { waiting, running: this.running };
  }

  /** Refuses new tasks, fails the waiting ones with `pdf_busy` and stops the threads. */
  async close(): Promise<void> {
    this.closed = true;
    for (const q of this.queues.values()) for (const w of q.splice(0)) this.fail(w, busy('the service is stopping'));
    this.ring.length = 0;
    const pool = this.pool;
    this.pool = null;
    await pool?.destroy();
  }

  private submit(tenantId: string, task: PdfTask): Promise<unknown> {
    if (this.closed) return Promise.reject(busy('the service is stopping'));
    const queue = this.queues.get(tenantId) ?? [];
    if (queue.length >= this.maxWaiting) return Promise.reject(busy(`${queue.length} PDFs of this account are already waiting`));
    return new Promise((resolve, reject) => {
      const entry: Waiting = {
        task,
        tenantId,
        resolve,
        reject,
        timer: setTimeout(() => {
          const q = this.queues.get(tenantId);
          const i = q?.indexOf(entry) ?? -1;
          if (i < 0) return;
          q!.splice(i, 1);
          this.dropIfEmpty(tenantId);
          this.fail(entry, busy(`no PDF thread was free within ${this.waitMs} ms`));
        }, this.waitMs),
      };
      queue.push(entry);
      this.queues.set(tenantId, queue);
      if (!this.ring.includes(tenantId)) this.ring.push(tenantId);
      this.pump();
    });
  }

  private fail(w: Waiting, error: unknown): void {
    clearTimeout(w.timer);
    w.reject(error);
  }

  private dropIfEmpty(tenantId: string): void {
    if ((this.queues.get(tenantId)?.length ?? 0) > 0) return;
    this.queues.delete(tenantId);
    const i = this.ring.indexOf(tenantId);
    if (i >= 0) this.ring.splice(i, 1);
  }

  /**
   * Starts waiting tasks while threads are free: next is the waiting tenant whose last task started longest
   * ago (or never), skipping one already running its share of the threads while others wait.
   */
  private pump(): void {
    while (this.running < this.threads && this.ring.length > 0) {
      const othersWaiting = this.ring.length > 1;
      let pick: string | null = null;
      for (const tenantId of this.ring) {
        if (othersWaiting && (this.runningOf.get(tenantId) ?? 0) >= this.perTenantRunning) continue;
        if (pick === null || (this.lastStarted.get(tenantId) ?? -1) < (this.lastStarted.get(pick) ?? -1)) pick = tenantId;
      }
      if (pick === null) return;
      const entry = this.queues.get(pick)!.shift()!;
      this.dropIfEmpty(pick);
      clearTimeout(entry.timer);
      this.lastStarted.set(pick, ++this.startSeq);
      this.start(entry);
    }
  }

  private start(entry: Waiting): void {
    this.running += 1;
    this.runningOf.set(entry.tenantId, (this.runningOf.get(entry.tenantId) ?? 0) + 1);
    const deadline = entry.task.op === 'render' ? this.renderMs : this.inspectMs;
    const controller = new AbortController();
    // The deadline runs from the moment the thread begins the task (it flags `started`), not from the post:
    // a new thread first loads tsx and MuPDF. A thread that has not begun within STARTUP_LIMIT_MS is stopped
    // and the task answered `pdf_busy`.
    const started = new Int32Array(new SharedArrayBuffer(4));
    let timer: ReturnType<typeof setInterval> | undefined;
    let beganRunning = false;
    let done = false;
    const waiting = waitAsync(started, 0, 0, STARTUP_LIMIT_MS);
    void Promise.resolve(waiting.value).then((outcome) => {
      if (done) return;
      if (outcome === 'timed-out') {
        controller.abort();
        return;
      }
      beganRunning = true;
      // The deadline is CPU time of the thread (Linux: /proc), so a legitimate file is not refused because
      // the machine is busy; wall time is capped at WALL_FACTOR times the deadline all the same.
      const tid = Atomics.load(started, 0);
      const cpu0 = threadCpuMs(tid);
      const wall0 = Date.now();
      timer = setInterval(() => {
        const cpu = cpu0 === null ? null : threadCpuMs(tid);
        const wall = Date.now() - wall0;
        const used = cpu === null || cpu0 === null ? wall : cpu - cpu0;
        if (used > deadline || wall > deadline * WALL_FACTOR) controller.abort();
      }, CPU_POLL_MS);
    });
    // An aborted task's thread is terminated by piscina (and replaced on the next task).
    this.pool ??= new Piscina({ filename: this.workerFile, minThreads: 0, maxThreads: this.threads, idleTimeout: 60_000, maxQueue: 'auto' });
    // The thread's slot is given back before the caller hears the answer, so a caller that submits again
    // at once finds it free.
    const release = () => {
      done = true;
      clearInterval(timer);
      // wake the start-up wait if the task ended without flagging (a thread that died while loading)
      Atomics.notify(started, 0);
      this.running -= 1;
      const n = (this.runningOf.get(entry.tenantId) ?? 1) - 1;
      if (n > 0) this.runningOf.set(entry.tenantId, n);
      else this.runningOf.delete(entry.tenantId);
      if (n <= 0 && !this.queues.has(entry.tenantId)) this.lastStarted.delete(entry.tenantId);
    };
    this.pool.run({ ...entry.task, started }, { signal: controller.signal }).then(
      (envelope: PdfEnvelope) => {
        release();
        if (envelope.ok) entry.resolve(envelope.result);
        else if (envelope.code) entry.reject(new SigningError(envelope.code as never, envelope.message, envelope.details ?? {}));
        else entry.reject(new SigningError('pdf_corrupted', `The file is not a usable PDF: ${envelope.message.slice(0, 160)}`, { reason: 'processing failed' }));
        this.pump();
      },
      (error: unknown) => {
        release();
        if (controller.signal.aborted && !beganRunning) {
          entry.reject(busy(`a PDF thread did not start within ${STARTUP_LIMIT_MS} ms`));
        } else if (controller.signal.aborted) {
          entry.reject(
            new SigningError('pdf_too_complex', `The PDF is too costly to process: ${entry.task.op === 'render' ? 'rendering a page' : 'reading it'} took more than ${deadline} ms of processing`, {
              reason: 'time_limit',
              operation: entry.task.op,
              limit_ms: deadline,
            }),
          );
        } else {
          entry.reject(new SigningError('pdf_busy', 'The PDF could not be processed now; try again later', { reason: (error as Error)?.message?.slice(0, 160) ?? 'thread failed' }));
        }
        this.pump();
      },
    );
  }
}

/** `Atomics.waitAsync` (Node 16+; ES2024, newer than this project's `lib`). */
const waitAsync = (Atomics as unknown as {
  waitAsync(array: Int32Array, index: number, value: number, timeoutMs: number): { async: boolean; value: Promise<'ok' | 'timed-out'> | 'not-equal' | 'timed-out' };
}).waitAsync;

function busy(why: string): SigningError {
  return new SigningError('pdf_busy', `The PDF threads are busy (${why}); try again shortly`, { reason: why });
}
