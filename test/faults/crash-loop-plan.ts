/** Which kill comes next: a seeded, shuffled deck of kill modes, so every mode comes up in any ten kills in a row. */
import type { SeededRandom } from './seeded-random.js';
import type { KillMode, Plan } from './crash-loop.types.js';

/** How many of every 10 kills land in each mode: a shuffled deck, so any 10 kills in a row meet every mode. */
export const KILL_MODE_DECK: Readonly<Record<KillMode, number>> = {
  'after-checkpoint': 3,
  'mid-save': 2,
  'mid-think': 2,
  'after-message': 1,
  'random-beat': 1,
  // At the "runtime started" line or at a random moment late in the boot (see killMidBoot), one or the other.
  'during-boot': 1,
};

/** Deals the plan of each next kill; the same seed deals the same plans. */
export function createKillDealer(rng: SeededRandom, checkpointInterval: number): () => Plan {
  let deck: KillMode[] = [];
  return () => {
    if (deck.length === 0) {
      deck = (Object.entries(KILL_MODE_DECK) as Array<[KillMode, number]>).flatMap(([mode, n]) =>
        Array<KillMode>(n).fill(mode),
      );
      // Fisher–Yates with the seeded generator.
      for (let i = deck.length - 1; i > 0; i -= 1) {
        const j = rng.int(0, i);
        [deck[i], deck[j]] = [deck[j]!, deck[i]!];
      }
    }
    const mode = deck.pop()!;
    // The how-manyth trigger kills; for during-boot, 1 is the "runtime started" line and 2 a random moment.
    const nth =
      mode === 'random-beat'
        ? rng.int(1, 3 * checkpointInterval)
        : mode === 'mid-think'
          ? rng.int(1, 3)
          : rng.int(1, 2);
    return { mode, nth };
  };
}
