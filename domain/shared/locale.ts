/**
 * The reader's language and time zone, for what people read (signing page, signing e-mails, the
 * certificate of completion, the usage page). Spanish as spoken in Mexico is the default, times in
 * Mexico City's zone. Dates and numbers are formatted by the platform's `Intl` (CLDR data shipped with
 * Node), never by hand.
 */

/** Languages with a message catalogue: `es` (es-MX, the default) and `en`. */
export const LANGUAGES = ['es', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

/** A reader's locale: catalogue language and IANA time zone (e.g. `America/Mexico_City`). */
export interface Locale {
  language: Language;
  timeZone: string;
}

/** Mexico: Spanish, Mexico City time. */
export const DEFAULT_LOCALE: Locale = { language: 'es', timeZone: 'America/Mexico_City' };

/** The BCP 47 tag each catalogue language formats with (Intl, `<html lang>`). */
export const LANGUAGE_TAGS: Record<Language, string> = { es: 'es-MX', en: 'en-US' };

/**
 * Reads a requested language: `es`, `es-MX`, `en`, `en-US`... (case-insensitive, the primary subtag
 * decides). Returns null for anything else (the caller answers 400).
 */
export function parseLanguage(v: string): Language | null {
  const primary = v.trim().toLowerCase().split(/[-_]/)[0];
  return (LANGUAGES as readonly string[]).includes(primary ?? '') ? (primary as Language) : null;
}

/** True for an IANA time zone name the platform knows (`America/Tijuana`, `UTC`...). */
export function isTimeZone(tz: string): boolean {
  if (!tz || tz.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const cache = new Map<string, Intl.DateTimeFormat>();
function formatter(locale: Locale, style: DateStyle): Intl.DateTimeFormat {
  const key = `${locale.language}|${locale.timeZone}|${style}`;
  let f = cache.get(key);
  if (!f) {
    const o: Intl.DateTimeFormatOptions =
      style === 'date'
        ? { year: 'numeric', month: 'long', day: 'numeric', timeZone: locale.timeZone }
        : style === 'long'
          ? { year: 'numeric', month: 'long', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZone: locale.timeZone, timeZoneName: 'long' }
          : style === 'precise'
            ? { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZone: locale.timeZone, timeZoneName: 'shortOffset' }
            : { month: 'short', day: 'numeric', timeZone: locale.timeZone };
    f = new Intl.DateTimeFormat(LANGUAGE_TAGS[locale.language], o);
    cache.set(key, f);
  }
  return f;
}

/**
 * How a date is shown: `long` (day, month in words, year, time, zone name: for sentences), `precise`
 * (to the second with the UTC offset: certificate and audit lines), `date` (day only), `day` (short
 * day and month: chart axes).
 */
export type DateStyle = 'long' | 'precise' | 'date' | 'day';

/**
 * Formats an instant (ISO 8601 text or epoch ms) in the reader's words and time zone, e.g.
 * `31 de diciembre de 2026, 5:59 p.m. hora estándar central`. Returns the input unchanged when it is
 * not a date (never throws on bad data in a page).
 */
export function formatDateTime(at: string | number, locale: Locale, style: DateStyle = 'long'): string {
  const ms = typeof at === 'number' ? at : Date.parse(at);
  if (!Number.isFinite(ms)) return String(at);
  return formatter(locale, style).format(ms);
}

/** Formats a number with the locale's grouping (`12,345`). */
export function formatNumber(n: number, locale: Locale): string {
  return new Intl.NumberFormat(LANGUAGE_TAGS[locale.language]).format(n);
}
