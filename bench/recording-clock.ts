/** A real-time clock that records, for every timer it runs, how late it fired and what the main thread did meanwhile. */
import { readFileSync } from 'node:fs';
import { systemClock, type Clock } from '../src/shared/clock.js';

/** One timer that fired. Times are `performance.now()` milliseconds. */
export interface TimerRecord {
  /** The delay asked for. */
  ms: number;
  /** When `setTimeout` was called. */
  scheduledAt: number;
  /** actual − scheduled − ms: how late the callback started. */
  latenessMs: number;
  /** From the callback's start until the next `setImmediate` (the callback plus the microtasks it queued). */
  busyMs: number;
  /** Main-thread CPU time between `setTimeout` and the callback (null where Linux schedstat is unavailable). */
  onCpuMs: number | null;
  /** Time the main thread was runnable but waiting for a CPU in that interval (other threads or processes ran). */
  runqueueMs: number | null;
}

interface SchedSample {
  runNs: number;
  waitNs: number;
}

const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;

/** The main thread's CPU and run-queue time so far (Linux `schedstat`, in ns), or null elsewhere. */
function mainThreadSchedstat(): SchedSample | null {
  try {
    const [run, wait] = readFileSync(SCHEDSTAT, 'utf8').split(' ');
    return { runNs: Number(run), waitNs: Number(wait) };
  } catch {
    // Not Linux, or /proc is hidden: the attribution columns stay null.
    return null;
  }
}

/** `base` (the system clock by default) with every fired timer recorded in `records`. */
export function createRecordingClock(base: Clock = systemClock): Clock & { records: TimerRecord[] } {
  const records: TimerRecord[] = [];
  return {
    records,
    now: () => base.now(),
    setTimeout(fn, ms) {
      const scheduledAt = performance.now();
      const before = mainThreadSchedstat();
      return base.setTimeout(() => {
        const firedAt = performance.now();
        const after = mainThreadSchedstat();
        const record: TimerRecord = {
          ms,
          scheduledAt,
          latenessMs: firedAt - scheduledAt - ms,
          busyMs: 0,
          onCpuMs: before && after ? (after.runNs - before.runNs) / 1e6 : null,
          runqueueMs: before && after ? (after.waitNs - before.waitNs) / 1e6 : null,
        };
        records.push(record);
        fn();
        // setImmediate runs once the callback and every microtask it queued are done (and any I/O polled meanwhile).
        setImmediate(() => {
          record.busyMs = performance.now() - firedAt;
        });
      }, ms);
    },
    clearTimeout: (handle) => base.clearTimeout(handle),
  };
}
