/**
 * The full-text index of the conversation: every message the log keeps, as a `ConversationSearchDocument`, searched
 * with `conversationSearchOptions` and ranked by `rankConversationHits`. In memory only, rebuilt from the log at boot.
 *
 * Use: `add` each message in seq order as it is written (or all of them at boot), `remove` one the log drops, and
 * `search(query, {limit, before, after})` for the best hits, best first; the caller reads the messages by seq.
 * The shape of this class and of the three pieces it is made of is stable; what they index and how they rank is
 * chosen by the recall benchmark (bench/recall.bench.ts, docs/performance.md "Recall on LoCoMo").
 */
import MiniSearch from 'minisearch';
import {
  conversationSearchDocument,
  type ConversationDocumentFormat,
  type ConversationSearchDocument,
  type ConversationSearchMessage,
} from './conversation-search-document.js';
import { rankConversationHits, type ConversationHit } from './conversation-hit-ranking.js';
import { conversationSearchOptions } from './conversation-search-options.js';

/** A search's page and its time window (epoch ms; `before` and `after` exclusive). */
export interface ConversationSearchQuery {
  limit: number;
  before?: number | undefined;
  after?: number | undefined;
}

/** The index. */
export class ConversationSearchIndex {
  private readonly search$ = new MiniSearch<ConversationSearchDocument>(conversationSearchOptions);
  /** Each indexed message by seq: the time filter reads `at`, and a message's document names the one before it. */
  private readonly messages = new Map<number, ConversationSearchMessage>();
  private last: ConversationSearchMessage | undefined;

  constructor(private readonly format: ConversationDocumentFormat = {}) {}

  /** How many messages are indexed. */
  get size(): number {
    return this.search$.documentCount;
  }

  /** True when message `seq` is indexed. */
  has(seq: number): boolean {
    return this.messages.has(seq);
  }

  /** Indexes a message newer than every one indexed so far (a message already indexed is left as it is). */
  add(message: ConversationSearchMessage): void {
    if (this.messages.has(message.seq)) return;
    const previous = this.last !== undefined && this.last.seq < message.seq ? this.last : undefined;
    this.search$.add(conversationSearchDocument(message, previous, this.format));
    this.messages.set(message.seq, message);
    if (this.last === undefined || message.seq > this.last.seq) this.last = message;
  }

  /** Takes message `seq` out of the index (retention or an archive dropped it). */
  remove(seq: number): void {
    if (!this.messages.delete(seq)) return;
    this.search$.discard(seq);
    if (this.last?.seq === seq) this.last = undefined;
  }

  /** The best `limit` messages for `query` within the window, best first; a query of stop words only finds nothing. */
  search(query: string, { limit, before, after }: ConversationSearchQuery): ConversationHit[] {
    if (limit <= 0) return [];
    const inWindow =
      before === undefined && after === undefined
        ? undefined
        : (seq: number) => {
            const at = this.messages.get(seq)?.at ?? NaN;
            return (before === undefined || at < before) && (after === undefined || at > after);
          };
    const raw = this.search$.search(
      query,
      inWindow === undefined ? {} : { filter: (hit) => inWindow(hit.id as number) },
    );
    return rankConversationHits(
      raw.map((hit) => ({ seq: hit.id as number, score: hit.score })),
      limit,
    );
  }
}
