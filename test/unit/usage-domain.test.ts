import { describe, expect, it } from 'vitest';
import { decomposeRange, parseUsageDate } from '../../domain/usage/time.ts';
import { csvCell, csvRow } from '../../domain/usage/csv.ts';
import { conditionHolds, normaliseAlert, stepAlert } from '../../domain/usage/alerts.ts';
import { decideUseLink, issueDashboardLink, parseDashboardToken } from '../../domain/usage/dashboard-links.ts';
import { createRng } from '../generators/rng.ts';

describe('usage time ranges', () => {
  it('parses dates and date-times, refusing impossible calendar dates', () => {
    expect(parseUsageDate('2026-11-20')).toBe(Date.UTC(2026, 10, 20));
    expect(parseUsageDate('2026-11-20', true)).toBe(Date.UTC(2026, 10, 21) - 1);
    expect(parseUsageDate('2026-11-20T10:30:00Z')).toBe(Date.UTC(2026, 10, 20, 10, 30));
    expect(parseUsageDate('2026-11-20T10:30:00-06:00')).toBe(Date.UTC(2026, 10, 20, 16, 30));
    expect(parseUsageDate('2026-11-20T10:30')).toBe(Date.UTC(2026, 10, 20, 10, 30));
    for (const bad of ['2026-02-30', '2026-13-01', '20261120', 'yesterday', '2026-11-20T25:00:00Z', '']) expect(parseUsageDate(bad), bad).toBeNull();
  });

  it('decomposes a range into pieces that tile it exactly, coarsest buckets inside', () => {
    const rng = createRng('decompose');
    for (let i = 0; i < 500; i++) {
      const from = Date.UTC(2026, 0, 1) + rng.int(0, 90 * 86_400_000);
      const to = from + rng.int(0, rng.pick([120_000, 7_200_000, 40 * 86_400_000]));
      const pieces = decomposeRange(from, to);
      let at = from;
      for (const p of pieces) {
        expect(p.from).toBe(at);
        expect(p.to).toBeGreaterThan(p.from);
        if (p.kind === 'raw') expect(p.to - p.from).toBeLessThan(2 * 60_000);
        else {
          const step = { m: 60_000, h: 3_600_000, d: 86_400_000 }[p.grain];
          expect(p.from % step).toBe(0);
          expect(p.to % step).toBe(0);
        }
        at = p.to;
      }
      expect(at).toBe(to > from ? to : from);
      expect(pieces.filter((p) => p.kind === 'buckets' && p.grain === 'd').length).toBeLessThanOrEqual(1);
    }
  });
});

describe('CSV cells (RFC 4180, CSV injection)', () => {
  it('quotes, doubles quotes and neutralises formulas; numbers stay numbers', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\r\nlines')).toBe('"two\r\nlines"');
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('-1')).toBe("'-1");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\tcmd')).toBe("'\tcmd");
    expect(csvCell('=HYPERLINK("x","y")')).toBe('"\'=HYPERLINK(""x"",""y"")"');
    expect(csvCell(-1)).toBe('-1');
    expect(csvCell(0.25)).toBe('0.25');
    expect(csvCell(null)).toBe('');
    expect(csvCell('ñandú ✓')).toBe('ñandú ✓');
    expect(csvRow(['a', 1, null])).toBe('a,1,\r\n');
  });
});

describe('alerts', () => {
  it('fires once per crossing (hysteresis)', () => {
    const values = [10, 5, 4, 3, 8, 9, 2, 1, 20];
    let state: 'armed' | 'triggered' = 'armed';
    const fired: number[] = [];
    for (const v of values) {
      const s = stepAlert(state, conditionHolds({ metric: 'credits_remaining', operator: 'lt', value: 6 }, v));
      if (s.fire) fired.push(v);
      state = s.state;
    }
    expect(fired).toEqual([5, 2]);
    expect(conditionHolds({ metric: 'error_rate', operator: 'gte', value: 5, window: '1h' }, null)).toBe(false);
  });

  it('normalises bodies and keeps the unchanged fields on update', () => {
    const a = normaliseAlert({ name: ' x ', condition: { metric: 'error_rate', operator: '>=', value: 5 }, notification: { email: 'a@b.co' } });
    expect(a).toEqual({ name: 'x', condition: { metric: 'error_rate', operator: 'gte', value: 5, window: '1h' }, notification: { webhook_url: null, email: 'a@b.co' }, enabled: true });
    const b = normaliseAlert({ enabled: false, condition: { value: 9 } }, a);
    expect(b.condition).toEqual({ metric: 'error_rate', operator: 'gte', value: 9, window: '1h' });
    expect(b.enabled).toBe(false);
    expect(() => normaliseAlert({ name: 'x', condition: { metric: 'calls_this_month', operator: 'gt', value: 1, window: '5m' }, notification: { email: 'a@b.co' } })).toThrow(/window/);
  });
});

describe('dashboard sign-in links', () => {
  it('work once, before expiry, with the right secret only', () => {
    const now = Date.UTC(2026, 10, 20);
    const { token, event } = issueDashboardLink('t1', now, 15);
    const p = parseDashboardToken(token)!;
    expect(p.linkId).toBe(event.data.link_id);
    expect(event.data.token_hash).not.toContain(p.secret);
    const ok = decideUseLink([event], p.secret, now + 60_000);
    expect(ok.ok).toBe(true);
    expect(decideUseLink([event], p.secret.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')), now).ok).toBe(false);
    expect(decideUseLink([event], p.secret, now + 16 * 60_000)).toEqual({ ok: false, reason: 'expired' });
    if (ok.ok) expect(decideUseLink([event, ok.event], p.secret, now + 61_000)).toEqual({ ok: false, reason: 'used' });
    expect(decideUseLink([], p.secret, now)).toEqual({ ok: false, reason: 'unknown' });
    expect(parseDashboardToken('dl_x.y')).toBeNull();
  });
});
