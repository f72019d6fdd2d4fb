/** The ToolCallLog: every MCP tool call's intent (synced before the call) and result (written after); the newest N ended calls kept, and calls of unknown outcome always. */
import { ToolCallRecordSchema, type ToolCallRecord, type ToolCallResult } from '../../protocol/tool-call.schema.js';
import { readValidRecords } from '../store/read-valid-records.js';
import { SUBLEVELS, toStoreError, writeSyncBatch, type VigilBatchOp, type VigilDb } from '../store/vigil-db.js';

/** How many calls the log keeps by default; older ones are pruned in the batch that adds a new one. */
export const DEFAULT_TOOL_CALL_LOG_SIZE = 1000;

const SYNCED = true;
const UNSYNCED = false;

// Keys are the call's position, zero-padded, so LevelDB's key order is the calls' order (and the oldest go first).
const keyOf = (position: number) => String(position).padStart(16, '0');

/**
 * One record per call, keyed by position. Each write goes with the batch ops the caller adds (the journal entry of
 * the event that announces it), in one batch: after `kill -9` the record and its event exist together or not at all.
 * One batch is in flight at a time, so a result never lands before its intent. Writes asked for meanwhile are merged,
 * in order, into the next batch (synced when any of them must be), and an unsynced write waits for the end of the
 * current tick for company: a call's result then shares the batch (and the fsync) of the next call's intent instead
 * of costing a LevelDB round trip of its own. Reads wait for every write asked for before them.
 *
 * Only the intent is synced. At most once needs the intent on disk before the call; a result lost to a crash leaves
 * an intent without a result, which is reported as interrupted (outcome unknown) and never run again: the safe
 * side. The next synced write (the turn's reply, the next intent) makes an unsynced result durable with it, since
 * LevelDB syncs its one log file as a whole; so the window is short, and a call costs one fsync, not two.
 */
export class ToolCallLog {
  private readonly calls;
  /** Positions by callId, oldest first (Map keeps insertion order). */
  private readonly positions = new Map<string, number>();
  /** Calls whose outcome is not known yet (an intent without a result, not reported as interrupted): never pruned. */
  private readonly unresolved = new Set<string>();
  private next = 1;
  /** The writes asked for since the batch in flight left, to go in the next one. */
  private queued: QueuedBatch | undefined;
  /** A batch is being written (or the prune is reading): the queued writes wait. */
  private busy = false;
  private flushScheduled = false;
  /** Settles when the batch in flight is written (or failed). */
  private inFlight: Promise<void> | undefined;
  /**
   * The records read by `open`, for every `all()` until something is written: a boot asks twice (the tool caller's
   * recovery and the tasks'), and a second read of a full 30-day log was most of what a year-old dir's boot cost over
   * a week-old one's. Records are never mutated; the caller holds each of them anyway.
   */
  private readAtOpen: ToolCallRecord[] | undefined;

  private constructor(
    private readonly db: VigilDb,
    private readonly maxCalls: number,
  ) {
    this.calls = db.sublevel<string, unknown>(SUBLEVELS.toolCalls, { valueEncoding: 'json' });
  }

  /** Opens the log and indexes what is on disk. */
  static async open(db: VigilDb, maxCalls = DEFAULT_TOOL_CALL_LOG_SIZE): Promise<ToolCallLog> {
    const log = new ToolCallLog(db, Math.max(1, maxCalls));
    try {
      // In one read, not entry by entry: an async step per record cost a boot 10–30 ms at a few hundred calls.
      for (const [key, value] of await log.calls.iterator().all()) {
        const record = ToolCallRecordSchema.safeParse(value);
        const position = Number(key);
        log.next = Math.max(log.next, position + 1);
        if (!record.success) continue;
        (log.readAtOpen ??= []).push(record.data);
        log.positions.set(record.data.callId, position);
        if (isUnresolved(record.data)) log.unresolved.add(record.data.callId);
      }
    } catch (err) {
      throw toStoreError(err, 'read the tool call log');
    }
    return log;
  }

  /** Every record, oldest first. */
  async all(): Promise<ToolCallRecord[]> {
    // Still what is on disk: every write drops them first. So a boot reads the log once, not once more to recover.
    if (this.readAtOpen !== undefined) return [...this.readAtOpen];
    await this.settled();
    return readValidRecords(this.calls, ToolCallRecordSchema, 'read the tool call log');
  }

  /** The record of `callId`, if kept. */
  async get(callId: string): Promise<ToolCallRecord | undefined> {
    await this.settled();
    const position = this.positions.get(callId);
    if (position === undefined) return undefined;
    const record = ToolCallRecordSchema.safeParse(await this.calls.get(keyOf(position)));
    return record.success ? record.data : undefined;
  }

  /** Writes a call's intent with `extra` (its event's journal entry), pruning the oldest calls beyond the limit. */
  intent(record: ToolCallRecord, extra: VigilBatchOp[]): Promise<void> {
    return this.write('record a tool call intent', SYNCED, () => {
      const position = this.next++;
      this.positions.set(record.callId, position);
      if (isUnresolved(record)) this.unresolved.add(record.callId);
      const prune: VigilBatchOp[] = [];
      let excess = this.positions.size - this.maxCalls;
      // Oldest first, skipping calls whose outcome is still unknown: recovery needs their intent after a crash.
      for (const [callId, oldest] of this.positions) {
        if (excess <= 0) break;
        if (this.unresolved.has(callId)) continue;
        this.positions.delete(callId);
        prune.push({ type: 'del', sublevel: this.calls, key: keyOf(oldest) });
        excess -= 1;
      }
      return [{ type: 'put', sublevel: this.calls, key: keyOf(position), value: record }, ...prune, ...extra];
    });
  }

  /** Adds the result to a call's record, with `extra` (its event's journal entry). */
  result(record: ToolCallRecord, result: ToolCallResult, extra: VigilBatchOp[]): Promise<void> {
    return this.update(record.callId, { ...record, result }, extra, 'record a tool call result', UNSYNCED);
  }

  /** Marks an interrupted call as reported, with `extra` (its `tool.interrupted` event's journal entry). */
  reported(record: ToolCallRecord, extra: VigilBatchOp[]): Promise<void> {
    return this.update(
      record.callId,
      { ...record, interruptedReported: true },
      extra,
      'record a reported interruption',
    );
  }

  /** Writes an approval's progress (decided, delivered) into a call's record, with `extra` (its event's journal entry). */
  approval(record: ToolCallRecord, extra: VigilBatchOp[]): Promise<void> {
    return this.update(record.callId, record, extra, 'record a tool call approval');
  }

  /**
   * Retention: deletes the records of calls that ended (a result, or reported as interrupted) before `endedBefore`
   * (by their intent's time); calls whose outcome is unknown are kept whatever their age. Returns how many went.
   * Records are read oldest first and the walk stops at the first call made since `endedBefore`: positions follow
   * intents, so the later ones are younger (one the clock stepped back for goes on a later pass), and an hourly pass
   * reads what it deletes rather than the whole retention window.
   */
  async pruneResolvedBefore(endedBefore: number): Promise<number> {
    await this.settled();
    // Held busy while reading, so no write lands between what was read and the deletes (writes asked for meanwhile
    // queue, and go in the batch with the deletes, before them).
    this.busy = true;
    const ops: VigilBatchOp[] = [];
    const gone: string[] = [];
    try {
      for await (const [key, value] of this.calls.iterator()) {
        const record = ToolCallRecordSchema.safeParse(value);
        if (record.success && record.data.at >= endedBefore) break;
        if (record.success && isUnresolved(record.data)) continue;
        ops.push({ type: 'del', sublevel: this.calls, key });
        if (record.success) gone.push(record.data.callId);
      }
    } catch (err) {
      this.busy = false;
      this.flush();
      throw toStoreError(err, 'prune old tool calls');
    }
    this.busy = false;
    await this.write('prune old tool calls', SYNCED, () => {
      for (const callId of gone) this.positions.delete(callId);
      return ops;
    });
    return ops.length;
  }

  /**
   * Resolves once every write asked for so far is written (or failed); later writes are not waited for, so a steady
   * stream of calls never holds a reader up. Reads wait for it, and the runtime before it closes the database.
   */
  settled(): Promise<void> {
    const queued = this.queued;
    if (queued !== undefined)
      return new Promise((resolve) => queued.writers.push({ what: 'settle', resolve, reject: () => resolve() }));
    return this.inFlight ?? Promise.resolve();
  }

  private update(
    callId: string,
    record: ToolCallRecord,
    extra: VigilBatchOp[],
    what: string,
    sync = SYNCED,
  ): Promise<void> {
    return this.write(what, sync, () => {
      if (!isUnresolved(record)) this.unresolved.delete(callId);
      const position = this.positions.get(callId);
      // Pruned meanwhile (a burst of newer calls): only the event is written.
      if (position === undefined) return extra;
      return [{ type: 'put', sublevel: this.calls, key: keyOf(position), value: record }, ...extra];
    });
  }

  /**
   * Queues `ops` (computed now, in the order writes are asked for) for the next batch; settles when that batch is
   * written. A synced write goes at once when nothing is in flight; an unsynced one at the end of the tick.
   */
  private write(what: string, sync: boolean, ops: () => VigilBatchOp[]): Promise<void> {
    this.readAtOpen = undefined;
    let batchOps: VigilBatchOp[];
    try {
      batchOps = ops();
    } catch (err) {
      return Promise.reject(toStoreError(err, what));
    }
    const queued = (this.queued ??= { ops: [], sync: false, writers: [] });
    queued.ops.push(...batchOps);
    queued.sync ||= sync;
    const written = new Promise<void>((resolve, reject) => queued.writers.push({ what, resolve, reject }));
    if (!this.busy) {
      if (sync) this.flush();
      else if (!this.flushScheduled) {
        this.flushScheduled = true;
        // After the promise jobs of this tick: a caller that writes its next intent at once shares this batch.
        process.nextTick(() => {
          this.flushScheduled = false;
          if (!this.busy) this.flush();
        });
      }
    }
    return written;
  }

  private flush(): void {
    const batch = this.queued;
    if (batch === undefined) return;
    this.queued = undefined;
    this.busy = true;
    let landed: Promise<void>;
    try {
      landed =
        batch.ops.length === 0
          ? Promise.resolve()
          : batch.sync
            ? writeSyncBatch(this.db, batch.ops)
            : this.db.batch<string, unknown>(batch.ops, {});
    } catch (err) {
      landed = Promise.reject(err);
    }
    this.inFlight = landed.then(
      () => {
        for (const writer of batch.writers) writer.resolve();
      },
      (err: unknown) => {
        for (const writer of batch.writers) writer.reject(toStoreError(err, writer.what));
      },
    );
    // inFlight never rejects (a failed batch rejects its writers instead), so this chain cannot go unhandled.
    void this.inFlight.then(() => {
      this.busy = false;
      this.inFlight = undefined;
      this.flush();
    });
  }
}

/** Writes merged into one batch, and who waits for it. */
interface QueuedBatch {
  ops: VigilBatchOp[];
  sync: boolean;
  writers: Array<{ what: string; resolve: () => void; reject: (err: unknown) => void }>;
}

function isUnresolved(record: ToolCallRecord): boolean {
  // A denied call ended without running once its turn was told; a call waiting for a decision has not ended.
  if (record.approval?.state === 'denied') return record.approval.delivered !== true;
  return record.result === undefined && record.interruptedReported !== true;
}
