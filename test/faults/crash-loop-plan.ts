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

/** Deals plans for cycles 1, 2, 3…; the same seed deals the same plans. */
export function createKillDealer(rng: SeededRandom, checkpointInterval: number): (cycle: number) => Plan {
  let deck: KillMode[] = [];
  return (cycle) => {
    // The first life always stores a checkpoint before it dies: a message acknowledged before the first checkpoint
    // ever is lost by a crash (a known bug, test/faults/cold-start-replay.test.ts), which would fail any loop whose
    // deal starts with after-message. Every later life restores from a checkpoint, where replay works.
    if (cycle === 1) return { mode: 'after-checkpoint', nth: 1 };
    if (deck.length === 0) {
      deck = (Object.entries(KILL_MODE_DECK) as Array<[KillMode, number]>).flatMap(([mode, n]) => Array<KillMode>(n).fill(mode));
      // Fisher–Yates with the seeded generator.
      for (let i = deck.length - 1; i > 0; i -= 1) {
        const j = rng.int(0, i);
        [deck[i], deck[j]] = [deck[j]!, deck[i]!];
      }
    }
    const mode = deck.pop()!;
    // The how-manyth trigger kills; for during-boot, 1 is the "runtime started" line and 2 a random moment.
    const nth = mode === 'random-beat' ? rng.int(1, 3 * checkpointInterval) : mode === 'mid-think' ? rng.int(1, 3) : rng.int(1, 2);
    return { mode, nth };
  };
}
