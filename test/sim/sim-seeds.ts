/** The seeds `npm test` runs, split in halves so the two halves run on two workers. */
import { expect, it } from 'vitest';
import { canonicalHistory } from './sim-canonical.js';
import { checkHistory } from './sim-checker.js';
import { runSeed } from './sim-run.js';

/** Seeds 1 to 200 in two halves. */
export const SEED_HALVES = { first: [1, 100], second: [101, 200] } as const;

/**
 * Seeds beyond 200 that once failed in a wider run (`npm run sim -- --seed 201 --seeds 600`), kept so their bug stays
 * fixed: 714 and 798 journaled `tool.completed` ahead of the call's record, and the next boot reported it interrupted.
 */
export const FOUND_SEEDS = [714, 798] as const;

/** One `it` per seed of `[from, to]`: no invariant broken; a failure names the command that replays it. */
export function itKeepsEveryInvariant(from: number, to: number): void {
  itKeepsEveryInvariantOn(Array.from({ length: to - from + 1 }, (_, i) => from + i));
}

/** One `it` per seed of `seeds`, as `itKeepsEveryInvariant`. */
export function itKeepsEveryInvariantOn(seeds: readonly number[]): void {
  it.each(seeds)('seed %i keeps every invariant', async (seed) => {
    const violations = checkHistory(await runSeed(seed)).map((v) => `${v.invariant}: ${v.detail}`);
    expect(violations.join('\n'), `replay: npm run sim -- --seed ${seed}`).toBe('');
  });
}

/** Two runs of `seed` in one process record the same history. */
export function itReplaysExactly(seed: number): void {
  it(`seed ${seed} gives the same history twice`, async () => {
    const first = canonicalHistory(await runSeed(seed));
    const second = canonicalHistory(await runSeed(seed));
    expect(second.length).toBe(first.length);
    expect(second === first, `replay: npm run sim -- --seed ${seed}`).toBe(true);
  });
}
