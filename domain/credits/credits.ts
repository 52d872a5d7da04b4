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
export type CreditsCommitted = { type: 'CreditsCommitted'; data: { tenant_id: string; reservation_id: string; amount: number; endpoint: string; committed_at: string } };
export type CreditsReleased = { type: 'CreditsReleased'; data: { tenant_id: string; reservation_id: string; reason: string; released_at: string } };
export type CreditEvent = CreditsPurchased | CreditsReserved | CreditsCommitted | CreditsReleased;
export const CREDIT_EVENT_TYPES = ['CreditsPurchased', 'CreditsReserved', 'CreditsCommitted', 'CreditsReleased'] as const;

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
}

export const initialCreditState = (): CreditState => ({
  period: null,
  monthlyUsed: 0,
  purchasedBalance: 0,
  totalPurchased: 0,
  totalUsed: 0,
  usedByEndpoint: {},
  open: new Map(),
});

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
      state.open.set(d.reservation_id, {
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
      return state;
    }
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
  constructor(
    readonly required: number,
    readonly available: number,
  ) {
    super(`insufficient credits: ${required} required, ${available} available`);
  }
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
  },
): CreditsReserved {
  const { amount, allowance, nowMs } = command;
  if (!Number.isInteger(amount) || amount <= 0) throw new Error('reservation amount must be a positive integer');
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
