/**
 * Time arithmetic of usage analytics: UTC buckets (minute, hour, day), billing months and the
 * parsing of the `/v1/usage/*` date parameters. All instants are epoch milliseconds or ISO 8601 UTC
 * strings as `Date.toISOString()` writes them (`2026-11-25T17:09:11.123Z`), which sort as strings.
 */

/** Rollup grains, finest first, with their length in ms. Days are UTC days. */
export const GRAINS = [
  { name: 'm', ms: 60_000 },
  { name: 'h', ms: 3_600_000 },
  { name: 'd', ms: 86_400_000 },
] as const;
export type GrainName = (typeof GRAINS)[number]['name'];

export const floorTo = (ms: number, step: number): number => Math.floor(ms / step) * step;
export const ceilTo = (ms: number, step: number): number => Math.ceil(ms / step) * step;
export const iso = (ms: number): string => new Date(ms).toISOString();

/** `YYYY-MM` of an instant (UTC), the billing period key. */
export const monthKey = (ms: number): string => iso(ms).slice(0, 7);

/** First instant of the UTC month containing `ms`, shifted by `offset` months. */
export function monthStart(ms: number, offset = 0): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + offset, 1);
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
/** ISO 8601 date-time with seconds optional, fraction optional and a zone (Z or ±hh:mm); or a bare date. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * The latest instant a usage date parameter stands for: the end of 9999-12-30 (UTC). Instants are
 * compared as ISO 8601 texts, and one past the end of year 9999 is written `+010000-...`, which sorts
 * before every other year: `end_date=9999-12-31` (a "no end" many clients send) then matched nothing.
 * One day of margin keeps every bound the range queries make (the day bucket after it included) within
 * four-digit years.
 */
export const LAST_USAGE_INSTANT = Date.UTC(9999, 11, 30, 23, 59, 59, 999);

/**
 * Parses a usage date parameter: `YYYY-MM-DD` (a UTC day: its first instant, or with `endOfDay` its
 * last millisecond) or an ISO 8601 date-time (a missing zone means UTC), capped at
 * {@link LAST_USAGE_INSTANT}. Null when malformed or not a real calendar date (2026-02-30).
 */
export function parseUsageDate(text: string, endOfDay = false): number | null {
  const ms = parseDate(text, endOfDay);
  return ms === null ? null : Math.min(ms, LAST_USAGE_INSTANT);
}

function parseDate(text: string, endOfDay: boolean): number | null {
  if (DATE_ONLY.test(text)) {
    const ms = Date.parse(`${text}T00:00:00.000Z`);
    if (Number.isNaN(ms) || iso(ms).slice(0, 10) !== text) return null;
    return endOfDay ? ms + 86_400_000 - 1 : ms;
  }
  if (!DATE_TIME.test(text)) return null;
  const hasZone = /(Z|[+-]\d{2}:?\d{2})$/.test(text);
  const ms = Date.parse(hasZone ? text : `${text}Z`);
  if (Number.isNaN(ms)) return null;
  // Date.parse rolls 2026-02-30 over to March: compare the calendar date when the zone is UTC.
  if ((!hasZone || text.endsWith('Z')) && iso(ms).slice(0, 10) !== text.slice(0, 10)) return null;
  return ms;
}

/**
 * Splits the half-open range [from, to) into whole buckets of the coarsest grains that fit plus
 * leftover raw edges (finer than a minute), so exact statistics can be summed from rollups:
 * e.g. 10:00:30 -> 13:05 = raw [10:00:30, 10:01) + minutes [10:01, 11:00) + hours [11:00, 13:00)
 * + minutes [13:00, 13:05). Returns the pieces in time order.
 */
export type RangePiece = { kind: 'raw'; from: number; to: number } | { kind: 'buckets'; grain: GrainName; from: number; to: number };

export function decomposeRange(from: number, to: number, level = GRAINS.length - 1): RangePiece[] {
  if (to <= from) return [];
  if (level < 0) return [{ kind: 'raw', from, to }];
  const g = GRAINS[level]!;
  const a = ceilTo(from, g.ms);
  const b = floorTo(to, g.ms);
  if (a >= b) return decomposeRange(from, to, level - 1);
  return [...decomposeRange(from, a, level - 1), { kind: 'buckets', grain: g.name, from: a, to: b }, ...decomposeRange(b, to, level - 1)];
}
