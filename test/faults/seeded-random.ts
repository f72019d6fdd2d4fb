/** A small seeded PRNG (mulberry32) for fault campaigns: the same seed makes the same sequence of decisions. */

/** Random choices drawn from one seed. */
export interface SeededRandom {
  readonly seed: number;
  /** A float in [0, 1); a function of its own, so it can be handed on alone (`seededRandom(7).next`). */
  readonly next: () => number;
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number;
}

/** A fresh 32-bit seed from the environment variable `name` when it holds one, else from Math.random. */
export function seedFrom(env: Record<string, string | undefined>, name: string): number {
  const text = env[name];
  if (text !== undefined && /^\d+$/.test(text.trim())) return Number(text.trim()) >>> 0;
  return Math.floor(Math.random() * 2 ** 32) >>> 0;
}

/** mulberry32 over `seed`: fast, 32-bit state, good enough to pick kill moments reproducibly. */
export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    seed: seed >>> 0,
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
  };
}
