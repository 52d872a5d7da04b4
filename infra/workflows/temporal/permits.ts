/**
 * The worker side of the per-key concurrency bound of activities (`WorkflowEffect.concurrency`): before
 * running an activity with a bound, the worker takes a permit of its key; after, it gives it back.
 *
 * Permits come from the task queue's semaphore workflow (`selloSemaphore` in `workflow.ts`, id
 * `sello-semaphore:<task queue>`, one count per key) through its `acquire` update, so the bound holds across every worker. Inside
 * one worker a permit passes straight from the activity that finished to the next one waiting for the
 * same key, without a round trip to the server (the semaphore sees the same holder keep it). A request
 * asks for as many permits as the bound allows (activities of a key arrive together); a permit no
 * activity here needs goes back after {@link LINGER_MS}. Held permits are renewed every `leaseMs / 3`; a
 * worker that dies stops renewing and the semaphore reclaims its permits after `leaseMs`; one that stops
 * withdraws its requests still waiting (a permit granted to them after it stopped would go unused until then).
 */
import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import { ACQUIRE_UPDATE, RELEASE_SIGNAL, RENEW_SIGNAL, SEMAPHORE_ID_PREFIX, SEMAPHORE_WORKFLOW, WITHDRAW_SIGNAL, type PermitRequest, type SemaphoreArgs } from './protocol.ts';

/** How long a permit no activity here needs is kept for one that may arrive next (ms), before it goes back. */
const LINGER_MS = 250;

interface KeyState {
  limit: number;
  /** Permits this worker holds for running activities. */
  busy: Set<string>;
  /** Permits held but unused, each until its linger timer gives it back. */
  idle: Map<string, NodeJS.Timeout>;
  /** Activities of this worker waiting for a permit, first come first served. */
  waiters: { resolve: (permitId: string) => void; reject: (error: Error) => void }[];
  /** 1 while an `acquire` update is in flight for this key (one at a time, for every waiter). */
  requested: number;
  /** The request id of that update (withdrawn by {@link PermitClient.close}). */
  requestId?: string;
}

export interface PermitClientOptions {
  client: () => Promise<Client>;
  taskQueue: string;
  /** Names this worker in the semaphores' state (operators). */
  identity: string;
  /** Lease of a permit, ms. Default 60 000. */
  leaseMs?: number;
  onError?: (error: unknown, what: string) => void;
}

/** See the module comment. One per engine (worker). */
export class PermitClient {
  private readonly keys = new Map<string, KeyState>();
  private readonly leaseMs: number;
  private readonly renewer: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly options: PermitClientOptions) {
    this.leaseMs = options.leaseMs ?? 60_000;
    this.renewer = setInterval(() => void this.renew(), Math.max(1000, Math.floor(this.leaseMs / 3)));
    this.renewer.unref();
  }

  /**
   * Resolves with a permit of `key` (at most `limit` out across all workers).
   * @throws the reason given to {@link close} when the client closes while waiting.
   */
  acquire(key: string, limit: number): Promise<string> {
    if (this.closed) return Promise.reject(new Error('permit client closed'));
    let k = this.keys.get(key);
    if (!k) this.keys.set(key, (k = { limit, busy: new Set(), idle: new Map(), waiters: [], requested: 0 }));
    k.limit = limit;
    const [idle] = k.idle;
    if (idle) {
      clearTimeout(idle[1]);
      k.idle.delete(idle[0]);
      k.busy.add(idle[0]);
      return Promise.resolve(idle[0]);
    }
    const waiting = new Promise<string>((resolve, reject) => k.waiters.push({ resolve, reject }));
    this.requestMore(key, k);
    return waiting;
  }

  /** Gives a permit back: to the next activity of this worker waiting for `key`, else to the semaphore. */
  release(key: string, permitId: string): void {
    const k = this.keys.get(key);
    if (!k || !k.busy.delete(permitId)) return;
    this.hand(key, k, permitId);
  }

  /** Rejects every waiter with `reason`, withdraws the requests still waiting at the semaphore and gives every held permit back. */
  async close(reason: Error): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.renewer);
    // Withdrawn first: a permit given back below must not be granted to a request of this closed client.
    const waitingIds = [...this.keys.values()].flatMap((k) => (k.requested > 0 && k.requestId ? [k.requestId] : []));
    if (waitingIds.length > 0) await this.withdraw(waitingIds);
    const returns: Promise<void>[] = [];
    for (const [key, k] of this.keys) {
      for (const w of k.waiters.splice(0)) w.reject(reason);
      for (const timer of k.idle.values()) clearTimeout(timer);
      const held = [...k.busy, ...k.idle.keys()];
      if (held.length > 0) returns.push(this.giveBack(key, held));
      k.busy.clear();
      k.idle.clear();
    }
    await Promise.allSettled(returns);
  }

  private hand(key: string, k: KeyState, permitId: string): void {
    const next = k.waiters.shift();
    if (next) {
      k.busy.add(permitId);
      // Resumed on the next turn of the event loop, not in this one: a chain of hand-offs within one key
      // (an activity ends, the next of its key starts and ends...) must not run ahead of grants of other
      // keys that arrived at the same time and wait to be read (first come, first served across keys).
      setImmediate(() => next.resolve(permitId));
    } else if (this.closed) void this.giveBack(key, [permitId]);
    else {
      const timer = setTimeout(() => {
        if (k.idle.delete(permitId)) void this.giveBack(key, [permitId]);
      }, LINGER_MS);
      timer.unref();
      k.idle.set(permitId, timer);
    }
  }

  /** At most one request per key in flight, for as many permits as activities wait. */
  private requestMore(key: string, k: KeyState): void {
    if (k.requested > 0 || k.waiters.length === 0 || this.closed) return;
    k.requested = 1;
    const requestId = (k.requestId = randomUUID());
    // As many as the bound allows: activities of this key tend to arrive together, a few ms apart.
    void this.askSemaphore(key, k.limit, Math.max(1, k.limit - k.busy.size - k.idle.size), requestId).then(
      (permitIds) => {
        k.requested = 0;
        for (const id of permitIds) this.hand(key, k, id);
        this.requestMore(key, k);
      },
      (error: unknown) => {
        k.requested = 0;
        this.options.onError?.(error, `permit of ${key}`);
        if (!this.closed) setTimeout(() => this.requestMore(key, k), 1000).unref();
      },
    );
  }

  /** The semaphore workflow of this task queue (several deployments may share a namespace). */
  private semaphoreId(): string {
    return `${SEMAPHORE_ID_PREFIX}${this.options.taskQueue}`;
  }

  /**
   * One permit from the key's semaphore workflow, started by the same call when it is not running
   * (update-with-start), retried with the same permit id until granted or closed (the semaphore grants an
   * id once, so a lost answer costs nothing).
   */
  private async askSemaphore(key: string, limit: number, count: number, requestId: string): Promise<string[]> {
    const client = await this.options.client();
    const request: PermitRequest = { key, requestId, count, holder: this.options.identity, limit, leaseMs: this.leaseMs };
    const args: SemaphoreArgs = {};
    for (let attempt = 0; ; attempt++) {
      if (this.closed) throw new Error('permit client closed');
      try {
        const startWorkflowOperation = new WithStartWorkflowOperation(SEMAPHORE_WORKFLOW, {
          taskQueue: this.options.taskQueue,
          workflowId: this.semaphoreId(),
          args: [args],
          workflowIdConflictPolicy: 'USE_EXISTING',
          staticSummary: `Concurrency bounds of the activities of task queue ${this.options.taskQueue}`,
        });
        return await client.workflow.executeUpdateWithStart(ACQUIRE_UPDATE, { args: [request], startWorkflowOperation });
      } catch (error) {
        // Continuing as new (SEMAPHORE_MOVING), completing when idle, or the server briefly unreachable.
        if (attempt >= 50) throw error;
        await new Promise((r) => setTimeout(r, Math.min(2000, 20 * 2 ** attempt)));
      }
    }
  }

  private async withdraw(requestIds: string[]): Promise<void> {
    try {
      const client = await this.options.client();
      await client.workflow.getHandle(this.semaphoreId()).signal(WITHDRAW_SIGNAL, requestIds);
    } catch (error) {
      this.options.onError?.(error, 'withdrawal of permit requests'); // a grant to them is reclaimed by its lease
    }
  }

  private async giveBack(key: string, permitIds: string[]): Promise<void> {
    try {
      const client = await this.options.client();
      await client.workflow.getHandle(this.semaphoreId()).signal(RELEASE_SIGNAL, permitIds);
    } catch (error) {
      this.options.onError?.(error, `release of ${key}`); // the lease reclaims it
    }
  }

  private async renew(): Promise<void> {
    for (const [key, k] of this.keys) {
      if (k.busy.size === 0 && k.idle.size === 0) continue;
      try {
        const client = await this.options.client();
        await client.workflow.getHandle(this.semaphoreId()).signal(RENEW_SIGNAL, { permitIds: [...k.busy, ...k.idle.keys()], leaseMs: this.leaseMs });
      } catch (error) {
        this.options.onError?.(error, `renewal of ${key}`);
      }
    }
  }
}
