/** The conversation log's reads: live entries by seq, their count, and the restore archives. */
import {
  ConversationArchiveSchema,
  type ConversationArchive,
  type ConversationMessage,
} from '../../protocol/conversation.schema.js';
import { SUBLEVELS, toStoreError, type VigilDb } from '../store/vigil-db.js';
import { archiveRange } from './conversation-archive.js';
import { conversationSeqKey, nonNegative, parseMessage } from './conversation-codec.js';

/** The log's sublevels and every read of them; `ConversationLog` adds the writes. */
export class ConversationLogReader {
  protected readonly log;
  protected readonly archive;
  protected readonly archives;
  protected readonly meta;

  constructor(protected readonly db: VigilDb) {
    this.log = db.sublevel<string, ConversationMessage>(SUBLEVELS.conversation, { valueEncoding: 'json' });
    this.archive = db.sublevel<string, ConversationMessage>(SUBLEVELS.conversationArchive, { valueEncoding: 'json' });
    this.archives = db.sublevel<string, ConversationArchive>(SUBLEVELS.conversationArchives, { valueEncoding: 'json' });
    this.meta = db.sublevel<string, number>(SUBLEVELS.conversationMeta, { valueEncoding: 'json' });
  }

  /** Entries after `seq`, ascending, at most `limit`. */
  readAfter(seq: number, limit?: number): Promise<ConversationMessage[]> {
    return this.read({ gt: conversationSeqKey(seq), ...(limit !== undefined && { limit: nonNegative(limit) }) });
  }

  /** Entries with `fromExclusive < seq <= toInclusive`, ascending. */
  readRange(fromExclusive: number, toInclusive: number): Promise<ConversationMessage[]> {
    if (toInclusive <= fromExclusive) return Promise.resolve([]);
    return this.read({ gt: conversationSeqKey(fromExclusive), lte: conversationSeqKey(toInclusive) });
  }

  /** The last `limit` entries before seq `before` (all when undefined), ascending. */
  async readBefore(before: number | undefined, limit: number): Promise<ConversationMessage[]> {
    const range = before === undefined ? {} : { lt: conversationSeqKey(before) };
    return (await this.read({ ...range, reverse: true, limit: nonNegative(limit) })).reverse();
  }

  /** The last `limit` entries (only those after seq `after`, when given), ascending. */
  async readLast(limit: number, after?: number): Promise<ConversationMessage[]> {
    const range = after === undefined ? {} : { gt: conversationSeqKey(after) };
    return (await this.read({ ...range, reverse: true, limit: nonNegative(limit) })).reverse();
  }

  /** The live entries `seqs`, in the order asked; a seq no longer live (pruned, archived) is left out. */
  async readSeqs(seqs: readonly number[]): Promise<ConversationMessage[]> {
    if (seqs.length === 0) return [];
    const keys = seqs.map(conversationSeqKey);
    try {
      const values = await this.log.getMany(keys);
      return values.flatMap((value, i) => (value === undefined ? [] : [parseMessage(keys[i]!, value)]));
    } catch (err) {
      throw toStoreError(err, 'read conversation messages');
    }
  }

  /** How many live entries the log holds. */
  async count(): Promise<number> {
    try {
      return (await this.log.keys().all()).length;
    } catch (err) {
      throw toStoreError(err, 'count conversation messages');
    }
  }

  /** Every archive's summary, ordered by archive id. */
  async listArchives(): Promise<ConversationArchive[]> {
    try {
      const values = await this.archives.values().all();
      return values.map((value) => ConversationArchiveSchema.parse(value));
    } catch (err) {
      throw toStoreError(err, 'list conversation archives');
    }
  }

  /**
   * Which of `turnIds` have an ending (an assistant entry) in some archive: a turn answered and then archived by a
   * restore stays answered when an older checkpoint that held it open is restored later.
   */
  async endedInArchives(turnIds: ReadonlySet<string>): Promise<Set<string>> {
    const ended = new Set<string>();
    if (turnIds.size === 0) return ended;
    try {
      for await (const value of this.archive.values()) {
        if (value.role === 'assistant' && turnIds.has(value.turnId)) ended.add(value.turnId);
      }
      return ended;
    } catch (err) {
      throw toStoreError(err, 'read the conversation archives');
    }
  }

  /** The messages archived under `archiveId`, ascending; empty for an unknown id. */
  async readArchive(archiveId: string): Promise<ConversationMessage[]> {
    try {
      const entries = await this.archive.iterator(archiveRange(archiveId)).all();
      return entries.map(([key, value]) => parseMessage(key, value));
    } catch (err) {
      throw toStoreError(err, `read conversation archive ${archiveId}`);
    }
  }

  private async read(range: {
    gt?: string;
    lt?: string;
    lte?: string;
    reverse?: boolean;
    limit?: number;
  }): Promise<ConversationMessage[]> {
    try {
      const entries = await this.log.iterator(range).all();
      return entries.map(([key, value]) => parseMessage(key, value));
    } catch (err) {
      throw toStoreError(err, 'read the conversation log');
    }
  }

  /** The seq of the newest live entry, 0 when the log is empty. */
  protected async lastLiveSeq(): Promise<number> {
    const [last] = await this.log.keys({ reverse: true, limit: 1 }).all();
    return last === undefined ? 0 : Number(last);
  }
}
