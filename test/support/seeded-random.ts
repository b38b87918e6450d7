import { createHash } from 'node:crypto';

// Draws for the password-pattern test (test/auth/password-patterns.test.ts): from a seeded stream, so every
// run judges the same sample of generated passwords and none can fail by chance.

/** Where the draws come from. */
export interface RandomSource {
  /** An integer in [0, max). */
  int(max: number): number;
  bytes(length: number): Buffer;
}

/** A reproducible stream (SHA-256 of the seed and a counter); `int` has a modulo bias of at most max/2^32. */
export function seededRandom(seed: string): RandomSource {
  let counter = 0;
  let pool = Buffer.alloc(0);
  const bytes = (length: number): Buffer => {
    while (pool.length < length)
      pool = Buffer.concat([
        pool,
        createHash('sha256')
          .update(`${seed}:${(counter += 1)}`)
          .digest(),
      ]);
    const drawn = Buffer.from(pool.subarray(0, length));
    pool = pool.subarray(length);
    return drawn;
  };
  return { bytes, int: (max) => bytes(4).readUInt32BE() % max };
}
