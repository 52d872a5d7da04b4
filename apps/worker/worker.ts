/**
 * Inference worker entry (a `worker_threads` worker of the embedded job queue). Receives
 * `{ type, input }`, runs the handler for `type` (from the capability manifests, `./handlers.ts`), and
 * answers with an envelope so coded domain errors (`code`, `details`) survive the thread boundary intact.
 * The validated configuration arrives as `workerData.config` (the job-queue factory passes it).
 */
import { workerData } from 'node:worker_threads';
import { configureWorker, resolveHandler } from './handlers.ts';

const data = workerData as { config?: unknown } | null | undefined;
if (data?.config) configureWorker(data.config);

export type JobEnvelope =
  | { ok: true; result: unknown }
  | { ok: false; message: string; code?: string; details?: Record<string, unknown> };

export default async function runJob(task: { type: string; input: unknown }): Promise<JobEnvelope> {
  try {
    const handler = await resolveHandler(task.type);
    return { ok: true, result: await handler(task.input as never) };
  } catch (error) {
    const e = error as { message?: string; code?: unknown; details?: unknown };
    return {
      ok: false,
      message: typeof e?.message === 'string' ? e.message : String(error),
      code: typeof e?.code === 'string' ? e.code : undefined,
      details: e?.details && typeof e.details === 'object' ? (e.details as Record<string, unknown>) : undefined,
    };
  }
}
