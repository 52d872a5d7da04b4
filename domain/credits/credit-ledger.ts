import { randomUUID } from 'node:crypto';
import { PLANS, type PlanName } from '../plans/plans.ts';
import { WrongExpectedRevisionError, type EventStore, type RecordedEvent, type Subscription } from '../../infra/ports/event-store.ts';
import {
  CREDIT_EVENT_TYPES,
  availableCredits,
  creditStream,
  decideGrant,
  decideReserve,
  decideSettle,
  evolveCredits,
  initialCreditState,
  clientAvailable,
  type CreditEvent,
  type CreditState,
} from './credits.ts';

/** Thrown inside a decision on a client tenant's own stream: its calls are charged to its payer instead. */
class BilledElsewhere extends Error {}

/** What a tenant may spend now, and the allowance its headers show (see {@link CreditLedger.balanceNow}). */
export interface Balance {
  /** Credits available now; null = unlimited. */
  available: number | null;
  /** The monthly figure of `X-RateLimit-Limit`: the plan's allowance, or a client's cap (else its payer's allowance). null = unlimited. */
  allowance: number | null;
  /** A white-label client: the tenant whose credits it spends; null otherwise. */
  billedTo: string | null;
  /** A white-label client: its monthly cap (null = none). */
  monthlyCap: number | null;
}

/** The state of a tenant without credit events (read-only: never handed to `evolve`). */
const EMPTY_STATE: CreditState = initialCreditState();

interface Cached {
  state: CreditState;
  revision: number | null;
  /** The stream has been read at least once (else the cached state may miss older events). */
  loaded: boolean;
  /** Per-tenant queue: one decision at a time in this process; other processes are caught by revisions. */
  lock: Promise<unknown>;
}

/**
 * Application service over the credit streams: keeps each tenant's folded state with its revision,
 * appends every decision with `expectedRevision`, and on a conflict (another process or adapter
 * instance appended first) re-reads the stream and decides again. Time comes from `now`.
 */
export class CreditLedger {
  private readonly cache = new Map<string, Cached>();
  private following = false;
  /**
   * The plan of a tenant (undefined = unknown tenant): a white-label client's calls reserve from its payer's
   * monthly allowance, which the caller does not pass. Set by the platform (apps/platform/platform.ts) from
   * the tenancy view; an unknown payer has no allowance (purchased credits only).
   */
  planOf: (tenantId: string) => PlanName | undefined = () => undefined;

  private planAllowance(tenantId: string): number | null | undefined {
    const plan = this.planOf(tenantId);
    return plan === undefined ? undefined : PLANS[plan].monthlyCredits;
  }

  /**
   * @param holder the incarnation of this process (a random id per boot) and the lease (milliseconds) its
   *   reservations carry; without it reservations record no holder (the CLI never reserves).
   */
  constructor(
    private readonly store: EventStore,
    private readonly now: () => number = Date.now,
    private readonly maxRetries = 50,
    private readonly holder?: { incarnation: string; leaseMs: number },
  ) {}

  private entry(tenantId: string): Cached {
    let c = this.cache.get(tenantId);
    if (!c) {
      c = { state: initialCreditState(), revision: null, loaded: false, lock: Promise.resolve() };
      this.cache.set(tenantId, c);
    }
    return c;
  }

  /** Folds events appended since the cached revision (by this or any other process). */
  private async refresh(tenantId: string, c: Cached): Promise<void> {
    const from = c.revision === null ? 0 : c.revision + 1;
    const { events } = await this.store.readStream(creditStream(tenantId), { fromRevision: from });
    for (const e of events) this.fold(c, e);
    c.loaded = true;
  }

  /** Folds one recorded event unless it is already folded (revisions make this idempotent). */
  private fold(c: Cached, e: RecordedEvent): void {
    const next = c.revision === null ? 0 : c.revision + 1;
    if (e.streamRevision !== next) return;
    evolveCredits(c.state, e as unknown as CreditEvent);
    c.revision = e.streamRevision;
  }

  /**
   * Follows every credit stream from the log, so {@link snapshot} answers without IO and stays current
   * with what other processes append (within the store's poll interval). Decisions still re-read the
   * stream and append with an expected revision, so a stale snapshot can never overspend.
   */
  async follow(): Promise<Subscription> {
    const sub = this.store.subscribeToAll({
      fromPosition: 0,
      types: CREDIT_EVENT_TYPES,
      onEvents: async (events) => {
        for (const e of events) {
          const tenantId = e.streamName.slice('credits-'.length);
          const c = this.entry(tenantId);
          if (c.revision !== null && e.streamRevision > c.revision + 1) await this.refresh(tenantId, c);
          else {
            this.fold(c, e);
            if (e.streamRevision === 0) c.loaded = true;
          }
        }
      },
    });
    await sub.caughtUp();
    this.following = true;
    return sub;
  }

  /** The folded state without IO when following the log (else as {@link state}); for reads, never for decisions. */
  async snapshot(tenantId: string): Promise<CreditState> {
    const c = this.cache.get(tenantId);
    if (this.following) return c?.state ?? initialCreditState();
    return this.state(tenantId);
  }

  /** True once {@link follow} has caught up: {@link snapshotNow} is then what {@link snapshot} answers. */
  get isFollowing(): boolean {
    return this.following;
  }

  /**
   * The folded state without IO or promise (the edge's billing headers on every response): exact when
   * following the log (API processes), else what this ledger last saw (possibly behind). Never for decisions.
   */
  snapshotNow(tenantId: string): CreditState {
    return this.cache.get(tenantId)?.state ?? EMPTY_STATE;
  }

  private serialized<R>(tenantId: string, fn: (c: Cached) => Promise<R>): Promise<R> {
    const c = this.entry(tenantId);
    const run = c.lock.then(() => fn(c));
    c.lock = run.catch(() => undefined);
    return run;
  }

  /** Appends the event `decide` returns (if any) with optimistic concurrency, retrying on conflicts. */
  private async decideAndAppend(tenantId: string, decide: (state: CreditState) => CreditEvent | null): Promise<CreditEvent | null> {
    return this.serialized(tenantId, async (c) => {
      for (let attempt = 0; ; attempt++) {
        // The first attempt decides on the cached state (kept current by `follow`); the expected
        // revision catches anything it missed, and the retry re-reads the stream.
        if (attempt > 0 || !c.loaded || !this.following) await this.refresh(tenantId, c);
        const event = decide(c.state);
        if (!event) return null;
        try {
          const expected = c.revision;
          const r = await this.store.append(creditStream(tenantId), [{ type: event.type, data: event.data, metadata: { tenant_id: tenantId } }], {
            expectedRevision: expected === null ? 'no_stream' : expected,
          });
          // The follower may have folded this very event while the append's answer was on its way (a store
          // that notifies subscribers before the appender resumes, e.g. PostgreSQL LISTEN/NOTIFY): fold it
          // only if it is not folded yet, or the state would count it twice.
          if (c.revision === expected) {
            evolveCredits(c.state, event);
            c.revision = r.nextExpectedRevision;
          }
          return event;
        } catch (error) {
          if (!(error instanceof WrongExpectedRevisionError) || attempt >= this.maxRetries) throw error;
          await new Promise((r) => setTimeout(r, Math.random() * 5 * Math.min(attempt + 1, 10)));
        }
      }
    });
  }

  /**
   * Reserves `amount` credits for a call to `endpoint`.
   * @returns the reservation id
   * @throws InsufficientCreditsError when the balance does not cover `amount`
   */
  async reserve(tenantId: string, amount: number, allowance: number | null, endpoint: string): Promise<string> {
    const reservationId = randomUUID();
    if (!this.cache.get(tenantId)?.state.billedTo) {
      try {
        await this.decideAndAppend(tenantId, (state) => {
          // A client's own stream never takes a reservation: the expected revision makes this exact even
          // when the cached state has not seen the link yet (the append conflicts, the retry re-reads).
          if (state.billedTo) throw new BilledElsewhere();
          return decideReserve(state, { tenantId, reservationId, amount, endpoint, allowance, nowMs: this.now(), holder: this.holder });
        });
        return reservationId;
      } catch (error) {
        if (!(error instanceof BilledElsewhere)) throw error;
      }
    }
    // A white-label client: reserve on its payer's stream, from the payer's allowance, within the client's cap.
    const client = this.entry(tenantId).state;
    const payer = client.billedTo!;
    const client_ = { tenantId, monthlyCap: client.monthlyCap };
    const payerAllowance = this.planAllowance(payer);
    await this.decideAndAppend(payer, (state) =>
      decideReserve(state, { tenantId: payer, reservationId, amount, endpoint, allowance: payerAllowance === undefined ? 0 : payerAllowance, nowMs: this.now(), holder: this.holder, client: client_ }),
    );
    return reservationId;
  }

  /**
   * What `tenantId` may spend now, without IO (edge headers): its own balance, or for a white-label client
   * its payer's balance bounded by the client's monthly cap. Exact when following the log; never for decisions.
   * @param ownAllowance the monthly allowance of the tenant's own plan (null = unlimited)
   */
  balanceNow(tenantId: string, ownAllowance: number | null): Balance {
    return this.balanceOf(this.snapshotNow(tenantId), tenantId, ownAllowance, (id) => this.snapshotNow(id));
  }

  /** {@link balanceNow} after catching up with the streams (reads: `GET /v1/credits/balance` when not following). */
  async balance(tenantId: string, ownAllowance: number | null): Promise<Balance> {
    const own = await this.snapshot(tenantId);
    const payer = own.billedTo ? await this.snapshot(own.billedTo) : null;
    return this.balanceOf(own, tenantId, ownAllowance, () => payer!);
  }

  private balanceOf(own: CreditState, tenantId: string, ownAllowance: number | null, stateOf: (id: string) => CreditState): Balance {
    const now = this.now();
    if (!own.billedTo) return { available: availableCredits(own, ownAllowance, now), allowance: ownAllowance, billedTo: null, monthlyCap: null };
    const payerAllowance = this.planAllowance(own.billedTo);
    const allowance = payerAllowance === undefined ? 0 : payerAllowance;
    return {
      available: clientAvailable(stateOf(own.billedTo), allowance, tenantId, own.monthlyCap, now),
      allowance: own.monthlyCap ?? allowance,
      billedTo: own.billedTo,
      monthlyCap: own.monthlyCap,
    };
  }

  /**
   * Links a white-label client tenant to the tenant that pays for its calls, with its monthly cap (null =
   * none); appended once on the client's stream (a second call leaves the first link and returns false).
   * Call it before the client has any key.
   */
  async link(clientTenantId: string, payerTenantId: string, monthlyCap: number | null, deploymentId: string): Promise<boolean> {
    if (clientTenantId === payerTenantId) throw new Error('a tenant cannot pay for itself as a client');
    const event = await this.decideAndAppend(clientTenantId, (state) =>
      state.billedTo
        ? null
        : { type: 'CreditAccountLinked', data: { tenant_id: clientTenantId, billed_to: payerTenantId, monthly_cap: monthlyCap, deployment_id: deploymentId, linked_at: new Date(this.now()).toISOString() } },
    );
    return event !== null;
  }

  /** Changes a linked client's monthly cap (null = none); false when the client is not linked (yet) or the cap is unchanged. */
  async setCap(clientTenantId: string, monthlyCap: number | null): Promise<boolean> {
    const event = await this.decideAndAppend(clientTenantId, (state) =>
      !state.billedTo || state.monthlyCap === monthlyCap ? null : { type: 'CreditCapSet', data: { tenant_id: clientTenantId, monthly_cap: monthlyCap, set_at: new Date(this.now()).toISOString() } },
    );
    return event !== null;
  }

  /**
   * Commits (success) or releases a reservation; a second settle of the same id does nothing.
   * @returns what happened: `committed`, `released`, or `not_open` (already settled, or released as
   *   abandoned after its lease: the call is then not charged).
   */
  async settle(tenantId: string, reservationId: string, success: boolean, reason?: string): Promise<'committed' | 'released' | 'not_open'> {
    // A white-label client's reservations live on its payer's stream (the link never changes once made).
    const payer = this.cache.get(tenantId)?.state.billedTo;
    if (payer) return this.settle(payer, reservationId, success, reason);
    const event = await this.decideAndAppend(tenantId, (state) => decideSettle(state, { tenantId, reservationId, success, reason, nowMs: this.now() }));
    return event === null ? 'not_open' : event.type === 'CreditsCommitted' ? 'committed' : 'released';
  }

  /** Adds purchased credits (operator grant). */
  async grant(tenantId: string, amount: number, reason?: string): Promise<void> {
    await this.decideAndAppend(tenantId, () => decideGrant({ tenantId, amount, reason, nowMs: this.now() }));
  }

  /** Current folded state after catching up with the stream. */
  async state(tenantId: string): Promise<CreditState> {
    return this.serialized(tenantId, async (c) => {
      await this.refresh(tenantId, c);
      return c.state;
    });
  }

  /** Credits available now; null = unlimited. */
  async available(tenantId: string, allowance: number | null): Promise<number | null> {
    return availableCredits(await this.state(tenantId), allowance, this.now());
  }

  /**
   * Releases the reservations whose holder is gone (of the tenants this ledger knows; all of them when
   * following the log):
   * - `otherHolders: true` (at start-up of the only API process of the store): every reservation held
   *   by another incarnation, or recorded without a holder: that process died between reserve and
   *   settle (reason `holder_gone`);
   * - any reservation past its lease (reason `lease_expired`), whoever holds it;
   * - a reservation recorded without a lease (before holders were tracked) older than
   *   `legacyMaxAgeMs` (reason `stale_reservation`).
   * Candidates are found on the followed snapshot (no IO); each release is a normal settle, so one
   * that was settled meanwhile is left alone.
   * @returns how many were released
   */
  async releaseAbandoned(options: { otherHolders: boolean; legacyMaxAgeMs: number }): Promise<number> {
    const now = this.now();
    const own = this.holder?.incarnation ?? null;
    let n = 0;
    for (const tenantId of [...this.cache.keys()]) {
      const state = this.following ? this.cache.get(tenantId)!.state : await this.state(tenantId);
      for (const [id, r] of [...state.open]) {
        const reason =
          options.otherHolders && r.holder !== own
            ? 'holder_gone'
            : r.leaseExpiresAt !== null
              ? r.leaseExpiresAt < now
                ? 'lease_expired'
                : null
              : Date.parse(r.reservedAt) < now - options.legacyMaxAgeMs
                ? 'stale_reservation'
                : null;
        if (reason && (await this.settle(tenantId, id, false, reason)) === 'released') n++;
      }
    }
    return n;
  }

  /**
   * Releases every reservation (of the tenants this ledger knows) left open longer than `maxAgeMs`: a
   * process died between reserve and settle, and the held credits would otherwise stay unspendable.
   * @returns how many were released
   */
  async releaseStale(maxAgeMs: number): Promise<number> {
    const cutoff = this.now() - maxAgeMs;
    let n = 0;
    for (const tenantId of [...this.cache.keys()]) {
      const state = await this.state(tenantId);
      for (const [id, r] of [...state.open]) {
        if (Date.parse(r.reservedAt) < cutoff) {
          await this.settle(tenantId, id, false, 'stale_reservation');
          n++;
        }
      }
    }
    return n;
  }
}
