/** Durable record of finished swarm tasks, written before a result is applied, so a restore never reruns one. */
import { z } from 'zod';
import { createMutex } from '../../shared/mutex.js';
import { SUBLEVELS, type VigilDb } from '../store/vigil-db.js';

/** One finished task's outcome. */
export const SwarmResultRecordSchema = z.object({
  taskId: z.string(),
  status: z.enum(['done', 'failed', 'cancelled']),
  text: z.string(),
  /** Epoch ms. */
  finishedAt: z.number(),
});
export type SwarmResultRecord = z.infer<typeof SwarmResultRecordSchema>;

/** The log itself: one sync put per finished task, looked up by task id on restore. */
export class SwarmResultLog {
  private readonly results;
  /** `recordFirst` reads, then writes: one at a time, so a cancel and a task's own ending never both win. */
  private readonly firstWins = createMutex();

  constructor(db: VigilDb) {
    this.results = db.sublevel<string, SwarmResultRecord>(SUBLEVELS.swarmResults, { valueEncoding: 'json' });
  }

  /** Records a finished task durably. */
  async record(result: SwarmResultRecord): Promise<void> {
    // `sync` is classic-level's fsync option; abstract-level's types do not declare it.
    await this.results.put(result.taskId, result, { sync: true } as object);
  }

  /**
   * Records `result` unless the task already has an outcome; resolves with the outcome that stands (this one, or
   * the one recorded first). A cancel racing the task's own ending: whichever was recorded first is the outcome.
   */
  recordFirst(result: SwarmResultRecord): Promise<SwarmResultRecord> {
    return this.firstWins.run(async () => {
      const [existing] = await this.find([result.taskId]);
      if (existing !== undefined) return existing;
      await this.record(result);
      return result;
    });
  }

  /** The recorded outcomes of these tasks (those that have one). */
  async find(taskIds: readonly string[]): Promise<SwarmResultRecord[]> {
    if (taskIds.length === 0) return [];
    const values = await this.results.getMany([...taskIds]);
    return values.flatMap((value) => {
      const parsed = SwarmResultRecordSchema.safeParse(value);
      return parsed.success ? [parsed.data] : [];
    });
  }

  /**
   * Retention: forgets outcomes of tasks that finished before `finishedBefore` (no stored checkpoint can still show
   * them queued or running; see RetentionKeeper); returns how many went.
   */
  async forgetFinishedBefore(finishedBefore: number): Promise<number> {
    const stale: string[] = [];
    for await (const [key, value] of this.results.iterator()) {
      const parsed = SwarmResultRecordSchema.safeParse(value);
      // An unreadable record can help no restore: it goes too.
      if (!parsed.success || parsed.data.finishedAt < finishedBefore) stale.push(key);
    }
    if (stale.length > 0) await this.results.batch(stale.map((key) => ({ type: 'del' as const, key })));
    return stale.length;
  }

  /** Forgets outcomes of tasks no longer referenced, keeping the log bounded. */
  async forgetExcept(keepTaskIds: ReadonlySet<string>): Promise<number> {
    const stale: string[] = [];
    for await (const key of this.results.keys()) if (!keepTaskIds.has(key)) stale.push(key);
    if (stale.length > 0) await this.results.batch(stale.map((key) => ({ type: 'del' as const, key })));
    return stale.length;
  }
}
