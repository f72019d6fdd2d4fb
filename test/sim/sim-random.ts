/** The simulator's randomness: one seed, split into named streams so that a part drawing more never shifts another's draws. */
import { seededRandom, type SeededRandom } from '../faults/seeded-random.js';

/** Random choices of one part of the simulation. */
export interface SimRandom extends SeededRandom {
  /** True with probability `p`. */
  chance(p: number): boolean;
  /** One of `items`, uniformly. */
  pick<T>(items: readonly T[]): T;
  /** One key of `weights`, with probability proportional to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K;
  /** A stream of its own, derived from this one's seed and `name` (not from its draws so far). */
  fork(name: string): SimRandom;
}

/** The random source of seed `seed`. */
export function simRandom(seed: number): SimRandom {
  const base = seededRandom(seed);
  const next = () => base.next();
  return {
    seed: base.seed,
    next,
    int: (min, max) => base.int(min, max),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)]!,
    weighted: (weights) => {
      const entries = Object.entries(weights) as [never, number][];
      const total = entries.reduce((sum, [, w]) => sum + w, 0);
      let at = next() * total;
      for (const [key, w] of entries) {
        at -= w;
        if (at < 0) return key;
      }
      return entries[entries.length - 1]![0];
    },
    fork: (name) => simRandom(mix(base.seed, name)),
  };
}

// FNV-1a over the name, folded into the seed: distinct names give unrelated streams.
function mix(seed: number, name: string): number {
  let hash = 0x811c9dc5 ^ seed;
  for (let i = 0; i < name.length; i += 1) hash = Math.imul(hash ^ name.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}
