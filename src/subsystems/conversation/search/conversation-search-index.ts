/**
 * The full-text index of the conversation: every message the log keeps, as a `ConversationSearchDocument`, searched
 * with `conversationSearchOptions` and ranked by `rankConversationHits`. In memory only, rebuilt from the log at boot.
 *
 * Use: `add` each message as it is written and each one the log holds at boot (in any order, though seq order gives
 * every message its context at once), `remove` one the log drops, and `search(query, {limit, before, after})` for the
 * best hits, best first; the caller reads the messages back from the log by seq. The index holds no message text
 * beyond its inverted index and the few messages added last (the context of the next one); each message's time is
 * kept for the window. The shape of this class and of the three pieces it is made of is stable; what they index and
 * how they rank is chosen by the recall benchmark (bench/recall.bench.ts, docs/performance.md "Recall on LoCoMo").
 *
 * Context: a message's document names the message before it (by seq: the seq before is the message before, a gap
 * left by an archive is no context), known when it is written. One added before the message it follows (a message
 * written while the boot's rebuild still runs) is given it when it comes: the message is indexed again then.
 */
import {
  conversationSearchDocument,
  participantWords,
  type ConversationDocumentFormat,
  type ConversationSearchDocument,
  type ConversationSearchMessage,
} from './conversation-search-document.js';
import { liftedHitCount, rankConversationHits, type ConversationHit } from './conversation-hit-ranking.js';
import { conversationFieldOptions, type ConversationSearchField } from './conversation-search-options.js';
import { FieldBm25Index } from './field-bm25-index.js';

/** A search's page and its time window (epoch ms; `before` and `after` exclusive). */
export interface ConversationSearchQuery {
  limit: number;
  before?: number | undefined;
  after?: number | undefined;
}

// The messages added last, kept with their documents: the context of the next one, and of one added out of order.
const RECENT = 64;
// Messages added before the one they follow (written while the boot's rebuild still reads older ones), kept until it
// comes however many are added meanwhile; the first message of the log and one after an archive's gap wait forever,
// so only the newest few are kept.
const AWAITING = 64;

interface RecentMessage {
  message: ConversationSearchMessage;
  /** Its document as indexed (one indexed again without context gets it). */
  document: ConversationSearchDocument;
}

/** The index. */
export class ConversationSearchIndex {
  private readonly terms = new FieldBm25Index<ConversationSearchField>(conversationFieldOptions);
  /** Each indexed message's time (epoch ms), by seq: the window reads it. */
  private readonly atBySeq = new Map<number, number>();
  private readonly recent = new Map<number, RecentMessage>();
  private readonly awaitingPrevious = new Map<number, RecentMessage>();
  private readonly participants: ReadonlySet<string>;

  constructor(private readonly format: ConversationDocumentFormat = {}) {
    this.participants = participantWords(format.participants);
  }

  /** How many messages are indexed. */
  get size(): number {
    return this.atBySeq.size;
  }

  /** True when message `seq` is indexed. */
  has(seq: number): boolean {
    return this.atBySeq.has(seq);
  }

  /** True when message `seq` is indexed and was said within the window (a second ranking keeps to the same window). */
  within(seq: number, { before, after }: Omit<ConversationSearchQuery, 'limit'>): boolean {
    const at = this.atBySeq.get(seq);
    return at !== undefined && (before === undefined || at < before) && (after === undefined || at > after);
  }

  /** Indexes a message (one already indexed is left as it is) and gives its neighbours it as their context. */
  add(message: ConversationSearchMessage): void {
    if (this.atBySeq.has(message.seq)) return;
    const before = this.recent.get(message.seq - 1);
    const document = this.document(message, before?.message);
    this.terms.add(message.seq, document);
    this.atBySeq.set(message.seq, message.at);
    const entry = { message, document };
    this.remember(entry);
    if (before === undefined) this.awaitPrevious(entry);
    const after = this.awaitingPrevious.get(message.seq + 1);
    if (after !== undefined) {
      this.awaitingPrevious.delete(message.seq + 1);
      this.reindex(after, message);
    }
  }

  /** Indexes messages read from the log in seq order (the rebuild at boot, a chunk at a time). */
  addAll(messages: readonly ConversationSearchMessage[]): void {
    for (const message of messages) this.add(message);
  }

  /** Takes message `seq` out of the index (retention or an archive dropped it). */
  remove(seq: number): void {
    if (!this.atBySeq.delete(seq)) return;
    this.terms.remove(seq);
    this.recent.delete(seq);
    this.awaitingPrevious.delete(seq);
  }

  /** The best `limit` messages for `query` within the window, best first; a query of stop words only finds nothing. */
  search(query: string, { limit, before, after }: ConversationSearchQuery): ConversationHit[] {
    if (limit <= 0) return [];
    const inWindow = (seq: number) => this.within(seq, { before, after });
    const everything = before === undefined && after === undefined;
    const best = this.terms
      .search(query, liftedHitCount(limit), everything ? undefined : inWindow)
      .map((hit) => ({ seq: hit.id, score: hit.score }));
    return rankConversationHits(best, limit, inWindow);
  }

  private document(
    message: ConversationSearchMessage,
    previous: ConversationSearchMessage | undefined,
  ): ConversationSearchDocument {
    return conversationSearchDocument(message, { previous, participants: this.participants }, this.format);
  }

  /** Indexes a recent message again, now that the message before it has come. */
  private reindex(entry: RecentMessage, previous: ConversationSearchMessage): void {
    const document = this.document(entry.message, previous);
    this.terms.remove(entry.message.seq);
    this.terms.add(entry.message.seq, document);
    entry.document = document;
  }

  private remember(entry: RecentMessage): void {
    this.recent.set(entry.message.seq, entry);
    if (this.recent.size > RECENT) this.recent.delete(this.recent.keys().next().value!);
  }

  private awaitPrevious(entry: RecentMessage): void {
    this.awaitingPrevious.set(entry.message.seq, entry);
    if (this.awaitingPrevious.size > AWAITING) this.awaitingPrevious.delete(this.awaitingPrevious.keys().next().value!);
  }
}
