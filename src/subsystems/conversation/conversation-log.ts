/** The append-only conversation log: each message is written durably as it happens, keyed by a seq that is never reused. */
import { VigilError } from '../../errors.js';
import {
  ConversationArchiveSchema,
  type ConversationMessage,
  type NewConversationMessage,
} from '../../protocol/conversation.schema.js';
import { toStoreError, writeSyncBatch, type VigilBatchOp } from '../store/vigil-db.js';
import {
  archiveKey,
  archiveRange,
  assertArchiveId,
  mergeArchiveSummary,
  type ArchiveBatch,
  type ArchivePlan,
} from './conversation-archive.js';
import {
  conversationSeqKey,
  HIGHEST_SEQ_KEY,
  nonNegative,
  parseMessage,
  parseNewMessage,
} from './conversation-codec.js';
import { ConversationLogReader } from './conversation-log-reader.js';
import { LIVE_COUNT_KEY, LiveCount } from './live-count.js';

/**
 * The conversation log. Seqs continue from the highest ever issued (kept across `archiveAfter` and restarts), so
 * after archiving everything past a watermark the live log may jump, e.g. 1..5 then 11: a seq names one message forever.
 */
export class ConversationLog extends ConversationLogReader {
  private lastLive = 0;
  private highest = 0;
  /** Seqs written but not yet handed to their reader (a user message on its way to the heartbeat). */
  private readonly held = new Set<number>();
  private opened = false;
  private writes: Promise<unknown> = Promise.resolve();
  private readonly appended: Array<(message: ConversationMessage) => void> = [];
  private readonly removed: Array<(seqs: readonly number[]) => void> = [];
  private liveCount = new LiveCount(undefined);

  /** Reads the last live seq, the highest seq ever issued and how many entries are live. */
  async open(): Promise<void> {
    try {
      this.lastLive = await this.lastLiveSeq();
      const [stored, live] = await this.meta.getMany([HIGHEST_SEQ_KEY, LIVE_COUNT_KEY]);
      this.highest = Math.max(this.lastLive, typeof stored === 'number' ? stored : 0);
      this.liveCount = new LiveCount(live);
    } catch (err) {
      throw toStoreError(err, 'open the conversation log');
    }
    this.opened = true;
  }

  /**
   * Numbers `msg` with the next seq and writes it durably (one sync batch, with `alongside` when given: e.g. the
   * event that announces it, so the two exist together or not at all); resolves with the stored message.
   */
  async append(
    msg: NewConversationMessage,
    alongside: readonly VigilBatchOp[] = [],
    options: { hold?: boolean } = {},
  ): Promise<ConversationMessage> {
    const [message] = await this.appendAll([msg], alongside, options);
    return message!;
  }

  /**
   * `append` for several messages at once: numbered in order and written in one sync batch with `alongside` (a
   * schedule's catch-up firings and the schedule's record), so all exist or none does.
   */
  async appendAll(
    msgs: readonly NewConversationMessage[],
    alongside: readonly VigilBatchOp[] = [],
    options: { hold?: boolean } = {},
  ): Promise<ConversationMessage[]> {
    this.assertOpen('append');
    const inputs = msgs.map(parseNewMessage);
    // Numbered at the call, so concurrent appends keep call order; a failed write burns its seqs, never reuses them.
    const messages = inputs.map((input): ConversationMessage => ({ seq: (this.highest += 1), ...input }));
    // Held from the moment they are numbered: no watermark may pass them until their reader has them (`release`).
    if (options.hold === true) for (const message of messages) this.held.add(message.seq);
    return this.exclusive(async () => {
      try {
        const puts = messages.map((message): VigilBatchOp => ({
          type: 'put',
          sublevel: this.log,
          key: conversationSeqKey(message.seq),
          value: message,
        }));
        await writeSyncBatch(this.db, [...puts, this.countOp(messages.length), ...alongside]);
        this.liveCount.written(messages.length);
      } catch (err) {
        this.liveCount.failed();
        for (const message of messages) this.held.delete(message.seq);
        const seqs =
          messages.length === 1 ? `message ${messages[0]!.seq}` : `messages ${messages.map((m) => m.seq).join(', ')}`;
        throw toStoreError(err, `append conversation ${seqs}`);
      }
      for (const message of messages) {
        this.lastLive = Math.max(this.lastLive, message.seq);
        for (const listener of this.appended) listener(message);
      }
      return messages;
    });
  }

  /**
   * The seq the next append numbers its first message with. Appends number at the call, so a caller that reads this
   * and appends in the same synchronous step knows its messages' seqs before they are written (to store them beside).
   */
  nextSeq(): number {
    return this.highest + 1;
  }

  /** Calls `listener` with each message once it is durably written, in seq order (a cache of the recent turns). */
  onAppend(listener: (message: ConversationMessage) => void): void {
    this.appended.push(listener);
  }

  /**
   * Calls `listener` with the seqs of live entries once they durably left the live log (pruned by retention, or moved
   * into an archive by a restore): the conversation index drops them.
   */
  onRemove(listener: (seqs: readonly number[]) => void): void {
    this.removed.push(listener);
  }

  /**
   * The seq up to which the log's entries are accounted for: the last live entry, but never past a held one. A
   * checkpoint stores this, and a restart replays what lies after it; a message written but not yet seen by the
   * heartbeat must be replayed, not skipped.
   */
  watermark(): number {
    if (this.held.size === 0) return this.lastLive;
    return Math.min(this.lastLive, Math.min(...this.held) - 1);
  }

  /** The reader has the held entry `seq`: the watermark may pass it. */
  release(seq: number): void {
    this.held.delete(seq);
  }

  /**
   * Moves every live entry with seq > `watermark` under `archiveId` in one sync batch (never deleting one) and
   * returns how many moved. Afterwards `watermark()` is the last seq at or below `watermark`; new seqs continue
   * above the highest ever issued. Archiving twice under one id adds to that archive.
   */
  async archiveAfter(watermark: number, archiveId: string): Promise<number> {
    this.assertOpen('archiveAfter');
    assertArchiveId(archiveId);
    return this.exclusive(async () => {
      try {
        const plan = await this.planArchive(watermark, archiveId, []);
        if (plan.moved.length === 0) return 0;
        await writeSyncBatch(this.db, [...plan.ops, this.countOp(-plan.moved.length)]);
        this.liveCount.written(-plan.moved.length);
        this.lastLive = plan.lastLiveAfter;
        this.notifyRemoved(plan.moved.map((m) => m.seq));
        return plan.moved.length;
      } catch (err) {
        this.liveCount.failed();
        throw toStoreError(err, `archive the conversation after seq ${watermark}`);
      }
    });
  }

  /**
   * `archiveAfter` and appending `append` (numbered now, above every seq issued), as operations for another's sync
   * batch (a restore writes them with its checkpoint, so a crash keeps all or none). Nothing changes until the
   * batch is written and `committed()` called; a batch never written burns the appended seqs, as a failed append does.
   */
  async prepareArchive(
    watermark: number,
    archiveId: string,
    append: readonly NewConversationMessage[],
  ): Promise<ArchiveBatch> {
    this.assertOpen('prepareArchive');
    assertArchiveId(archiveId);
    const messages = append.map(parseNewMessage);
    return this.exclusive(async () => {
      let plan: ArchivePlan;
      try {
        plan = await this.planArchive(watermark, archiveId, messages);
      } catch (err) {
        throw toStoreError(err, `archive the conversation after seq ${watermark}`);
      }
      const highestAtPlan = this.highest;
      // The batch is the restore's to write, whenever it does: until then no number of live entries holds.
      this.liveCount.planned();
      let settled = false;
      const settle = () => {
        if (!settled) this.liveCount.settled();
        settled = true;
      };
      return {
        ops: [...plan.ops, this.countOp(0)],
        moved: plan.moved,
        appended: plan.appended,
        watermarkAfter: plan.lastLiveAfter,
        committed: () => {
          settle();
          // An append written meanwhile (none is, under a restore) lies above everything the plan saw.
          if (this.lastLive <= highestAtPlan) this.lastLive = plan.lastLiveAfter;
          this.notifyRemoved(plan.moved.map((m) => m.seq));
          for (const message of plan.appended) for (const listener of this.appended) listener(message);
        },
        abandoned: settle,
      };
    });
  }

  /**
   * Retention: deletes the oldest live entries beyond the newest `keepNewest`, but none above seq `notAbove` (what a
   * stored checkpoint would replay on restore) nor above the watermark (messages not yet seen by the heartbeat); and
   * every archive whose newest entry lies at or below the same cut. Returns how many entries went.
   */
  async pruneOldest(keepNewest: number, notAbove: number): Promise<number> {
    this.assertOpen('pruneOldest');
    return this.exclusive(async () => {
      try {
        const boundary = await this.pruneBoundary(nonNegative(keepNewest));
        const cut = Math.min(boundary, notAbove, this.watermark());
        if (cut <= 0) return 0;
        const live = await this.log.keys({ lte: conversationSeqKey(cut) }).all();
        const ops: VigilBatchOp[] = live.map((key) => ({ type: 'del', sublevel: this.log, key }));
        for (const summary of await this.archives.values().all()) {
          const archive = ConversationArchiveSchema.safeParse(summary);
          if (!archive.success || archive.data.lastSeq > cut) continue;
          const id = archive.data.archiveId;
          const entries = await this.archive.keys(archiveRange(id)).all();
          ops.push(...entries.map((key): VigilBatchOp => ({ type: 'del', sublevel: this.archive, key })), {
            type: 'del',
            sublevel: this.archives,
            key: id,
          });
        }
        for (let i = 0; i < ops.length; i += 1000) {
          const chunk = ops.slice(i, i + 1000);
          const gone = -chunk.filter((op) => op.sublevel === this.log).length;
          await writeSyncBatch(this.db, [...chunk, this.countOp(gone)]);
          this.liveCount.written(gone);
          this.notifyRemoved(chunk.flatMap((op) => (op.sublevel === this.log ? [Number(op.key)] : [])));
        }
        return live.length + ops.filter((op) => op.sublevel === this.archive).length;
      } catch (err) {
        this.liveCount.failed();
        throw toStoreError(err, `prune the conversation log up to seq ${notAbove}`);
      }
    });
  }

  /**
   * The seq of the newest entry beyond the newest `keepNewest` (0 when there is none): read from the oldest end when
   * the number of live entries is known, else found by walking the log (whose count is then stored for next time).
   */
  private async pruneBoundary(keepNewest: number): Promise<number> {
    const known = this.liveCount.known;
    if (known !== null) {
      if (known <= keepNewest) return 0;
      const oldest = await this.log.keys({ limit: known - keepNewest }).all();
      return Number(oldest[oldest.length - 1] ?? 0);
    }
    if (!this.liveCount.countable) {
      const newest = await this.log.keys({ reverse: true, limit: keepNewest + 1 }).all();
      return newest.length > keepNewest ? Number(newest[newest.length - 1]) : 0;
    }
    const all = await this.log.keys().all();
    await writeSyncBatch(this.db, [{ type: 'put', sublevel: this.meta, key: LIVE_COUNT_KEY, value: all.length }]);
    this.liveCount.counted(all.length);
    return all.length > keepNewest ? Number(all[all.length - keepNewest - 1]) : 0;
  }

  /** The stored number of live entries after a batch that changes them by `delta`, as an operation of that batch. */
  private countOp(delta: number): VigilBatchOp {
    return { ...this.liveCount.entry(delta), sublevel: this.meta };
  }

  /** The operations that archive every live entry after `watermark` and append `append`; call under `exclusive`. */
  private async planArchive(
    watermark: number,
    archiveId: string,
    append: readonly NewConversationMessage[],
  ): Promise<ArchivePlan> {
    const moved = (await this.log.iterator({ gt: conversationSeqKey(watermark) }).all()).map(([key, value]) =>
      parseMessage(key, value),
    );
    const appended = append.map((msg): ConversationMessage => ({ seq: (this.highest += 1), ...msg }));
    const ops: VigilBatchOp[] = [];
    if (moved.length > 0) {
      const summary = mergeArchiveSummary(await this.archives.get(archiveId), archiveId, watermark, moved);
      for (const m of moved) {
        ops.push(
          { type: 'del', sublevel: this.log, key: conversationSeqKey(m.seq) },
          { type: 'put', sublevel: this.archive, key: archiveKey(archiveId, conversationSeqKey(m.seq)), value: m },
        );
      }
      ops.push({ type: 'put', sublevel: this.archives, key: archiveId, value: summary });
    }
    for (const m of appended) ops.push({ type: 'put', sublevel: this.log, key: conversationSeqKey(m.seq), value: m });
    // Persisted with the move: the live log no longer shows the highest seq, and it must never be issued again.
    if (ops.length > 0) ops.push({ type: 'put', sublevel: this.meta, key: HIGHEST_SEQ_KEY, value: this.highest });
    const [kept] = await this.log.keys({ lte: conversationSeqKey(watermark), reverse: true, limit: 1 }).all();
    const lastLiveAfter = appended.at(-1)?.seq ?? (kept === undefined ? 0 : Number(kept));
    return { ops, moved, appended, lastLiveAfter };
  }

  private notifyRemoved(seqs: readonly number[]): void {
    if (seqs.length === 0) return;
    for (const listener of this.removed) listener(seqs);
  }

  private assertOpen(method: string): void {
    if (!this.opened) throw new VigilError('INTERNAL', `ConversationLog.${method}() was called before open().`);
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.writes.then(fn, fn);
    // Only the queue's tail swallows a failure (the next write still runs); the caller gets it from `run`.
    this.writes = run.catch(() => undefined);
    return run;
  }
}
