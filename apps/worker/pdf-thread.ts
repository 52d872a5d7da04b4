/**
 * A PDF thread of {@link PdfPool} (`./pdf-pool.ts`): runs one task at a time, `inspect` (judge an upload:
 * `domain/signing/pdf.ts` inspectPdf), `render` (a page to PNG: renderPagePng) or `hash` (the digests that
 * `POST /v1/signing/verify` compares: byte ranges hashed in place), and answers with an
 * envelope so a coded signing error (`code`, `details`) survives the thread boundary. The pool terminates
 * this thread when a task passes its deadline: MuPDF is WebAssembly, so nothing native is left half-done.
 */
import { failureEnvelope, type FailureEnvelope } from './envelope.ts';
import { createHash } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { inspectPdf, loadMupdf, renderPagePng, type PdfInfo } from '../../domain/signing/pdf.ts';
import { runEfirmaPdfTask, type EfirmaEmbedTask, type EfirmaPrepareTask, type EfirmaPrepared } from './efirma-pdf.ts';

/**
 * Nice value of a PDF thread (Linux: a thread has its own, set through its thread id). PDF work yields the
 * CPU to the HTTP thread and to inference: on a machine with fewer spare cores than PDF threads, a costly PDF
 * then slows its own tenant's upload rather than every tenant's calls.
 */
export const PDF_THREAD_NICE = 10;

/** This thread's Linux thread id, or -1 (no /proc): the pool reads its CPU time from /proc. */
let threadId = -1;
try {
  const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  if (Number.isInteger(tid) && tid > 0) threadId = tid;
} catch {
  // not Linux
}
try {
  if (threadId > 0) setPriority(threadId, PDF_THREAD_NICE);
} catch {
  // not permitted: the thread keeps the process's priority
}

/**
 * A task as the pool posts it. `started` (an Int32Array over a SharedArrayBuffer, one slot, 0 until then) is
 * set to this thread's id (-1 when unknown) and notified when this thread begins the task: the pool's
 * deadline counts from there, so the start-up of a new thread (loading tsx, MuPDF's WebAssembly and pdf-lib,
 * seconds on a loaded machine) is not charged to the file, and it is counted in this thread's CPU time.
 */
export type PdfTask = ({ op: 'inspect'; bytes: Uint8Array } | { op: 'render'; bytes: Uint8Array; index: number; scale: number } | { op: 'hash'; bytes: Uint8Array; jobs: HashJob[] } | EfirmaPrepareTask | EfirmaEmbedTask) & {
  started?: Int32Array;
};

/** One digest over the concatenation of `ranges` (`[start, end)` byte offsets) of the bytes, hashed in place. */
export interface HashJob {
  algorithm: string;
  ranges: [number, number][];
}

/** The answer: the result, or the failure with its signing error code when it has one. */
export type PdfEnvelope =
  | { ok: true; result: PdfInfo | Uint8Array | Uint8Array[] | EfirmaPrepared }
  | FailureEnvelope;

export default async function runPdfTask(task: PdfTask): Promise<PdfEnvelope> {
  await Promise.all([loadMupdf(), import('pdf-lib')]);
  if (task.started) {
    Atomics.store(task.started, 0, threadId);
    Atomics.notify(task.started, 0);
  }
  try {
    if (task.op === 'inspect') return { ok: true, result: await inspectPdf(task.bytes) };
    if (task.op === 'efirma-prepare' || task.op === 'efirma-embed') return { ok: true, result: await runEfirmaPdfTask(task) };
    if (task.op === 'hash') {
      const bytes = task.bytes;
      return {
        ok: true,
        result: task.jobs.map((job) => {
          const h = createHash(job.algorithm);
          for (const [start, end] of job.ranges) h.update(bytes.subarray(start, end));
          return new Uint8Array(h.digest());
        }),
      };
    }
    const png = await renderPagePng(task.bytes, task.index, task.scale);
    return { ok: true, result: new Uint8Array(png.buffer, png.byteOffset, png.byteLength) };
  } catch (error) {
    return failureEnvelope(error);
  }
}
