/**
 * Seeded pseudo-random numbers for the synthetic document generator: mulberry32 (a 32-bit
 * generator by Tommy Ettinger, public domain; `domain/shared/mulberry32.ts`), so every document is
 * reproducible from its seed.
 */
import { mulberry32 } from '../../domain/shared/mulberry32.ts';

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
  const seed32 = typeof seed === 'number' ? seed >>> 0 : hash32(seed);
  const draw = mulberry32(seed32);
  let draws = 0;
  const next = () => {
    draws++;
    return draw();
  };
  /** mulberry32's state after `draws` draws (what `fork` mixes in, as before the generator was shared). */
  const state = () => (seed32 + Math.imul(draws, 0x6d2b79f5)) >>> 0;
  const rng: Rng = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    range: (min, max) => min + next() * (max - min),
    pick: (items) => items[Math.floor(next() * items.length)]!,
    chance: (p) => next() < p,
    digits: (n) => Array.from({ length: n }, () => String(Math.floor(next() * 10))).join(''),
    fork: (label) => createRng(hash32(`${state()}:${label}`)),
  };
  return rng;
}
