/**
 * Inference worker entry (a `worker_threads` worker of the embedded job queue). Receives
 * `{ type, input }`, runs the handler for `type`, and answers with an envelope so coded domain errors
 * (`code`, `details`) survive the thread boundary intact.
 */
import { resolveHandler } from './handlers.ts';

export type JobEnvelope =
  | { ok: true; result: unknown }
  | { ok: false; message: string; code?: string; details?: Record<string, unknown> };

export default async function runJob(task: { type: string; input: unknown }): Promise<JobEnvelope> {
  try {
    const handler = await resolveHandler(task.type);
    return { ok: true, result: await handler(task.input) };
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
