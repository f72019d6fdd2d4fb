/**
 * The consolidation policy (pure): which working-memory items become long-term memories as they leave working
 * memory. An item is kept when, at its last attention (admission, refresh or `memory.attend`), its salience was at
 * least `CONSOLIDATION_THRESHOLD`: that is how much it mattered, whereas by the time decay pushes it out its salience
 * is near zero whatever it was.
 */
import { SALIENCE_DECAY_PER_MINUTE } from '../../actors/working-memory/working-memory.reducer.js';
import type { MemoryItem, WorkingMemoryState } from '../../actors/working-memory/working-memory.schema.js';

/** An item leaving working memory whose salience at its last attention was at least this is consolidated. */
export const CONSOLIDATION_THRESHOLD = 0.5;

const DECAY_PER_MS = SALIENCE_DECAY_PER_MINUTE / 60_000;

/**
 * The salience `item` had at its last attention. Decay is linear and nothing but attention raises salience, so it is
 * the salience stored as of `asOf` (the state's `updatedAt`) plus what decay took since `lastAttendedAt`.
 */
export function salienceAtLastAttention(item: MemoryItem, asOf: number): number {
  return Math.min(1, item.salience + Math.max(0, asOf - item.lastAttendedAt) * DECAY_PER_MS);
}

/** A working-memory item as seen in a state last updated (decayed) at `asOf`. */
export interface SeenItem {
  item: MemoryItem;
  asOf: number;
}

/** The items of `state`, each seen as of the state's `updatedAt`. */
export function seenItems(state: WorkingMemoryState): SeenItem[] {
  return state.items.map((item) => ({ item, asOf: state.updatedAt }));
}

/** One item to consolidate, with the salience it is kept at. */
export interface Consolidation {
  item: MemoryItem;
  salience: number;
}

/**
 * The items seen that are no longer in `remaining` (evicted by a more salient one, or decayed away) and mattered
 * enough to keep, in the order seen. Items in `exclude` (removed on purpose) are never kept.
 */
export function itemsToConsolidate(
  seen: readonly SeenItem[],
  remaining: readonly MemoryItem[],
  exclude: ReadonlySet<string> = new Set(),
): Consolidation[] {
  const kept = new Set(remaining.map((item) => item.id));
  const out: Consolidation[] = [];
  for (const { item, asOf } of seen) {
    if (kept.has(item.id) || exclude.has(item.id)) continue;
    const salience = salienceAtLastAttention(item, asOf);
    if (salience >= CONSOLIDATION_THRESHOLD) out.push({ item, salience });
  }
  return out;
}
