/**
 * Hybrid search: a corpus's lexical ranking fused with its nearest vectors by reciprocal rank fusion. Without a
 * semantic index, or when the query cannot be embedded (endpoint down, slow, budget spent), the lexical ranking
 * stands alone, scores and all.
 */
import { fuseByReciprocalRank } from './reciprocal-rank-fusion.js';
import type { SemanticIndex } from './semantic-index.js';

/** A ranked record: its seq and its score (BM25 alone, or the fused score). */
export interface RankedSeq {
  seq: number;
  score: number;
}

/** How deep each ranking is read for a page of `limit`: fusion needs candidates past the page to reorder. */
export function fusionDepth(limit: number): number {
  return Math.max(limit, 10) * 2;
}

/**
 * The best `limit` records for `query`, best first. `lexical(depth)` is the corpus's lexical ranking read `depth`
 * deep; the semantic index, if any, adds the records nearest the query's vector that `accept` takes (the lexical
 * ranking's own filter, such as a time window), and the two are fused.
 */
export async function hybridRanking(
  query: string,
  limit: number,
  lexical: (depth: number) => RankedSeq[],
  semantic: SemanticIndex | undefined,
  accept?: (seq: number) => boolean,
): Promise<RankedSeq[]> {
  if (limit <= 0) return [];
  if (semantic === undefined || semantic.size === 0) return lexical(limit);
  const depth = fusionDepth(limit);
  const [vector, words] = [await semantic.embedQuery(query), lexical(depth)];
  if (vector === null) return words.slice(0, limit);
  const near = await semantic.nearest(vector, depth, accept);
  const fused = fuseByReciprocalRank([words.map((hit) => hit.seq), near.map((hit) => hit.seq)]);
  return fused.slice(0, limit).map(({ key, score }) => ({ seq: key, score }));
}
