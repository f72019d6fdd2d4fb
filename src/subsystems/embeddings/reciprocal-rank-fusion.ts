/**
 * Reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009): several rankings of the same records become one,
 * each record scored Σ 1 / (k + rank) over the rankings that hold it. Ranks only, never scores, so a BM25 score and a
 * cosine similarity need no common scale.
 */

/** The constant of the paper: it damps the weight of the very first ranks, so one ranking alone cannot dominate. */
export const RRF_K = 60;

/** One fused record: its key and its fused score (higher is better). */
export interface FusedHit<K> {
  key: K;
  score: number;
}

/**
 * The records of `rankings` (each best first, a key at most once per ranking), fused and best first. A record found
 * by more rankings, or higher in them, ranks higher; ties keep the order in which the records were first met (the
 * first ranking's order first), so the result is deterministic.
 */
export function fuseByReciprocalRank<K>(rankings: readonly (readonly K[])[], k: number = RRF_K): FusedHit<K>[] {
  const scores = new Map<K, number>();
  for (const ranking of rankings) {
    const seen = new Set<K>();
    ranking.forEach((key, index) => {
      if (seen.has(key)) return;
      seen.add(key);
      scores.set(key, (scores.get(key) ?? 0) + 1 / (k + index + 1));
    });
  }
  // Map iteration follows insertion, and Array.prototype.sort is stable: equal scores keep that order.
  return [...scores].map(([key, score]) => ({ key, score })).sort((a, b) => b.score - a.score);
}
