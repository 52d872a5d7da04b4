import type { RecordedEvent, SubscribeToAllOptions, Subscription } from '../ports/event-store.ts';

/**
 * A catch-up subscription built on `readAll` (with the type filter pushed down to the store): pages
 * through the log from `fromPosition`, then polls
 * every `pollMs` and whenever `wake()` is called (an append in this process). Used by adapters whose
 * engine has no push notification across processes (SQLite), so events appended by another process
 * (the operator CLI) arrive within `pollMs`.
 */
export function pollingSubscription(
  readAll: (from: number, max: number, types?: readonly string[]) => Promise<RecordedEvent[]>,
  headPosition: () => Promise<number>,
  options: SubscribeToAllOptions,
  register: (wake: () => void) => () => void,
  pollMs = 100,
): Subscription {
  const batchSize = options.batchSize ?? 500;
  let position = options.fromPosition;
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | null = null;
  const waiters: Array<{ target: number; resolve: () => void; reject: (e: unknown) => void }> = [];
  let lastError: unknown = null;

  const pump = async (): Promise<void> => {
    do {
      again = false;
      for (;;) {
        if (stopped) return;
        // The head is read before the query: every matching event up to it is in the answer, so when the
        // answer is short the position may jump to the head past events of other types.
        const head = await headPosition();
        const events = await readAll(position, batchSize, options.types);
        if (events.length > 0) {
          await options.onEvents(events);
          position = events[events.length - 1]!.globalPosition;
        }
        if (events.length < batchSize) {
          position = Math.max(position, head);
          break;
        }
      }
    } while (again && !stopped);
  };

  const settleWaiters = (): void => {
    for (let i = waiters.length - 1; i >= 0; i--) {
      const w = waiters[i]!;
      if (lastError) {
        waiters.splice(i, 1);
        w.reject(lastError);
      } else if (position >= w.target) {
        waiters.splice(i, 1);
        w.resolve();
      }
    }
  };

  const tick = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = pump()
      .then(() => {
        lastError = null;
      })
      .catch((error: unknown) => {
        lastError = error;
      })
      .finally(() => {
        running = null;
        settleWaiters();
        lastError = null;
        if (again && !stopped) tick();
      });
  };

  // Appends in the same turn of the event loop wake the subscription once.
  let wakeScheduled = false;
  const wake = (): void => {
    if (wakeScheduled) return;
    wakeScheduled = true;
    setImmediate(() => {
      wakeScheduled = false;
      tick();
    });
  };
  const unregister = register(wake);
  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      tick();
      schedule();
    }, pollMs);
    timer.unref();
  };
  tick();
  schedule();

  return {
    async caughtUp() {
      const target = await headPosition();
      if (position >= target && !running) return;
      await new Promise<void>((resolve, reject) => {
        waiters.push({ target, resolve, reject });
        tick();
      });
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      unregister();
      await running;
    },
  };
}
