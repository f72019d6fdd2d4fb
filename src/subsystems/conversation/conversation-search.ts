/**
 * Searching the conversation: a ranking of seqs (the lexical index's, or another fused with it) turned into the
 * messages themselves, read back from the log. The ranking is behind `ConversationRanker` so a second one (semantic,
 * fused by rank) can stand beside the lexical one without the callers changing.
 */
import type { ConversationMessage } from '../../protocol/conversation.schema.js';
import type { ConversationHit as RankedSeq } from './search/conversation-hit-ranking.js';
import type { ConversationIndex, TimeWindow } from './conversation-index.js';
import type { ConversationLogReader } from './conversation-log-reader.js';

/** Ranks the conversation's messages for a query: seqs and scores, best first, at most `limit`, within `window`. */
export interface ConversationRanker {
  rank(query: string, limit: number, window: TimeWindow): RankedSeq[] | Promise<RankedSeq[]>;
}

/** A message found, with its relevance (higher is better, comparable within one search). */
export interface ConversationHit {
  message: ConversationMessage;
  score: number;
}

/** What a search is asked: the query, how many hits at most, and the time window. */
export interface ConversationQuery {
  query: string;
  limit: number;
  window?: TimeWindow;
}

/** The conversation's search: waits for the index's build, ranks, and reads the hits from the log. */
export class ConversationSearch {
  private ranker: ConversationRanker;

  constructor(
    private readonly index: ConversationIndex,
    private readonly log: ConversationLogReader,
  ) {
    this.ranker = index;
  }

  /** Ranks with `ranker` from now on (one that fuses a second ranking with the lexical index's). */
  useRanker(ranker: ConversationRanker): void {
    this.ranker = ranker;
  }

  /**
   * Whether a recall leaving out `excluded` could find anything: the index is built and holds a message besides those.
   * A think asks first and awaits nothing when not (most thinks of a young conversation), so its timing is unchanged.
   */
  canRecall(excluded: ReadonlySet<number>): boolean {
    return this.index.built && this.index.size > excluded.size;
  }

  /**
   * The best messages for `query`, best first, over every message the log keeps: waits for the background build (a
   * search during the boot answers once the whole log is indexed, never from half of it).
   */
  async search({ query, limit, window = {} }: ConversationQuery): Promise<ConversationHit[]> {
    await this.index.whenBuilt();
    return this.hydrate(await this.ranker.rank(query, limit, window));
  }

  /**
   * The best messages for `query` with a seq in none of `excluded` (a think's recall leaves out what its prompt shows
   * already), without waiting: nothing while the index is still being built.
   */
  async recall(query: string, limit: number, excluded: ReadonlySet<number>): Promise<ConversationHit[]> {
    if (!this.index.built) return [];
    const ranked = await this.ranker.rank(query, limit + excluded.size, {});
    return this.hydrate(ranked.filter((hit) => !excluded.has(hit.seq)).slice(0, limit));
  }

  /** The messages of `ranked`, in its order; one that left the log since it was ranked is left out. */
  private async hydrate(ranked: readonly RankedSeq[]): Promise<ConversationHit[]> {
    const messages = await this.log.readSeqs(ranked.map((hit) => hit.seq));
    const bySeq = new Map(messages.map((message) => [message.seq, message]));
    return ranked.flatMap(({ seq, score }) => {
      const message = bySeq.get(seq);
      return message === undefined ? [] : [{ message, score }];
    });
  }
}
