/** The one clock every delay, timestamp and midnight goes through, so tests can run in simulated time. */
import type { Clock } from './clock.types.js';
import { SimulatedClock } from './simulated-clock.js';

export type { Clock } from './clock.types.js';

/** The real clock: wall time and Node's timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** A simulated clock for tests, starting at `startMs` (epoch ms); advance it with `increment(ms)` or `set(ms)`. */
export function createSimulatedClock(startMs: number = Date.parse('2026-01-01T00:00:00Z')): SimulatedClock {
  return new SimulatedClock(startMs);
}

/** Resolves after `ms` on the given clock. */
export function delay(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clock.clearTimeout(handle);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
