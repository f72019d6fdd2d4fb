/**
 * Durable record of every sub-agent task from its spawn: what it was asked and given, and when it started. A task
 * spawned after the newest checkpoint is found here after a crash, so it is re-queued or reported, never silently lost.
 */
import { z } from 'zod';
import { readValidRecords } from '../store/read-valid-records.js';
import { SUBLEVELS, toStoreError, writeSyncBatch, type VigilBatchOp, type VigilDb } from '../store/vigil-db.js';

/** One task as spawned, plus when it last started running. Times are epoch ms. */
export const SwarmTaskRecordSchema = z.object({
  id: z.string(),
  turnId: z.string(),
  prompt: z.string(),
  tools: z.array(z.string()).optional(),
  deadlineMs: z.number().int().positive().optional(),
  maxCostMicroUsd: z.number().int().positive().optional(),
  createdAt: z.number(),
  /** Set when the task starts running (each time it starts, after a re-queue too). */
  startedAt: z.number().optional(),
});
export type SwarmTaskRecord = z.infer<typeof SwarmTaskRecordSchema>;

/** How many task records are kept; the oldest go first. */
export const DEFAULT_SWARM_TASK_LOG_SIZE = 1000;

// Keys are creation time then id, so LevelDB's order is creation order and pruning drops the oldest.
const keyOf = (record: Pick<SwarmTaskRecord, 'id' | 'createdAt'>) =>
  `${String(record.createdAt).padStart(16, '0')}:${record.id}`;

/** The log: one synced put per spawn and per start, bounded to the newest records. */
export class SwarmTaskLog {
  private readonly tasks;

  constructor(
    private readonly db: VigilDb,
    private readonly maxTasks = DEFAULT_SWARM_TASK_LOG_SIZE,
  ) {
    this.tasks = db.sublevel<string, unknown>(SUBLEVELS.swarmTasks, { valueEncoding: 'json' });
  }

  /** Records spawned tasks durably (one batch), pruning the oldest records past the limit. */
  async spawned(records: readonly SwarmTaskRecord[]): Promise<void> {
    if (records.length === 0) return;
    try {
      const keys: string[] = [];
      for await (const key of this.tasks.keys()) keys.push(key);
      const excess = keys.length + records.length - this.maxTasks;
      const ops: VigilBatchOp[] = [
        ...keys.slice(0, Math.max(0, excess)).map((key) => ({ type: 'del' as const, sublevel: this.tasks, key })),
        ...records.map((record) => ({ type: 'put' as const, sublevel: this.tasks, key: keyOf(record), value: record })),
      ];
      await writeSyncBatch(this.db, ops);
    } catch (err) {
      throw toStoreError(err, 'record a spawned task');
    }
  }

  /** Marks a task as started at `at` (synced before it runs, so a crash while it runs is known as one). */
  async started(record: SwarmTaskRecord, at: number): Promise<void> {
    try {
      await writeSyncBatch(this.db, [
        { type: 'put', sublevel: this.tasks, key: keyOf(record), value: { ...record, startedAt: at } },
      ]);
    } catch (err) {
      throw toStoreError(err, 'record a started task');
    }
  }

  /** The record of a task (created at `createdAt`), if kept. */
  async get(task: Pick<SwarmTaskRecord, 'id' | 'createdAt'>): Promise<SwarmTaskRecord | undefined> {
    try {
      const record = SwarmTaskRecordSchema.safeParse(await this.tasks.get(keyOf(task)));
      return record.success ? record.data : undefined;
    } catch (err) {
      throw toStoreError(err, 'read the task log');
    }
  }

  /** Every record, oldest first. */
  all(): Promise<SwarmTaskRecord[]> {
    return readValidRecords(this.tasks, SwarmTaskRecordSchema, 'read the task log');
  }
}
