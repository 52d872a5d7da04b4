/**
 * Nesting depth of parsed JSON, for input that is stored: SQLite's JSON functions refuse documents nested
 * deeper than 1,000 levels ("malformed JSON", `JSON_MAX_DEPTH` in sqlite's json.c), so one such value in
 * a read-model document made its projection fail on every retry, for every tenant, and again after a
 * restart (the event was already in the log). Values are refused at the HTTP edge instead.
 */

/** Deepest nesting of objects and arrays accepted in a JSON request body (`{"a":{"b":1}}` is 2). */
export const MAX_JSON_BODY_DEPTH = 64;

/** Deepest nesting accepted in a `metadata` object (face and fingerprint enrolment); the object itself is level 1. */
export const MAX_METADATA_DEPTH = 32;

/**
 * True when `value` (as `JSON.parse` returns it) nests objects or arrays more than `max` levels deep. The
 * walk is iterative (a body of 1 MB can nest half a million levels) and stops at the first level past `max`.
 */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}
