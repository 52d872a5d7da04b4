import { billingPeriod } from '../plans/plans.ts';

/**
 * The credit account of one tenant, event-sourced on the stream `credits-<tenantId>`.
 *
 * A billed call reserves its cost before the work (`CreditsReserved`, appended with the expected
 * revision, so two concurrent calls can never take the same credit), then commits it on a 2xx
 * (`CreditsCommitted`) or releases it otherwise (`CreditsReleased`): a failed call is never charged
 * (spec, General rules 1). The monthly allowance is spent first and resets on the 1st (UTC); purchased
 * credits never expire and are spent after it (spec, Limits).
 */
export type CreditsPurchased = { type: 'CreditsPurchased'; data: { tenant_id: string; amount: number; reason: string; granted_at: string } };
export type CreditsReserved = {
  type: 'CreditsReserved';
  data: {
    tenant_id: string;
    reservation_id: string;
    amount: number;
    from_monthly: number;
    from_purchased: number;
    /** Billing period (`YYYY-MM`, UTC) the monthly part is drawn from. */
    period: string;
    endpoint: string;
    reserved_at: string;
    /**
     * The client tenant whose call this is, when it is not the stream's tenant (a white-label client billed
     * to this tenant, see {@link CreditAccountLinked}); counts toward that client's monthly cap.
     */
    client_tenant_id?: string;
    /**
     * The incarnation (one boot of one API process, a random id) that holds the reservation; absent on
     * reservations recorded before holders were tracked (issue 18).
     */
    holder?: string;
    /**
     * ISO 8601 time after which any process may release the reservation as abandoned: the holder's
     * longest legitimate hold (`CREDIT_RESERVATION_LEASE_MS`). Absent on older reservations.
     */
    lease_expires_at?: string;
  };
};
/**
 * On a client tenant's stream (a white-label deployment's tenant, docs/deployments.md "Credits"): its calls
 * are charged to `billed_to` (the deployment's owner): they reserve on the owner's stream, from the owner's
 * allowance and purchased credits, and never on the client's own. `monthly_cap` (credits per UTC month,
 * null = no cap) bounds what the client's calls may take from the owner in a month. Appended once, before
 * the client tenant has any key.
 */
export type CreditAccountLinked = { type: 'CreditAccountLinked'; data: { tenant_id: string; billed_to: string; monthly_cap: number | null; deployment_id: string; linked_at: string } };
/** On a client tenant's stream: the owner changed the client's monthly cap (null = no cap). */
export type CreditCapSet = { type: 'CreditCapSet'; data: { tenant_id: string; monthly_cap: number | null; set_at: string } };
export type CreditsCommitted = { type: 'CreditsCommitted'; data: { tenant_id: string; reservation_id: string; amount: number; endpoint: string; committed_at: string } };
export type CreditsReleased = { type: 'CreditsReleased'; data: { tenant_id: string; reservation_id: string; reason: string; released_at: string } };
export type CreditEvent = CreditsPurchased | CreditsReserved | CreditsCommitted | CreditsReleased | CreditAccountLinked | CreditCapSet;
export const CREDIT_EVENT_TYPES = ['CreditsPurchased', 'CreditsReserved', 'CreditsCommitted', 'CreditsReleased', 'CreditAccountLinked', 'CreditCapSet'] as const;

export const creditStream = (tenantId: string) => `credits-${tenantId}`;

export interface Reservation {
  amount: number;
  fromMonthly: number;
  fromPurchased: number;
  period: string;
  endpoint: string;
  reservedAt: string;
  /** Incarnation holding it (null on older reservations). */
  holder: string | null;
  /** Epoch milliseconds after which it is abandoned (null on older reservations). */
  leaseExpiresAt: number | null;
  /** The client tenant the call was made by (null: the stream's own tenant). */
  client: string | null;
}

export interface CreditState {
  /** Period of the newest reservation; `monthlyUsed` counts within it. */
  period: string | null;
  /** Credits of the monthly allowance committed or reserved in `period`. */
  monthlyUsed: number;
  /** Purchased credits not yet committed or reserved. */
  purchasedBalance: number;
  totalPurchased: number;
  /** Committed credits, all time. */
  totalUsed: number;
  /** Committed credits per endpoint, all time. */
  usedByEndpoint: Record<string, number>;
  open: Map<string, Reservation>;
  /** A client tenant: whose credits its calls spend ({@link CreditAccountLinked}); null for a tenant that pays its own. */
  billedTo: string | null;
  /** A client tenant: its monthly cap in credits (null = none). */
  monthlyCap: number | null;
  /**
   * A tenant paying for clients: credits each client reserved or committed in `clientPeriod`
   * (the caps are checked against it in the same stream, so concurrent calls cannot overspend a cap).
   */
  clientUsed: Map<string, number>;
  /** Period (`YYYY-MM`) `clientUsed` counts in. */
  clientPeriod: string | null;
}

export const initialCreditState = (): CreditState => ({
  period: null,
  monthlyUsed: 0,
  purchasedBalance: 0,
  totalPurchased: 0,
  totalUsed: 0,
  usedByEndpoint: {},
  open: new Map(),
  billedTo: null,
  monthlyCap: null,
  clientUsed: new Map(),
  clientPeriod: null,
});

/** Credits `client` has used of its cap in `period` (0 in another period). */
export function clientUsedIn(state: CreditState, client: string, period: string): number {
  return state.clientPeriod === period ? (state.clientUsed.get(client) ?? 0) : 0;
}

export function evolveCredits(state: CreditState, event: CreditEvent): CreditState {
  switch (event.type) {
    case 'CreditsPurchased':
      state.purchasedBalance += event.data.amount;
      state.totalPurchased += event.data.amount;
      return state;
    case 'CreditsReserved': {
      const d = event.data;
      if (state.period === null || d.period > state.period) {
        state.period = d.period;
        state.monthlyUsed = 0;
      }
      if (d.period === state.period) state.monthlyUsed += d.from_monthly;
      state.purchasedBalance -= d.from_purchased;
      if (d.client_tenant_id) {
        if (state.clientPeriod === null || d.period > state.clientPeriod) {
          state.clientPeriod = d.period;
          state.clientUsed = new Map();
        }
        if (d.period === state.clientPeriod) state.clientUsed.set(d.client_tenant_id, (state.clientUsed.get(d.client_tenant_id) ?? 0) + d.amount);
      }
      state.open.set(d.reservation_id, {
        client: d.client_tenant_id ?? null,
        amount: d.amount,
        fromMonthly: d.from_monthly,
        fromPurchased: d.from_purchased,
        period: d.period,
        endpoint: d.endpoint,
        reservedAt: d.reserved_at,
        holder: d.holder ?? null,
        leaseExpiresAt: d.lease_expires_at ? Date.parse(d.lease_expires_at) : null,
      });
      return state;
    }
    case 'CreditsCommitted': {
      const r = state.open.get(event.data.reservation_id);
      if (!r) return state;
      state.open.delete(event.data.reservation_id);
      state.totalUsed += r.amount;
      state.usedByEndpoint[r.endpoint] = (state.usedByEndpoint[r.endpoint] ?? 0) + r.amount;
      return state;
    }
    case 'CreditsReleased': {
      const r = state.open.get(event.data.reservation_id);
      if (!r) return state;
      state.open.delete(event.data.reservation_id);
      if (r.period === state.period) state.monthlyUsed -= r.fromMonthly;
      state.purchasedBalance += r.fromPurchased;
      if (r.client && r.period === state.clientPeriod) state.clientUsed.set(r.client, Math.max(0, (state.clientUsed.get(r.client) ?? 0) - r.amount));
      return state;
    }
    case 'CreditAccountLinked':
      state.billedTo = event.data.billed_to;
      state.monthlyCap = event.data.monthly_cap;
      return state;
    case 'CreditCapSet':
      state.monthlyCap = event.data.monthly_cap;
      return state;
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** Monthly allowance left at `nowMs`; `null` allowance means unlimited (Enterprise). */
export function monthlyRemaining(state: CreditState, allowance: number | null, nowMs: number): number | null {
  if (allowance === null) return null;
  const used = state.period === billingPeriod(nowMs) ? state.monthlyUsed : 0;
  return Math.max(0, allowance - used);
}

/** Credits available now (monthly remainder + purchased); null = unlimited. */
export function availableCredits(state: CreditState, allowance: number | null, nowMs: number): number | null {
  const monthly = monthlyRemaining(state, allowance, nowMs);
  return monthly === null ? null : monthly + Math.max(0, state.purchasedBalance);
}

export class InsufficientCreditsError extends Error {
  override readonly name = 'InsufficientCreditsError';
  /**
   * @param capped true when a white-label client's monthly cap (set by its owner), not the owner's
   *   balance, is what falls short.
   */
  constructor(
    readonly required: number,
    readonly available: number,
    readonly capped = false,
  ) {
    super(`insufficient credits: ${required} required, ${available} available`);
  }
}

/**
 * What a white-label client may still spend now: the payer's available credits, bounded by what is left
 * of the client's monthly cap. `payer` is the payer's folded state, `allowance` the payer's plan
 * allowance (null = unlimited), `cap` the client's cap (null = none). null = unlimited.
 */
export function clientAvailable(payer: CreditState, allowance: number | null, client: string, cap: number | null, nowMs: number): number | null {
  const fromPayer = availableCredits(payer, allowance, nowMs);
  if (cap === null) return fromPayer;
  const left = Math.max(0, cap - clientUsedIn(payer, client, billingPeriod(nowMs)));
  return fromPayer === null ? left : Math.min(fromPayer, left);
}

/**
 * Decides a reservation of `amount` credits.
 * @throws InsufficientCreditsError when the balance does not cover it.
 */
export function decideReserve(
  state: CreditState,
  command: {
    tenantId: string;
    reservationId: string;
    amount: number;
    endpoint: string;
    allowance: number | null;
    nowMs: number;
    /** The holder's incarnation and lease length (milliseconds); recorded on the event when given. */
    holder?: { incarnation: string; leaseMs: number };
    /** A white-label client's call charged to this (the payer's) stream, with the client's monthly cap (null = none). */
    client?: { tenantId: string; monthlyCap: number | null };
  },
): CreditsReserved {
  const { amount, allowance, nowMs, client } = command;
  if (!Number.isInteger(amount) || amount <= 0) throw new Error('reservation amount must be a positive integer');
  if (client && client.monthlyCap !== null) {
    const left = Math.max(0, client.monthlyCap - clientUsedIn(state, client.tenantId, billingPeriod(nowMs)));
    if (left < amount) {
      const fromPayer = availableCredits(state, allowance, nowMs);
      throw new InsufficientCreditsError(amount, fromPayer === null ? left : Math.min(left, fromPayer), true);
    }
  }
  const monthly = monthlyRemaining(state, allowance, nowMs);
  let fromMonthly: number;
  if (monthly === null) fromMonthly = amount;
  else {
    const available = monthly + Math.max(0, state.purchasedBalance);
    if (available < amount) throw new InsufficientCreditsError(amount, available);
    fromMonthly = Math.min(amount, monthly);
  }
  return {
    type: 'CreditsReserved',
    data: {
      tenant_id: command.tenantId,
      reservation_id: command.reservationId,
      amount,
      from_monthly: fromMonthly,
      from_purchased: amount - fromMonthly,
      period: billingPeriod(nowMs),
      endpoint: command.endpoint,
      reserved_at: new Date(nowMs).toISOString(),
      ...(client ? { client_tenant_id: client.tenantId } : {}),
      ...(command.holder
        ? { holder: command.holder.incarnation, lease_expires_at: new Date(nowMs + command.holder.leaseMs).toISOString() }
        : {}),
    },
  };
}

/** Commits (2xx) or releases (otherwise) an open reservation; null when it is not open (already settled). */
export function decideSettle(
  state: CreditState,
  command: { tenantId: string; reservationId: string; success: boolean; reason?: string; nowMs: number },
): CreditsCommitted | CreditsReleased | null {
  const open = state.open.get(command.reservationId);
  if (!open) return null;
  const at = new Date(command.nowMs).toISOString();
  return command.success
    ? {
        type: 'CreditsCommitted',
        data: { tenant_id: command.tenantId, reservation_id: command.reservationId, amount: open.amount, endpoint: open.endpoint, committed_at: at },
      }
    : {
        type: 'CreditsReleased',
        data: { tenant_id: command.tenantId, reservation_id: command.reservationId, reason: command.reason ?? 'request_failed', released_at: at },
      };
}

/** Operator grant of purchased credits. @throws Error for a non-positive or non-integer amount. */
export function decideGrant(command: { tenantId: string; amount: number; reason?: string; nowMs: number }): CreditsPurchased {
  if (!Number.isInteger(command.amount) || command.amount <= 0) throw new Error('grant amount must be a positive integer');
  return {
    type: 'CreditsPurchased',
    data: { tenant_id: command.tenantId, amount: command.amount, reason: command.reason ?? 'operator_grant', granted_at: new Date(command.nowMs).toISOString() },
  };
}
