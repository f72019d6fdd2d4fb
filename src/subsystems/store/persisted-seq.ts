/** A `SeqSource` whose numbers keep growing across restarts and crashes, by reserving blocks of them durably ahead of use. */
import { VigilError } from '../../errors.js';
import type { SeqSource } from '../../events/event-bus.js';
import { SUBLEVELS, toStoreError, writeSyncBatch, type VigilDb } from './vigil-db.js';

/** How many numbers one reservation covers unless told otherwise. */
export const DEFAULT_SEQ_BLOCK_SIZE = 10_000;

/** Options for `PersistedSeq.open`. */
export interface PersistedSeqOptions {
  /** Which counter (one key in the `seq` sublevel); `events` by default. */
  name?: string;
  /** Numbers reserved per durable write. */
  blockSize?: number;
}

/**
 * A synchronous counter backed by a stored ceiling: every number it issues is at or below a ceiling already
 * fsynced, so after a crash the next process (starting a block above that ceiling) never repeats one. A clean
 * `close` records the last number issued, and the next open continues right after it.
 */
export class PersistedSeq implements SeqSource {
  private readonly sublevel: SeqSublevel;
  private last: number;
  private ceiling: number;
  private reserving: Promise<void> | null = null;
  private reserveError: unknown = null;
  /**
   * The clean-close record on disk, if any: the last run's (until this run's first reservation deletes it) or this
   * run's own `close`. It holds only while no number above it is drawn; drawing one starts the reservation that
   * deletes it.
   */
  private recorded: number | null;

  private constructor(
    private readonly db: VigilDb,
    private readonly name: string,
    private readonly blockSize: number,
    start: number,
    recorded: number | null,
  ) {
    this.sublevel = seqSublevel(db);
    this.last = start;
    this.ceiling = start;
    this.recorded = recorded;
  }

  /** Reads the stored ceiling and durably reserves the first block before resolving. */
  static async open(db: VigilDb, options: PersistedSeqOptions = {}): Promise<PersistedSeq> {
    const name = options.name ?? 'events';
    const blockSize = options.blockSize ?? DEFAULT_SEQ_BLOCK_SIZE;
    if (!Number.isInteger(blockSize) || blockSize < 2) {
      throw new VigilError('INTERNAL', `The seq block size ${blockSize} must be an integer of at least 2.`);
    }
    let stored: unknown;
    let closedAt: unknown;
    try {
      [stored, closedAt] = await Promise.all([seqSublevel(db).get(name), seqSublevel(db).get(closedKey(name))]);
    } catch (err) {
      throw toStoreError(err, `read the ${name} seq ceiling`);
    }
    const recorded = closedAt === undefined ? null : validCeiling(closedAt, closedKey(name));
    // After a clean close, right after its last number. After a crash, one block above the stored ceiling: that
    // covers numbers a burst issued past it just before (seen live by subscribers, perhaps never journaled).
    const start = recorded ?? (stored === undefined ? 0 : validCeiling(stored, name) + blockSize);
    const seq = new PersistedSeq(db, name, blockSize, start, recorded);
    await seq.reserve();
    if (seq.reserveError !== null) throw toStoreError(seq.reserveError, `reserve ${name} seqs`);
    return seq;
  }

  /**
   * The next number. Never throws: it runs inside event emission, where a throw would take the heartbeat down. If a
   * burst outruns the reservations (thousands of events within one fsync), it keeps counting past the stored
   * ceiling and the next reservation covers what was issued; `open` starts a block above the stored ceiling, so
   * even a crash in that window cannot repeat a number.
   */
  next(): number {
    this.last += 1;
    if (this.mustReserve()) this.startReserve();
    return this.last;
  }

  /** The last number issued (before the first: the number this run counts on from). */
  current(): number {
    return this.last;
  }

  /** Waits for any reservation still being written. */
  async flush(): Promise<void> {
    while (this.reserving !== null) await this.reserving;
  }

  /**
   * A clean stop: once the reservations are written, records the last number issued (synced), so the next open
   * continues right after it rather than a block above the ceiling. Call it once nothing that anyone sees can draw
   * another number (the runtime closes its own bus first); a number drawn after it deletes the record again.
   */
  async close(): Promise<void> {
    await this.flush();
    if (this.reserveError !== null) return;
    const last = this.last;
    try {
      await writeSyncBatch(this.db, [{ type: 'put', sublevel: this.sublevel, key: closedKey(this.name), value: last }]);
    } catch (err) {
      throw toStoreError(err, `record the last ${this.name} seq`);
    }
    this.recorded = last;
    if (this.mustReserve()) this.startReserve();
  }

  /** Half the block is used, or a number above a clean-close record was drawn (the record must go). */
  private mustReserve(): boolean {
    return this.ceiling - this.last <= this.blockSize / 2 || (this.recorded !== null && this.last > this.recorded);
  }

  private startReserve(): void {
    // Never rejects: a failed write is kept in reserveError (see reserve), so nothing is lost by not awaiting it here.
    if (this.reserving === null) void this.reserve();
  }

  private reserve(): Promise<void> {
    const target = Math.max(this.ceiling, this.last) + this.blockSize;
    // Every reservation deletes a clean-close record: from here on only the ceiling vouches for what was issued.
    const deletes = this.recorded;
    const write = writeSyncBatch(this.db, [
      { type: 'put', sublevel: this.sublevel, key: this.name, value: target },
      { type: 'del', sublevel: this.sublevel, key: closedKey(this.name) },
    ]);
    this.reserving = write.then(
      () => {
        this.ceiling = Math.max(this.ceiling, target);
        // A record `close` wrote meanwhile is kept in mind: if this batch deleted it after all, the worst is one more
        // reservation later, never a record believed gone that is still on disk.
        if (this.recorded === deletes) this.recorded = null;
        this.reserveError = null;
        this.reserving = null;
        // A burst may have used more than half of the new block while it was being written.
        if (this.mustReserve()) this.startReserve();
      },
      (err: unknown) => {
        // Kept, not thrown: `open` reports it; later, the next number past half a block retries.
        this.reserveError = err;
        this.reserving = null;
      },
    );
    return this.reserving;
  }
}

type SeqSublevel = ReturnType<typeof seqSublevel>;

function seqSublevel(db: VigilDb) {
  return db.sublevel<string, number>(SUBLEVELS.seq, { valueEncoding: 'json' });
}

// A clean close's record sits beside the counter's ceiling; '~' keeps it apart from any counter's name.
function closedKey(name: string): string {
  return `${name}~closed`;
}

function validCeiling(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new VigilError(
      'STORE_IO',
      `The stored ${name} seq ceiling ${JSON.stringify(value)} is not a non-negative integer.`,
    );
  }
  return value;
}
