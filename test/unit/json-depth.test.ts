/** `nestedDeeperThan`: the depth rule stored JSON is held to (SQLite's JSON functions stop at 1,000 levels). */
import { describe, expect, it } from 'vitest';
import { nestedDeeperThan } from '../../domain/shared/json-depth.ts';

const nested = (n: number) => JSON.parse(`${'{"a":'.repeat(n)}1${'}'.repeat(n)}`) as unknown;

describe('nestedDeeperThan', () => {
  it('counts objects and arrays, the outermost as level 1; scalars have no depth', () => {
    expect(nestedDeeperThan(nested(32), 32)).toBe(false);
    expect(nestedDeeperThan(nested(33), 32)).toBe(true);
    expect(nestedDeeperThan(JSON.parse('[[[1]]]'), 3)).toBe(false);
    expect(nestedDeeperThan(JSON.parse('[[[1]]]'), 2)).toBe(true);
    expect(nestedDeeperThan(JSON.parse('{"a":[{"b":[]}]}'), 3)).toBe(true);
    for (const scalar of [null, 1, 'x', true]) expect(nestedDeeperThan(scalar, 0)).toBe(false);
  });

  it('finds a deep branch among shallow ones, and walks 400,000 levels without overflowing the stack', () => {
    const wide = { a: 1, b: [1, 2], c: { d: { e: { f: {} } } } };
    expect(nestedDeeperThan(wide, 4)).toBe(true);
    expect(nestedDeeperThan(wide, 5)).toBe(false);
    const deep = JSON.parse(`${'['.repeat(400_000)}${']'.repeat(400_000)}`) as unknown;
    expect(nestedDeeperThan(deep, 64)).toBe(true);
  });
});
