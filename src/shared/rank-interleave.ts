/**
 * Merges two ranked lists from different indexes into one: their scores are not comparable (each index's BM25 has its
 * own statistics), their ranks are, so the lists are interleaved rank by rank, the first list's hit first at each rank.
 */

/** The first `limit` of `first` and `second` interleaved (first[0], second[0], first[1], …); a shorter list runs out. */
export function interleaveByRank<T>(first: readonly T[], second: readonly T[], limit: number): T[] {
  const out: T[] = [];
  for (let rank = 0; out.length < limit && (rank < first.length || rank < second.length); rank += 1) {
    if (rank < first.length) out.push(first[rank]!);
    if (out.length < limit && rank < second.length) out.push(second[rank]!);
  }
  return out;
}
