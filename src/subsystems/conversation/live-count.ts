/**
 * How many live entries the conversation log holds, stored in its meta sublevel by every write that changes them, so
 * that retention can find the oldest entries beyond the newest N by reading only those (a walk of all N, 10,000 keys
 * by default, cost 25–50 ms of every hourly pass and of each boot's first one).
 *
 * The stored number, when present, is always right: each write that changes the live entries carries it (or, when the
 * number is not known here, its deletion) in its own batch, so a crash keeps both or neither. It is not known here
 * after a write failed (it may have landed or not) and while a restore's archive is planned but not yet written
 * (that batch is someone else's to write; an append meanwhile would count the entries it moves); retention then
 * counts the log once and stores the number again.
 */

/** The meta key of the number of live entries. */
export const LIVE_COUNT_KEY = 'liveCount';

/** What a batch does to the stored number: sets it, or removes it while it is not known. */
export type LiveCountEntry = { type: 'put'; key: string; value: number } | { type: 'del'; key: string };

type State = { kind: 'known'; count: number } | { kind: 'unknown' };

export class LiveCount {
  private state: State;
  /** Restore archives planned and neither written nor given up: no count may be trusted until they settle. */
  private plans = 0;

  constructor(stored: unknown) {
    this.state = isCount(stored) ? { kind: 'known', count: stored } : { kind: 'unknown' };
  }

  /** The number of live entries, or null when the log must be counted. */
  get known(): number | null {
    return this.state.kind === 'known' ? this.state.count : null;
  }

  /** Whether a count taken now may be adopted (no restore archive is between its plan and its write). */
  get countable(): boolean {
    return this.plans === 0;
  }

  /** The entry for a batch that changes the live entries by `delta` (the number after it, or its removal). */
  entry(delta: number): LiveCountEntry {
    if (this.state.kind === 'unknown') return { type: 'del', key: LIVE_COUNT_KEY };
    return { type: 'put', key: LIVE_COUNT_KEY, value: Math.max(0, this.state.count + delta) };
  }

  /** A batch made with `entry(delta)` was written. */
  written(delta: number): void {
    if (this.state.kind === 'known') this.state = { kind: 'known', count: Math.max(0, this.state.count + delta) };
  }

  /** A write failed: it may or may not have landed, so the number is no longer known. */
  failed(): void {
    this.state = { kind: 'unknown' };
  }

  /** The log was counted (under its write lock): `count` is adopted if no planned archive can change it unseen. */
  counted(count: number): void {
    if (this.countable) this.state = { kind: 'known', count };
  }

  /** A restore archive was planned: its batch, written by the restore, removes the number (see `entry`). */
  planned(): void {
    this.plans += 1;
    this.state = { kind: 'unknown' };
  }

  /** A planned archive was written or given up. */
  settled(): void {
    this.plans = Math.max(0, this.plans - 1);
  }
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
