/**
 * Seeded pseudo-random numbers for the synthetic document generator: mulberry32 (a 32-bit
 * generator by Tommy Ettinger, public domain), so every document is reproducible from its seed.
 */

/** A deterministic random source. */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max] (inclusive). */
  int(min: number, max: number): number;
  /** Uniform real in [min, max). */
  range(min: number, max: number): number;
  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T;
  /** True with probability `p`. */
  chance(p: number): boolean;
  /** `n` random digits as a string. */
  digits(n: number): string;
  /** A child generator derived from this one and a label (stable across unrelated changes). */
  fork(label: string): Rng;
}

/** FNV-1a 32-bit hash of a string (seed mixing). */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Creates a generator from a numeric or string seed. */
export function createRng(seed: number | string): Rng {
  let a = typeof seed === 'number' ? seed >>> 0 : hash32(seed);
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const rng: Rng = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    range: (min, max) => min + next() * (max - min),
    pick: (items) => items[Math.floor(next() * items.length)]!,
    chance: (p) => next() < p,
    digits: (n) => Array.from({ length: n }, () => String(Math.floor(next() * 10))).join(''),
    fork: (label) => createRng(hash32(`${a}:${label}`)),
  };
  return rng;
}
