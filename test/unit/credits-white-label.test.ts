import { describe, expect, it } from 'vitest';
import {
  InsufficientCreditsError,
  clientAvailable,
  clientUsedIn,
  decideReserve,
  decideSettle,
  evolveCredits,
  initialCreditState,
  type CreditEvent,
} from '../../domain/credits/credits.ts';

/** The owner's credit stream as it folds, with a white-label client's reservations on it (issue 31, item 3). */
describe('credits: a white-label client spends its payer\'s credits within its monthly cap', () => {
  const nov = Date.UTC(2026, 10, 15);
  const dec = Date.UTC(2026, 11, 1, 0, 0, 1);
  const client = { tenantId: 'ten_client', monthlyCap: 5 };
  const reserve = (state: ReturnType<typeof initialCreditState>, id: string, amount: number, nowMs = nov, c: { tenantId: string; monthlyCap: number | null } | null = client) =>
    decideReserve(state, { tenantId: 'ten_owner', reservationId: id, amount, endpoint: 'POST /v1/face/detect', allowance: 20, nowMs, ...(c ? { client: c } : {}) });

  it('counts reservations toward the cap, frees a released one, and resets on the 1st (UTC)', () => {
    const s = initialCreditState();
    evolveCredits(s, reserve(s, 'r1', 3));
    expect(clientUsedIn(s, 'ten_client', '2026-11')).toBe(3);
    let refused: unknown;
    try {
      reserve(s, 'r2', 3);
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(InsufficientCreditsError);
    expect(refused).toMatchObject({ required: 3, available: 2, capped: true });
    // The owner's own calls are not bound by the client's cap.
    evolveCredits(s, reserve(s, 'own', 10, nov, null));
    expect(clientAvailable(s, 20, 'ten_client', 5, nov)).toBe(2);
    // A failed call of the client is released: its credits count neither for the owner nor the cap.
    evolveCredits(s, decideSettle(s, { tenantId: 'ten_owner', reservationId: 'r1', success: false, nowMs: nov }) as CreditEvent);
    expect(clientUsedIn(s, 'ten_client', '2026-11')).toBe(0);
    evolveCredits(s, reserve(s, 'r3', 5));
    evolveCredits(s, decideSettle(s, { tenantId: 'ten_owner', reservationId: 'r3', success: true, nowMs: nov }) as CreditEvent);
    expect(clientAvailable(s, 20, 'ten_client', 5, nov)).toBe(0);
    expect(s.totalUsed).toBe(5);
    // December: the cap and the owner's allowance start again.
    expect(clientAvailable(s, 20, 'ten_client', 5, dec)).toBe(5);
    evolveCredits(s, reserve(s, 'r4', 5, dec));
    expect(clientUsedIn(s, 'ten_client', '2026-12')).toBe(5);
  });

  it('is bounded by the payer\'s balance when that is lower than the cap', () => {
    const s = initialCreditState();
    evolveCredits(s, reserve(s, 'own', 18, nov, null));
    expect(clientAvailable(s, 20, 'ten_client', 5, nov)).toBe(2);
    expect(() => reserve(s, 'r1', 3)).toThrow(InsufficientCreditsError);
    expect(clientAvailable(s, 20, 'ten_client', null, nov)).toBe(2);
  });
});
