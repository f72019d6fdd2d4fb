/** The turns' debrief timers on disk (seed 004): written as they change, so a crash before the next checkpoint still owes its debrief. */
import { z } from 'zod';
import { SUBLEVELS, toStoreError, writeSyncBatch, type VigilDb } from '../store/vigil-db.js';

/** The debrief timers and whether a turn was running, so a restart knows what it cut short. Times are epoch ms. */
export const TurnTimersRecordSchema = z.object({
  lastMessageAt: z.number().nullable(),
  lastDebriefAt: z.number().nullable(),
  turnStartedAt: z.number().nullable(),
  turnInProgress: z.boolean(),
});
export type TurnTimersRecord = z.infer<typeof TurnTimersRecordSchema>;

const TIMERS_KEY = 'timers';
// Data dirs from before the turns had a store of their own kept the record in the budget ledger under this key.
const LEGACY_LEDGER_KEY = 'turn';

/** One small record, overwritten in place; the newest write wins. */
export class TurnTimersStore {
  private readonly timers;
  private readonly legacy;
  private writes: Promise<unknown> = Promise.resolve();

  constructor(private readonly db: VigilDb) {
    this.timers = db.sublevel<string, unknown>(SUBLEVELS.turnTimers, { valueEncoding: 'json' });
    this.legacy = db.sublevel<string, unknown>(SUBLEVELS.budgetLedger, { valueEncoding: 'json' });
  }

  /** Records the timers (synced, in call order, so an older write never lands after a newer one). */
  record(timers: TurnTimersRecord): Promise<void> {
    const write = this.writes.then(async () => {
      try {
        await writeSyncBatch(this.db, [{ type: 'put', sublevel: this.timers, key: TIMERS_KEY, value: timers }]);
      } catch (err) {
        throw toStoreError(err, 'record the turn timers');
      }
    });
    // Only the queue's tail swallows a failure (the next write still runs); the caller gets it from `write`.
    this.writes = write.catch(() => undefined);
    return write;
  }

  /** The last recorded timers (or those an older Vigil left in the budget ledger); null when none. */
  async read(): Promise<TurnTimersRecord | null> {
    try {
      const own = TurnTimersRecordSchema.safeParse(await this.timers.get(TIMERS_KEY));
      if (own.success) return own.data;
      const legacy = TurnTimersRecordSchema.safeParse(await this.legacy.get(LEGACY_LEDGER_KEY));
      return legacy.success ? legacy.data : null;
    } catch (err) {
      throw toStoreError(err, 'read the turn timers');
    }
  }
}
