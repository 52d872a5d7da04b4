import type { EventStore, Subscription } from '../../infra/ports/event-store.ts';
import { TENANCY_EVENT_TYPES, emptyTenancy, evolveTenancy, type TenancyEvent, type TenancyState } from '../../domain/tenancy/tenancy.ts';

/**
 * The server's in-memory view of tenants and API keys, folded from the event log and kept current by a
 * subscription (events the operator CLI appends from another process arrive within the poll interval,
 * 100 ms by default). Authentication reads it without IO.
 */
export class TenancyView {
  readonly state: TenancyState = emptyTenancy();
  private subscription: Subscription | null = null;

  constructor(private readonly store: EventStore) {}

  async start(): Promise<void> {
    this.subscription = this.store.subscribeToAll({
      fromPosition: 0,
      types: TENANCY_EVENT_TYPES,
      onEvents: (events) => {
        for (const e of events) evolveTenancy(this.state, e as unknown as TenancyEvent);
      },
    });
    await this.subscription.caughtUp();
  }

  /** Resolves once every event appended so far is folded in (read-your-writes after an append). */
  async catchUp(): Promise<void> {
    await this.subscription?.caughtUp();
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
  }
}
