/**
 * The schedules on disk: one record per schedule in their own sublevel, all held in memory once opened (a few KB
 * each), so finding the next due time never reads the disk. A firing's record goes into the batch of the firing's
 * turn (`putOp`), so the two are written together or not at all.
 */
import { ScheduleRecordSchema, type ScheduleRecord } from '../../protocol/schedules.schema.js';
import { readValidRecords } from '../store/read-valid-records.js';
import { SUBLEVELS, toStoreError, writeSyncBatch, type VigilBatchOp, type VigilDb } from '../store/vigil-db.js';

/** The schedule store; `open` reads every record, then reads are from memory and writes are synced. */
export class ScheduleStore {
  private readonly records;
  private readonly byId = new Map<string, ScheduleRecord>();

  /** `defaultTimezone`: the zone of a schedule added without one (VIGIL_TIMEZONE). */
  private constructor(
    private readonly db: VigilDb,
    readonly defaultTimezone: string,
  ) {
    this.records = db.sublevel<string, ScheduleRecord>(SUBLEVELS.schedules, { valueEncoding: 'json' });
  }

  /** Opens the store and reads every schedule (a record that does not parse is passed over). */
  static async open(db: VigilDb, options: { defaultTimezone: string }): Promise<ScheduleStore> {
    const store = new ScheduleStore(db, options.defaultTimezone);
    for (const record of await readValidRecords(store.records, ScheduleRecordSchema, 'read the schedules'))
      store.byId.set(record.id, record);
    return store;
  }

  /** Every schedule, oldest first (ids sort by creation). */
  list(): ScheduleRecord[] {
    return [...this.byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** How many schedules are stored. */
  get size(): number {
    return this.byId.size;
  }

  /** The schedule `id`, or undefined. */
  get(id: string): ScheduleRecord | undefined {
    return this.byId.get(id);
  }

  /** The earliest time any schedule that is not paused falls due; null when none will. */
  earliestDue(): number | null {
    let earliest: number | null = null;
    for (const record of this.byId.values()) {
      if (record.paused || record.nextAt === null) continue;
      if (earliest === null || record.nextAt < earliest) earliest = record.nextAt;
    }
    return earliest;
  }

  /** How many schedules will fire again (not paused, not a finished one-shot). */
  activeCount(): number {
    let count = 0;
    for (const record of this.byId.values()) if (!record.paused && record.nextAt !== null) count += 1;
    return count;
  }

  /** Writes `record` (new or changed), synced. */
  async save(record: ScheduleRecord): Promise<void> {
    await this.write([this.putOp(record)], `save schedule ${record.id}`);
    this.byId.set(record.id, record);
  }

  /** Deletes schedule `id`, synced. */
  async remove(id: string): Promise<void> {
    await this.write([{ type: 'del', sublevel: this.records, key: id }], `remove schedule ${id}`);
    this.byId.delete(id);
  }

  /** The batch operation that stores `record`, for another's sync batch; call `committed` once that batch is written. */
  putOp(record: ScheduleRecord): VigilBatchOp {
    return { type: 'put', sublevel: this.records, key: record.id, value: ScheduleRecordSchema.parse(record) };
  }

  /** A batch carrying `putOp(record)` was written: memory follows the disk. */
  committed(record: ScheduleRecord): void {
    this.byId.set(record.id, record);
  }

  private async write(ops: VigilBatchOp[], what: string): Promise<void> {
    try {
      await writeSyncBatch(this.db, ops);
    } catch (err) {
      throw toStoreError(err, what);
    }
  }
}
