/** The ToolCallLog: every MCP tool call's intent (synced before the call) and result (written after); the newest N ended calls kept, and calls of unknown outcome always. */
import { ToolCallRecordSchema, type ToolCallRecord, type ToolCallResult } from '../../protocol/tool-call.schema.js';
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
 * Writes are serialised, so a result never lands before its intent.
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
  private writes: Promise<unknown> = Promise.resolve();

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
      for await (const [key, value] of log.calls.iterator()) {
        const record = ToolCallRecordSchema.safeParse(value);
        const position = Number(key);
        log.next = Math.max(log.next, position + 1);
        if (record.success) log.positions.set(record.data.callId, position);
        if (record.success && isUnresolved(record.data)) log.unresolved.add(record.data.callId);
      }
    } catch (err) {
      throw toStoreError(err, 'read the tool call log');
    }
    return log;
  }

  /** Every record, oldest first. */
  async all(): Promise<ToolCallRecord[]> {
    const out: ToolCallRecord[] = [];
    try {
      for await (const value of this.calls.values()) {
        const record = ToolCallRecordSchema.safeParse(value);
        if (record.success) out.push(record.data);
      }
    } catch (err) {
      throw toStoreError(err, 'read the tool call log');
    }
    return out;
  }

  /** The record of `callId`, if kept. */
  async get(callId: string): Promise<ToolCallRecord | undefined> {
    const position = this.positions.get(callId);
    if (position === undefined) return undefined;
    const record = ToolCallRecordSchema.safeParse(await this.calls.get(keyOf(position)));
    return record.success ? record.data : undefined;
  }

  /** Writes a call's intent with `extra` (its event's journal entry), pruning the oldest calls beyond the limit. */
  intent(record: ToolCallRecord, extra: VigilBatchOp[]): Promise<void> {
    return this.serial('record a tool call intent', () => {
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
    return this.update(record.callId, { ...record, interruptedReported: true }, extra, 'record a reported interruption');
  }

  /** Writes an approval's progress (decided, delivered) into a call's record, with `extra` (its event's journal entry). */
  approval(record: ToolCallRecord, extra: VigilBatchOp[]): Promise<void> {
    return this.update(record.callId, record, extra, 'record a tool call approval');
  }

  /**
   * Retention: deletes the records of calls that ended (a result, or reported as interrupted) before `endedBefore`
   * (by their intent's time); calls whose outcome is unknown are kept whatever their age. Returns how many went.
   */
  async pruneResolvedBefore(endedBefore: number): Promise<number> {
    let pruned = 0;
    await this.serialAsync('prune old tool calls', async () => {
      const ops: VigilBatchOp[] = [];
      for await (const [key, value] of this.calls.iterator()) {
        const record = ToolCallRecordSchema.safeParse(value);
        if (record.success && (isUnresolved(record.data) || record.data.at >= endedBefore)) continue;
        ops.push({ type: 'del', sublevel: this.calls, key });
        if (record.success) this.positions.delete(record.data.callId);
      }
      pruned = ops.length;
      return ops;
    });
    return pruned;
  }

  private update(callId: string, record: ToolCallRecord, extra: VigilBatchOp[], what: string, sync = SYNCED): Promise<void> {
    return this.serial(
      what,
      () => {
        if (!isUnresolved(record)) this.unresolved.delete(callId);
        const position = this.positions.get(callId);
        // Pruned meanwhile (a burst of newer calls): only the event is written.
        if (position === undefined) return extra;
        return [{ type: 'put', sublevel: this.calls, key: keyOf(position), value: record }, ...extra];
      },
      sync,
    );
  }

  private serial(what: string, ops: () => VigilBatchOp[], sync = SYNCED): Promise<void> {
    return this.serialAsync(what, async () => ops(), sync);
  }

  private serialAsync(what: string, ops: () => Promise<VigilBatchOp[]>, sync = SYNCED): Promise<void> {
    const write = this.writes.then(async () => {
      try {
        const batch = await ops();
        if (batch.length > 0) await (sync ? writeSyncBatch(this.db, batch) : this.db.batch<string, unknown>(batch, {}));
      } catch (err) {
        throw toStoreError(err, what);
      }
    });
    this.writes = write.catch(() => undefined);
    return write;
  }
}

function isUnresolved(record: ToolCallRecord): boolean {
  // A denied call ended without running once its turn was told; a call waiting for a decision has not ended.
  if (record.approval?.state === 'denied') return record.approval.delivered !== true;
  return record.result === undefined && record.interruptedReported !== true;
}
