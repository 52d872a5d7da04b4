/**
 * Reference lists, all from updatable npm data packages (never typed by hand here); `npm update` refreshes them:
 * - disposable domains: `disposable-email-domains` (ivolo/disposable-email-domains: `index.json` exact domains,
 *   `wildcard.json` domains whose every sub-domain is disposable too);
 * - free consumer providers: `email-providers` (derhuerst/email-providers `all.json`, built from public
 *   free-provider lists);
 * - role-based local parts: `role-based-email-addresses` (mixmaxhq/role-based-email-addresses);
 * - typo suggestions: `@zootools/email-spell-checker` (maintained TypeScript fork of Kicksend's mailcheck),
 *   fed with its popular domains plus the provider lists above (so `yaho.com.mx` suggests `yahoo.com.mx`).
 * The JSON lists are loaded once, on first use.
 */
import { createRequire } from 'node:module';
import spellChecker from '@zootools/email-spell-checker';

const require = createRequire(import.meta.url);

interface Lists {
  disposable: Set<string>;
  disposableWildcard: Set<string>;
  free: Set<string>;
  role: Set<string>;
  suggestDomains: string[];
  suggestDomainSet: Set<string>;
  suggestTlds: string[];
}

let lists: Lists | undefined;

function load(): Lists {
  if (lists) return lists;
  const disposable = new Set<string>(require('disposable-email-domains/index.json') as string[]);
  const disposableWildcard = new Set<string>(require('disposable-email-domains/wildcard.json') as string[]);
  const allProviders = require('email-providers/all.json') as string[];
  const commonProviders = require('email-providers/common.json') as string[];
  const role = new Set<string>((require('role-based-email-addresses') as string[]).map((r) => r.toLowerCase()));
  const suggestDomains = [
    ...new Set([...spellChecker.POPULAR_DOMAINS, ...commonProviders, ...allProviders.filter((d) => d.endsWith('.mx'))]),
  ];
  // TLD candidates: the package's popular TLDs plus the public suffixes of the suggestion domains (com.mx,
  // net.mx...). Every extra candidate costs fuzzy-matching time on each new domain, so not all 8k providers'.
  const suggestTlds = [...new Set([...spellChecker.POPULAR_TLDS, ...suggestDomains.map((d) => d.split('.').slice(1).join('.'))])];
  lists = { disposable, disposableWildcard, free: new Set(allProviders), role, suggestDomains, suggestDomainSet: new Set(suggestDomains), suggestTlds };
  return lists;
}

/** Loads the lists now (call at start-up so the first request does not pay ~100 ms of JSON parsing). */
export function preloadEmailLists(): void {
  load();
}

/** True when `asciiDomain` (lower-case) or, for wildcard entries, one of its parents is a disposable domain. */
export function isDisposableDomain(asciiDomain: string): boolean {
  const l = load();
  if (l.disposable.has(asciiDomain) || l.disposableWildcard.has(asciiDomain)) return true;
  const labels = asciiDomain.split('.');
  for (let i = 1; i < labels.length - 1; i++) {
    const parent = labels.slice(i).join('.');
    if (l.disposableWildcard.has(parent)) return true;
  }
  return false;
}

/** True when `asciiDomain` (lower-case) is a free consumer mailbox provider. */
export function isFreeProvider(asciiDomain: string): boolean {
  return load().free.has(asciiDomain);
}

/**
 * True when the local part names a role or group (`info`, `soporte`, `no-reply`...) rather than a person.
 * A sub-address tag is ignored (`admin+x` is `admin`); a quoted local part is compared unquoted.
 */
export function isRoleBased(local: string): boolean {
  let l = local.toLowerCase();
  if (l.startsWith('"') && l.endsWith('"')) l = l.slice(1, -1).replace(/\\(.)/g, '$1');
  const role = load().role;
  if (role.has(l)) return true;
  const plus = l.indexOf('+');
  return plus > 0 && role.has(l.slice(0, plus));
}

/**
 * Typo correction for the domain (`juan@gmial.com` -> `juan@gmail.com`), or null. Popular provider domains
 * and address literals never get a suggestion.
 * @param local the local part as typed; @param asciiDomain the lower-case A-label domain.
 */
export function suggestCorrection(local: string, asciiDomain: string): string | null {
  const l = load();
  if (asciiDomain.startsWith('[') || l.suggestDomainSet.has(asciiDomain)) return null;
  let corrected = suggestionCache.get(asciiDomain);
  if (corrected === undefined) {
    // The suggestion depends on the domain alone (~1 ms of fuzzy matching): remember it per domain.
    const found = spellChecker.run({ email: `x@${asciiDomain}`, domains: l.suggestDomains, topLevelDomains: l.suggestTlds });
    corrected = found && found.domain !== asciiDomain && plausibleTypo(asciiDomain, found.domain) ? found.domain : null;
    if (suggestionCache.size >= SUGGESTION_CACHE_SIZE) suggestionCache.delete(suggestionCache.keys().next().value as string);
    suggestionCache.set(asciiDomain, corrected);
  }
  return corrected === null ? null : `${local}@${corrected}`;
}

/**
 * Whether `suggested` can be what was meant by `typed`: the same first label (only the suffix was
 * mistyped: `gmail.co`), or first labels of at least three characters that one edit per three characters
 * of the suggestion turns into each other (restricted Damerau-Levenshtein: a transposition is one edit,
 * `gmial` -> `gmail`). mailcheck's own distance (sift3, threshold 2) offered `qq.com` for `d1.com`,
 * `bt.com` for `b.com` and `lee.mx` for `tec.mx`: names rewritten, not typos.
 */
function plausibleTypo(typed: string, suggested: string): boolean {
  const a = typed.split('.')[0]!;
  const b = suggested.split('.')[0]!;
  if (a === b) return true;
  return Math.min(a.length, b.length) >= 3 && osaDistance(a, b) <= Math.max(1, Math.floor(b.length / 3));
}

/** Optimal string alignment distance (insertions, deletions, substitutions and adjacent transpositions; Damerau 1964). */
function osaDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

const SUGGESTION_CACHE_SIZE = 20_000;
const suggestionCache = new Map<string, string | null>();
