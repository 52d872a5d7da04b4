/**
 * mulberry32, a 32-bit pseudo-random generator by Tommy Ettinger (public domain): small, fast and
 * identical on every machine and Node version, so anything derived from a seed (the face-matching
 * projection matrix, synthetic documents, test and benchmark vectors) is reproducible.
 *
 * @param seed any 32-bit integer (taken modulo 2^32)
 * @returns a function giving uniform numbers in [0, 1), 2^32 distinct values
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
