/**
 * Long-term memory's retention (pure): which memories go when the store holds more than its bound
 * (VIGIL_MEMORY_MAX_COUNT). Every other store of a long-lived agent is bounded (conversation, traces, checkpoints,
 * tool calls, the journal); without this one, memory, its in-RAM index and the cost of each search would grow for as
 * long as the agent runs.
 */
import type { StoredMemory } from '../../protocol/memory.schema.js';

/** The default bound: the size at which `memory.search` and the boot are held to their targets (`bench/memory-search.bench.ts`). */
export const DEFAULT_MEMORY_MAX_COUNT = 100_000;

/**
 * A memory's worth halves over this many days since it was last kept or used (a fact kept again, or recalled by the
 * agent, is fresh again).
 */
export const MEMORY_HALF_LIFE_DAYS = 90;

const HALF_LIFE_MS = MEMORY_HALF_LIFE_DAYS * 86_400_000;

/**
 * How stale a memory's last use may be before a new use is written: a day, against a 90-day half-life, so a memory
 * the agent recalls in every think costs one write a day, not one a think.
 */
export const RECALL_REFRESH_MS = 86_400_000;

/** When `memory` was last kept or used by the agent: what its worth decays from. */
export function lastValuedAt(memory: StoredMemory): number {
  return Math.max(memory.updatedAt, memory.recalledAt ?? Number.NEGATIVE_INFINITY);
}

/**
 * What keeping `memory` is worth at `now`: its salience, halved for every half-life since it was last kept or used. A
 * fact that mattered a great deal outlives many trivial ones, but not forever: a salience of 1 kept a year ago and not
 * used since is worth less than a salience of 0.1 kept today; a fact the agent keeps recalling stays.
 */
export function retentionValue(memory: StoredMemory, now: number): number {
  return memory.salience * 0.5 ** (Math.max(0, now - lastValuedAt(memory)) / HALF_LIFE_MS);
}

/**
 * A memory's place in the order of worth: log2 of its worth at any moment after it was last kept or used, less a term
 * of that moment alone. So memories rank the same whenever they are compared, and no clock is needed to choose.
 */
export function retentionRank(memory: StoredMemory): number {
  return Math.log2(memory.salience) + lastValuedAt(memory) / HALF_LIFE_MS;
}

/**
 * How many to forget once the store holds `size` memories against a bound of `maxCount`: down to 1 % below the bound
 * (at least one), so the choice, which ranks every memory, is made once per many keeps rather than at each one.
 */
export function evictionCount(size: number, maxCount: number): number {
  if (size <= maxCount) return 0;
  return size - maxCount + Math.floor(maxCount / 100);
}

/**
 * The `count` memories least worth keeping, least first; among equals (a salience of 0 ranks lowest of all) the older
 * seq goes first.
 */
export function memoriesToEvict(memories: Iterable<StoredMemory>, count: number): StoredMemory[] {
  if (count <= 0) return [];
  const ranked: { memory: StoredMemory; rank: number }[] = [];
  for (const memory of memories) ranked.push({ memory, rank: retentionRank(memory) });
  // A difference of two -Infinity ranks is NaN, which falls through to the seq.
  ranked.sort((a, b) => a.rank - b.rank || a.memory.seq - b.memory.seq);
  return ranked.slice(0, count).map((entry) => entry.memory);
}
