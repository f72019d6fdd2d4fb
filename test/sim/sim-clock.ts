/**
 * Simulated time: one world clock (`createSimulatedClock`) that only moves when the simulator moves it, and one
 * cuttable view of it per runtime incarnation, so a crashed runtime's timers never fire into its successor.
 */
import { createSimulatedClock, type Clock } from '../../src/shared/clock.js';

type WorldClock = ReturnType<typeof createSimulatedClock>;

/** The world's clock: every part's timers, and the time of the next one due. */
export class SimWorldClock implements Clock {
  private readonly clock: WorldClock;

  constructor(startMs: number) {
    this.clock = createSimulatedClock(startMs);
  }

  now(): number {
    return this.clock.now();
  }

  setTimeout(fn: () => void, ms: number): unknown {
    return this.clock.setTimeout(fn, Math.max(0, ms));
  }

  clearTimeout(handle: unknown): void {
    this.clock.clearTimeout(handle);
  }

  /** When the next timer is due (epoch ms), or Infinity when none is set. */
  nextDueAt(): number {
    return this.clock.nextDueAt();
  }

  /** Moves time to `at` (never back), firing every timer due by then in order. */
  advanceTo(at: number): void {
    if (at > this.clock.now()) this.clock.set(at);
    else this.clock.set(this.clock.now());
  }
}

/** One incarnation's view of the world clock: `cut()` (the process died) clears its timers and ignores new ones. */
export class IncarnationClock implements Clock {
  private readonly live = new Set<unknown>();
  private cutFlag = false;

  constructor(private readonly world: SimWorldClock) {}

  now(): number {
    return this.world.now();
  }

  setTimeout(fn: () => void, ms: number): unknown {
    if (this.cutFlag) return undefined;
    const handle = this.world.setTimeout(() => {
      this.live.delete(handle);
      if (!this.cutFlag) fn();
    }, ms);
    this.live.add(handle);
    return handle;
  }

  clearTimeout(handle: unknown): void {
    if (handle === undefined || !this.live.delete(handle)) return;
    this.world.clearTimeout(handle);
  }

  /** The process is gone: none of its timers fires again. */
  cut(): void {
    this.cutFlag = true;
    for (const handle of this.live) this.world.clearTimeout(handle);
    this.live.clear();
  }
}
