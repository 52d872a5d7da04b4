/**
 * The failure half of a thread's answer (job threads and PDF threads): an error crosses the
 * `worker_threads` boundary as plain data, so a coded domain error (`code`, `details`: SigningError,
 * OcrError, ...) arrives intact and is mapped to its HTTP answer on the other side.
 */
export interface FailureEnvelope {
  ok: false;
  message: string;
  code?: string;
  details?: Record<string, unknown>;
}

/** The {@link FailureEnvelope} of anything thrown: its message, and its string `code` and object `details` when it has them. */
export function failureEnvelope(error: unknown): FailureEnvelope {
  const e = error as { message?: string; code?: unknown; details?: unknown };
  return {
    ok: false,
    message: typeof e?.message === 'string' ? e.message : String(error),
    code: typeof e?.code === 'string' ? e.code : undefined,
    details: e?.details && typeof e.details === 'object' ? (e.details as Record<string, unknown>) : undefined,
  };
}
