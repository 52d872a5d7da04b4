/**
 * gRPC retries of the Temporal client that end before its connection closes.
 *
 * `@temporalio/client`'s default retry interceptor (grpc-retry.js, 1.24) schedules each retry with a bare
 * `setTimeout`; a retry that fires after `connection.close()` calls `createCall` on the shut-down channel,
 * which throws "Channel has been shut down" from the timer: an uncaught exception that takes the process
 * down (seen in a clean-clone CI run, from the workflows contract test, when its dev server stopped while a
 * call of a closing engine was being retried). The gate keeps the library's interceptor and backoff
 * (`defaultGrpcRetryOptions`) but refuses new retries once closing, and remembers when the last scheduled
 * retry is due, so {@link closeGated} can wait for it before closing.
 */
import { defaultGrpcRetryOptions, makeGrpcRetryInterceptor, type Connection } from '@temporalio/client';

/** Mutable state shared by one connection's interceptor and its closer. `retriesDueBy`: epoch ms. */
export interface RetryGate {
  closing: boolean;
  retriesDueBy: number;
}

/** A new, open gate. */
export const openRetryGate = (): RetryGate => ({ closing: false, retriesDueBy: 0 });

/** The client's default retry interceptor, refusing retries once `gate.closing` (for `Connection.connect({ interceptors })`). */
export function gatedRetryInterceptor(gate: RetryGate) {
  const defaults = defaultGrpcRetryOptions();
  return makeGrpcRetryInterceptor({
    retryableDecider: (attempt, status) => !gate.closing && defaults.retryableDecider(attempt, status),
    delayFunction: (attempt, status) => {
      const ms = defaults.delayFunction(attempt, status);
      gate.retriesDueBy = Math.max(gate.retriesDueBy, Date.now() + ms);
      return ms;
    },
  });
}

/** Closes the gate, waits until every retry already scheduled has fired (their calls then end without retrying), then closes `connection`. */
export async function closeGated(gate: RetryGate, connection: Connection): Promise<void> {
  gate.closing = true;
  const wait = gate.retriesDueBy - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait + 50));
  await connection.close();
}
