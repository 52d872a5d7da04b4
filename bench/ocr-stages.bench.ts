/**
 * Per-stage CPU time of the OCR jobs, in-process (the worker's job handlers, one job at a time, as one pool
 * worker runs them): INE front (`ocr.readPage` kind `ineFront`), INE back (kind `back`) and bills
 * (`ocr.extractDocument`), on degraded synthetic documents. CPU is `process.cpuUsage()` (every thread of
 * the process, so the Tesseract worker thread counts), taken around each stage; the machine's load does not
 * inflate it the way it inflates wall time. Stages are attributed by wrapping the engines' methods:
 * detection (`PaddleOcr.detect`), recognition (`PaddleOcr.recognizeMatrices` and `recognizeGreedy`: crops + ONNX run), the
 * Tesseract (`TesseractLineReader.readLine`, including the PNG encoding); `other` is the rest of the job
 * (intake, the direction classifier, layout, parsing). A stage's window runs from its first call to the end
 * of its last concurrent call; calls into another stage inside an open window count in that window (a
 * bill's bar-code recognitions run beside its Tesseract reads: they count in the window opened first).
 * `--rec-threads 1 --tesseract-workers 1` gives the sequential split (the CPU is the same either way). The
 * CPU of each thread (`/proc/self/task`, Linux) shows how the work spreads over the threads: on a loaded
 * machine wall time cannot show it (the scheduler gives a process group its share whatever its threads).
 *
 *   node --import tsx bench/ocr-stages.bench.ts [--count 6] [--seed bench] [--start 1] [--rec-batch N] [--threads N] [--rec-threads N] [--tesseract-workers N]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { handlers } from '../models/ocr/jobs.ts';
import { PaddleOcr } from '../models/ocr/paddle.ts';
import { setOcrSettings } from '../models/ocr/settings.ts';
import { TesseractLineReader } from '../models/ocr/tesseract.ts';
import { generateDocument } from '../test/generators/index.ts';

const { values: args } = parseArgs({
  options: {
    count: { type: 'string', default: '6' },
    start: { type: 'string', default: '1' },
    seed: { type: 'string', default: 'bench' },
    'rec-batch': { type: 'string' },
    threads: { type: 'string' },
    'rec-threads': { type: 'string' },
    'tesseract-workers': { type: 'string' },
  },
});
if (args['rec-batch']) setOcrSettings({ recBatch: Number(args['rec-batch']) });
if (args.threads) setOcrSettings({ onnxThreads: Number(args.threads) });
if (args['rec-threads']) setOcrSettings({ recThreads: Number(args['rec-threads']) });
if (args['tesseract-workers']) setOcrSettings({ tesseractWorkers: Number(args['tesseract-workers']) });
const count = Number(args.count);
const start = Number(args.start);

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
/** CPU ms of each thread of this process (`/proc/self/task/<tid>/stat` utime + stime, 10 ms ticks). */
function threadCpu(): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of readdirSync('/proc/self/task')) {
    try {
      const f = readFileSync(`/proc/self/task/${t}/stat`, 'utf8').split(') ')[1]!.split(' ');
      out.set(t, (Number(f[11]) + Number(f[12])) * 10);
    } catch {
      // the thread ended
    }
  }
  return out;
}

let stages: Record<string, number> = {};
// The open stage window: from the first call into a stage until its last concurrent call returns. Calls into
// any stage while a window is open count in that window (the first stage entered wins).
let open: { stage: string; calls: number; c0: number } | null = null;
function wrap<T extends object>(proto: T, method: keyof T & string, stage: string): void {
  const orig = proto[method] as unknown as (...a: unknown[]) => Promise<unknown>;
  (proto as Record<string, unknown>)[method] = async function (this: unknown, ...a: unknown[]) {
    if (open && open.stage !== stage) return orig.apply(this, a);
    open ??= { stage, calls: 0, c0: cpuMs() };
    const w = open;
    w.calls++;
    try {
      return await orig.apply(this, a);
    } finally {
      if (--w.calls === 0) {
        stages[stage] = (stages[stage] ?? 0) + cpuMs() - w.c0;
        open = null;
      }
    }
  };
}
wrap(PaddleOcr.prototype, 'detect', 'detect');
wrap(PaddleOcr.prototype, 'recognizeMatrices', 'recognize');
wrap(PaddleOcr.prototype, 'recognizeGreedy', 'recognize');
wrap(TesseractLineReader.prototype, 'readLine', 'tesseract');

const today = '2026-06-01';
const cases = {
  ineFront: async (i: number) => {
    const d = await generateDocument({ type: 'ine', seed: args.seed, index: i, degrade: true });
    return () => handlers['ocr.readPage']({ image: new Uint8Array(d.images.front!.data), kind: 'ineFront' });
  },
  ineBack: async (i: number) => {
    const d = await generateDocument({ type: 'ine', seed: args.seed, index: i, degrade: true });
    return () => handlers['ocr.readPage']({ image: new Uint8Array(d.images.back!.data), kind: 'back' });
  },
  bill: async (i: number) => {
    const types = ['electricity_bill', 'phone_bill', 'cable_bill'] as const;
    const d = await generateDocument({ type: types[i % 3]!, seed: args.seed, index: i, degrade: true });
    return () => handlers['ocr.extractDocument']({ image: new Uint8Array(d.images.front!.data), documentType: d.truth.type as (typeof types)[number], today });
  },
};

console.log(`OCR stage CPU (ms per page, mean of ${count}, documents ${start}-${start + count - 1} of seed ${args.seed}), load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
// Warm-up: load every engine once.
for (const make of Object.values(cases)) await (await make(0))();
for (const [name, make] of Object.entries(cases)) {
  const sum: Record<string, number> = {};
  let total = 0;
  let wall = 0;
  const perThread = new Map<string, number>();
  for (let i = start; i < start + count; i++) {
    const run = await make(i);
    stages = {};
    const c0 = cpuMs();
    const th0 = threadCpu();
    const t0 = performance.now();
    await run();
    wall += performance.now() - t0;
    for (const [t, v] of threadCpu()) perThread.set(t, (perThread.get(t) ?? 0) + v - (th0.get(t) ?? 0));
    const job = cpuMs() - c0;
    total += job;
    stages.other = job - Object.values(stages).reduce((a, b) => a + b, 0);
    for (const [k, v] of Object.entries(stages)) sum[k] = (sum[k] ?? 0) + v;
  }
  const parts = Object.entries(sum).map(([k, v]) => `${k} ${(v / count).toFixed(0)}`).join('  ');
  console.log(`  ${name.padEnd(9)} total ${(total / count).toFixed(0)} CPU-ms (wall ${(wall / count).toFixed(0)} ms): ${parts}`);
  // How the CPU spread over threads: the job's own thread first, then the busiest others (helper, Tesseract, ONNX).
  const own = perThread.get(String(process.pid)) ?? 0;
  const others = [...perThread].filter(([t, v]) => t !== String(process.pid) && v >= 10 * count).map(([, v]) => v).sort((a, b) => b - a);
  console.log(`            per thread (CPU-ms per page): job thread ${(own / count).toFixed(0)}; others ${others.map((v) => (v / count).toFixed(0)).join(' ')}`);
}
console.log(`load average at end ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
process.exit(0);
