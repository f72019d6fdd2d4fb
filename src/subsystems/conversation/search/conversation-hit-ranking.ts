/**
 * The final ranking of a conversation search: from the index's raw hits (seq and BM25 score) to the hits returned.
 * A message also counts for what is said around it: each message's score is its own plus the best of its
 * neighbours' (up to NEIGHBOUR_REACH messages away), discounted by NEIGHBOUR_WEIGHT per step away. A short reply
 * ("Yes, last week!") then rises with the question it answers, and a message between two good hits rises above a lone
 * stray word. Pure, so the runtime and the recall benchmark rank alike; the weights are the benchmark's.
 */

/** A hit: the message's seq and its relevance (higher is better). */
export interface ConversationHit {
  seq: number;
  score: number;
}

/** How far a hit lends its score: to the messages up to this many seqs before and after it. */
export const NEIGHBOUR_REACH = 2;
/** The share of its score a hit lends the message next to it (squared two away). */
export const NEIGHBOUR_WEIGHT = 0.35;
/**
 * Only the best raw hits lend and are lifted: a common word matches thousands of messages, and one far down the raw
 * ranking does not reach the page with a third of its score (the benchmark's figures are the same with all of them).
 */
const LIFTED_HITS = 100;

/** How many of the raw hits (best first) `rankConversationHits` reads for a page of `limit`: a caller maps no more. */
export function liftedHitCount(limit: number): number {
  return Math.max(LIFTED_HITS, 10 * limit);
}

/**
 * The best `limit` messages, best first, from `rawHits` (the messages that matched, best first as the index returns
 * them). `accept` says
 * which seqs may be returned: a neighbour lifted into the ranking must be indexed and within the search's window.
 */
export function rankConversationHits(
  rawHits: readonly ConversationHit[],
  limit: number,
  accept: (seq: number) => boolean = () => true,
): ConversationHit[] {
  if (limit <= 0) return [];
  const best = rawHits.slice(0, liftedHitCount(limit));
  const own = new Map<number, number>();
  for (const hit of best) own.set(hit.seq, hit.score);
  const scored = new Map<number, number>();
  for (const hit of best) {
    for (let seq = hit.seq - NEIGHBOUR_REACH; seq <= hit.seq + NEIGHBOUR_REACH; seq += 1) {
      if (scored.has(seq) || !(own.has(seq) || accept(seq))) continue;
      let lent = 0;
      for (let away = 1; away <= NEIGHBOUR_REACH; away += 1) {
        const weight = NEIGHBOUR_WEIGHT ** away;
        lent = Math.max(lent, weight * (own.get(seq - away) ?? 0), weight * (own.get(seq + away) ?? 0));
      }
      scored.set(seq, (own.get(seq) ?? 0) + lent);
    }
  }
  return [...scored]
    .map(([seq, score]) => ({ seq, score }))
    .sort((a, b) => b.score - a.score || b.seq - a.seq)
    .slice(0, limit);
}
