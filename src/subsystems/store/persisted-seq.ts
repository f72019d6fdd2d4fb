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
 * fsynced, so after a crash the next process (starting above that ceiling) never repeats one.
 */
export class PersistedSeq implements SeqSource {
  private readonly sublevel: SeqSublevel;
  private last: number;
  private ceiling: number;
  private reserving: Promise<void> | null = null;
  private reserveError: unknown = null;

  private constructor(
    private readonly db: VigilDb,
    private readonly name: string,
    private readonly blockSize: number,
    start: number,
  ) {
    this.sublevel = seqSublevel(db);
    this.last = start;
    this.ceiling = start;
  }

  /** Reads the stored ceiling and durably reserves the first block before resolving. */
  static async open(db: VigilDb, options: PersistedSeqOptions = {}): Promise<PersistedSeq> {
    const name = options.name ?? 'events';
    const blockSize = options.blockSize ?? DEFAULT_SEQ_BLOCK_SIZE;
    if (!Number.isInteger(blockSize) || blockSize < 2) {
      throw new VigilError('INTERNAL', `The seq block size ${blockSize} must be an integer of at least 2.`);
    }
    let stored: unknown;
    try {
      stored = await seqSublevel(db).get(name);
    } catch (err) {
      throw toStoreError(err, `read the ${name} seq ceiling`);
    }
    // One block above the stored ceiling: covers numbers a previous run issued past it in a burst before it crashed.
    const start = stored === undefined ? 0 : validCeiling(stored, name) + blockSize;
    const seq = new PersistedSeq(db, name, blockSize, start);
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
    if (this.ceiling - this.last <= this.blockSize / 2) this.startReserve();
    return this.last;
  }

  /** The last number issued (the stored ceiling of the previous run if none yet). */
  current(): number {
    return this.last;
  }

  /** Waits for any reservation still being written. */
  async flush(): Promise<void> {
    while (this.reserving !== null) await this.reserving;
  }

  private startReserve(): void {
    // Never rejects: a failed write is kept in reserveError (see reserve), so nothing is lost by not awaiting it here.
    if (this.reserving === null) void this.reserve();
  }

  private reserve(): Promise<void> {
    const target = Math.max(this.ceiling, this.last) + this.blockSize;
    const write = writeSyncBatch(this.db, [{ type: 'put', sublevel: this.sublevel, key: this.name, value: target }]);
    this.reserving = write.then(
      () => {
        this.ceiling = Math.max(this.ceiling, target);
        this.reserveError = null;
        this.reserving = null;
        // A burst may have used more than half of the new block while it was being written.
        if (this.ceiling - this.last <= this.blockSize / 2) this.startReserve();
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

function validCeiling(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new VigilError('STORE_IO', `The stored ${name} seq ceiling ${JSON.stringify(value)} is not a non-negative integer.`);
  }
  return value;
}
