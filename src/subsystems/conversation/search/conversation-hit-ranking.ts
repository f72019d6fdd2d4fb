/**
 * The final ranking of a conversation search: from MiniSearch's raw hits (seq and BM25 score) to the hits returned.
 * Pure, so the runtime and the recall benchmark rank alike.
 */

/** A hit: the message's seq and its relevance (higher is better). */
export interface ConversationHit {
  seq: number;
  score: number;
}

/** The best `limit` of `rawHits` (best first, as MiniSearch returns them). */
export function rankConversationHits(rawHits: readonly ConversationHit[], limit: number): ConversationHit[] {
  return rawHits.slice(0, Math.max(0, limit)).map((hit) => ({ seq: hit.seq, score: hit.score }));
}
