import type { EventStore, Subscription } from '../../infra/ports/event-store.ts';
import { TENANCY_EVENT_TYPES, emptyTenancy, evolveTenancy, type TenancyEvent, type TenancyState } from '../../domain/tenancy/tenancy.ts';

/**
 * Least time between two catch-ups that unknown credentials trigger (milliseconds): at most 100 per
 * second whatever the rate of junk keys. Each is one head-position read plus the tenancy events
 * appended since the last one. A request that arrives while one is scheduled joins it.
 */
export const UNKNOWN_CREDENTIAL_CATCH_UP_MS = 10;

/**
 * The server's in-memory view of tenants and API keys, folded from the event log and kept current by a
 * subscription: events another process appends (the operator CLI) arrive when the store notifies a
 * foreign commit (SQLite: a few milliseconds) or at the latest within its poll interval (100 ms).
 * Authentication reads it without IO; a credential it does not know triggers one bounded catch-up
 * ({@link catchUpForUnknownCredential}) before the edge answers 401, so a key printed by the CLI works on
 * the very next call.
 */
export class TenancyView {
  readonly state: TenancyState = emptyTenancy();
  private subscription: Subscription | null = null;
  /** A catch-up scheduled but not yet started: later arrivals join it (its head read follows them). */
  private next: Promise<void> | null = null;
  private previous: Promise<void> = Promise.resolve();
  private lastStartedAt = Number.NEGATIVE_INFINITY;
  /** Catch-ups triggered by unknown credentials since start (operators and tests read it). */
  unknownCredentialCatchUps = 0;
  /**
   * Bumped whenever tenancy events are folded in: what was derived from the state before (the
   * authenticator's cached identities) is stale once it moves (revocation, plan and limit changes).
   */
  version = 0;

  constructor(
    private readonly store: EventStore,
    private readonly minIntervalMs = UNKNOWN_CREDENTIAL_CATCH_UP_MS,
  ) {}

  async start(): Promise<void> {
    this.subscription = this.store.subscribeToAll({
      fromPosition: 0,
      types: TENANCY_EVENT_TYPES,
      onEvents: (events) => {
        for (const e of events) evolveTenancy(this.state, e as unknown as TenancyEvent);
        this.version++;
      },
    });
    await this.subscription.caughtUp();
  }

  /** Resolves once every event appended so far is folded in (read-your-writes after an append). */
  async catchUp(): Promise<void> {
    await this.subscription?.caughtUp();
  }

  /**
   * Folds every tenancy event appended before this call, for a credential the view does not know (a key
   * the CLI just created in another process). Rate-bounded: catch-ups run one at a time, at least
   * `minIntervalMs` apart, and every caller that arrives while one is waiting to start shares it, so
   * any number of unknown keys costs at most `1000 / minIntervalMs` catch-ups per second.
   * Resolves (never rejects) once the shared catch-up is done; a store error leaves the view as it was.
   */
  catchUpForUnknownCredential(): Promise<void> {
    if (!this.subscription) return Promise.resolve();
    if (this.next) return this.next;
    const run = (async () => {
      await this.previous;
      const wait = this.lastStartedAt + this.minIntervalMs - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      // From here on a new arrival schedules the next catch-up: this one's head read may precede it.
      this.next = null;
      this.lastStartedAt = performance.now();
      this.unknownCredentialCatchUps++;
      await this.catchUp().catch(() => undefined);
    })();
    this.next = run;
    this.previous = run;
    return run;
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
  }
}
