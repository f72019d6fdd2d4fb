/** Time-sortable, strictly monotonic ids: lexical order is creation order, even within one millisecond. */
import { randomBytes } from 'node:crypto';
import type { Clock } from './clock.js';

const TIME_WIDTH = 11; // base36 epoch ms: 11 digits last until the year 5188
const COUNTER_WIDTH = 4;

/** Makes ids like `lz3k9q2a1b0-0000-3f9a` whose string order follows creation order. */
export interface IdFactory {
  next(): string;
  /** Never issue an id at or below this one (the newest id already stored, across restarts). */
  observe(existingId: string): void;
}

/** An id factory on `clock`; `prefix` names the kind (`ck`, `g`, `m`…). */
export function createIdFactory(clock: Clock, prefix = ''): IdFactory {
  let lastMs = -1;
  let counter = 0;

  return {
    next() {
      const now = Math.floor(clock.now());
      // A clock that stands still or steps back keeps the last time and counts up, so order holds.
      if (now > lastMs) {
        lastMs = now;
        counter = 0;
      } else {
        counter += 1;
        if (counter >= 36 ** COUNTER_WIDTH) {
          lastMs += 1;
          counter = 0;
        }
      }
      const time = lastMs.toString(36).padStart(TIME_WIDTH, '0');
      const seq = counter.toString(36).padStart(COUNTER_WIDTH, '0');
      return `${prefix}${time}-${seq}-${randomBytes(2).toString('hex')}`;
    },
    observe(existingId) {
      const body = existingId.slice(prefix.length);
      const [time, seq] = body.split('-');
      if (time === undefined || seq === undefined) return;
      const ms = parseInt(time, 36);
      const count = parseInt(seq, 36);
      if (!Number.isFinite(ms) || !Number.isFinite(count)) return;
      if (ms > lastMs || (ms === lastMs && count >= counter)) {
        lastMs = ms;
        counter = count;
      }
    },
  };
}
