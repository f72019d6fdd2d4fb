/**
 * The rolling summary's versions in LevelDB, each written in one synced batch and keyed by the conversation seq it
 * covers (no user text in keys). The newest few are kept, so a restore can go back to the one its checkpoint saw.
 */
import { ConversationSummarySchema, type ConversationSummary } from '../../protocol/conversation-summary.schema.js';
import { SUBLEVELS, toStoreError, writeSyncBatch, type VigilBatchOp, type VigilDb } from '../store/vigil-db.js';

/** Versions kept: enough for a restore to a checkpoint some updates back. */
export const SUMMARY_VERSIONS_KEPT = 32;

const VERSION_PREFIX = 'v:';
// A staged import waits under its checkpoint id until that checkpoint is restored.
const STAGED_PREFIX = 'staged:';
const versionKey = (seq: number) => `${VERSION_PREFIX}${String(Math.max(0, Math.floor(seq))).padStart(16, '0')}`;

/** The summary's versions, newest = current. */
export class SummaryStore {
  private readonly versions;

  constructor(private readonly db: VigilDb) {
    this.versions = db.sublevel<string, unknown>(SUBLEVELS.conversationSummary, { valueEncoding: 'json' });
  }

  /** The newest valid version, or null when none was written (a damaged one is skipped for the one before). */
  async latest(): Promise<ConversationSummary | null> {
    const range = { gte: VERSION_PREFIX, lt: `${VERSION_PREFIX}~`, reverse: true } as const;
    try {
      // The newest alone first: an iterator reads (and parses) values a chunk at a time, some 32 summaries of a few
      // kilobytes each, where the boot needs one. The walk below is for a damaged newest only.
      const [newest] = await this.versions.values({ ...range, limit: 1 }).all();
      const current = ConversationSummarySchema.safeParse(newest);
      if (current.success) return current.data;
      for await (const value of this.versions.values(range)) {
        const parsed = ConversationSummarySchema.safeParse(value);
        if (parsed.success) return parsed.data;
      }
      return null;
    } catch (err) {
      throw toStoreError(err, 'read the conversation summary');
    }
  }

  /** The newest version covering at most `seq`. */
  async atOrBefore(seq: number): Promise<ConversationSummary | null> {
    try {
      for await (const value of this.versions.values({ gte: VERSION_PREFIX, lte: versionKey(seq), reverse: true })) {
        const parsed = ConversationSummarySchema.safeParse(value);
        if (parsed.success) return parsed.data;
      }
      return null;
    } catch (err) {
      throw toStoreError(err, 'read the conversation summary');
    }
  }

  /** Writes a new version durably, pruning the oldest past the kept count in the same batch. */
  async put(summary: ConversationSummary): Promise<void> {
    const record = ConversationSummarySchema.parse(summary);
    try {
      const keys = await this.versions.keys({ gte: VERSION_PREFIX, lt: `${VERSION_PREFIX}~` }).all();
      const key = versionKey(record.throughSeq);
      const others = keys.filter((k) => k !== key);
      const prune = others.slice(0, Math.max(0, others.length + 1 - SUMMARY_VERSIONS_KEPT));
      const ops: VigilBatchOp[] = [
        { type: 'put', sublevel: this.versions, key, value: record },
        ...prune.map((k): VigilBatchOp => ({ type: 'del', sublevel: this.versions, key: k })),
      ];
      await writeSyncBatch(this.db, ops);
    } catch (err) {
      throw toStoreError(err, `write the conversation summary through seq ${record.throughSeq}`);
    }
  }

  /**
   * Goes back to the summary a checkpoint saw: every version past `seq` is deleted, and a version staged for
   * `checkpointId` by an import becomes the current one. Returns the current version afterwards.
   */
  async rollBackTo(seq: number, checkpointId?: string): Promise<ConversationSummary | null> {
    const { ops, current } = await this.rollBackOps(seq, checkpointId);
    try {
      if (ops.length > 0) await writeSyncBatch(this.db, ops);
    } catch (err) {
      throw toStoreError(err, `roll the conversation summary back to seq ${seq}`);
    }
    return current;
  }

  /** `rollBackTo` as operations for another's batch (a restore's), with the version that is current once they are written. */
  async rollBackOps(
    seq: number,
    checkpointId?: string,
  ): Promise<{ ops: VigilBatchOp[]; current: ConversationSummary | null }> {
    try {
      const later = await this.versions.keys({ gt: versionKey(seq), lt: `${VERSION_PREFIX}~` }).all();
      const ops: VigilBatchOp[] = later.map((k): VigilBatchOp => ({ type: 'del', sublevel: this.versions, key: k }));
      const staged =
        checkpointId === undefined
          ? undefined
          : ConversationSummarySchema.safeParse(await this.versions.get(STAGED_PREFIX + checkpointId));
      const kept = await this.atOrBefore(seq);
      if (staged?.success === true && staged.data.throughSeq <= seq) {
        ops.push({ type: 'put', sublevel: this.versions, key: versionKey(staged.data.throughSeq), value: staged.data });
        // The staged version replaces one under the same key; a newer kept one stays the current.
        return { ops, current: kept !== null && kept.throughSeq > staged.data.throughSeq ? kept : staged.data };
      }
      return { ops, current: kept };
    } catch (err) {
      throw toStoreError(err, `roll the conversation summary back to seq ${seq}`);
    }
  }

  /** Keeps an imported checkpoint's summary aside until that checkpoint is restored (the running agent keeps its own). */
  async stage(checkpointId: string, summary: ConversationSummary): Promise<void> {
    const record = ConversationSummarySchema.parse(summary);
    try {
      await writeSyncBatch(this.db, [
        { type: 'put', sublevel: this.versions, key: STAGED_PREFIX + checkpointId, value: record },
      ]);
    } catch (err) {
      throw toStoreError(err, `stage the summary of imported checkpoint ${checkpointId}`);
    }
  }

  /** The summary an import staged for `checkpointId`, if any. */
  async staged(checkpointId: string): Promise<ConversationSummary | null> {
    const parsed = ConversationSummarySchema.safeParse(await this.versions.get(STAGED_PREFIX + checkpointId));
    return parsed.success ? parsed.data : null;
  }
}
