/**
 * The clock's shape alone, apart from `clock.ts`: the simulated clock implements it and `clock.ts` makes one, so with
 * the type here neither imports the other (no import circle, type imports included).
 */

/** A clock: XState's `Clock` (setTimeout/clearTimeout) plus the current time in epoch milliseconds. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}
