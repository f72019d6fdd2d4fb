/**
 * What each think did besides replying (remember, feel, goal and task actions), kept so a debrief can see the work of
 * the turn it validates. Keyed by time and a counter (no user text in keys); the newest entries are kept.
 */
import { TurnWorkRecordSchema, type TurnWorkRecord } from '../../protocol/turn-work.schema.js';
import { SUBLEVELS, toStoreError, type VigilDb } from '../store/vigil-db.js';

/** Records kept: far more thinks than one turn makes. */
export const TURN_WORK_KEPT = 500;

const keyOf = (at: number, n: number) => `${String(Math.max(0, Math.floor(at))).padStart(16, '0')}:${String(n).padStart(10, '0')}`;

/** The log. Writes are not synced: after `kill -9` the last think's entry may be missing, which only a debrief would miss. */
export class TurnWorkLog {
  private readonly work;
  private counter = 0;
  private writes: Promise<unknown> = Promise.resolve();

  constructor(db: VigilDb) {
    this.work = db.sublevel<string, unknown>(SUBLEVELS.turnWork, { valueEncoding: 'json' });
  }

  /** Appends one think's work (nothing when it made no such call) and prunes the oldest past the kept count. */
  record(record: TurnWorkRecord): Promise<void> {
    if (record.calls.length === 0) return Promise.resolve();
    const key = keyOf(record.at, ++this.counter);
    const write = this.writes.then(async () => {
      try {
        await this.work.put(key, record);
        const keys = await this.work.keys({ reverse: true, gt: '' }).all();
        const stale = keys.slice(TURN_WORK_KEPT);
        if (stale.length > 0) await this.work.batch(stale.map((k) => ({ type: 'del' as const, key: k })));
      } catch (err) {
        throw toStoreError(err, 'record the work of a think');
      }
    });
    this.writes = write.catch(() => undefined);
    return write;
  }

  /** Records from `from` to `to` (epoch ms, inclusive), oldest first. */
  async between(from: number, to: number): Promise<TurnWorkRecord[]> {
    try {
      const values = await this.work.values({ gte: keyOf(from, 0), lt: keyOf(to + 1, 0) }).all();
      return values.flatMap((value) => {
        const parsed = TurnWorkRecordSchema.safeParse(value);
        return parsed.success ? [parsed.data] : [];
      });
    } catch (err) {
      throw toStoreError(err, 'read the work of a turn');
    }
  }
}
