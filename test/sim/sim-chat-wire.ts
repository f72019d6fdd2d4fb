/**
 * The network between the runtime and the simulated chat platform: a request reaches the platform at once and its
 * answer takes a few simulated ms (one timer per call keeps a seed's steps few), a dead incarnation's calls are never
 * answered (its process is gone), and an aborted call fails at once.
 */
import { ChannelCallError } from '../../src/subsystems/channels/channel-adapter.js';
import type { SimWorldClock } from './sim-clock.js';
import type { SimRandom } from './sim-random.js';

/** Simulated ms one leg of a call takes (min, max). */
const LEG_MS: [number, number] = [5, 150];

/** The wire, per incarnation. */
export class SimChatWire {
  private readonly dead = new Set<number>();
  private readonly timers = new Map<number, Set<unknown>>();

  constructor(
    private readonly world: SimWorldClock,
    private readonly rng: SimRandom,
  ) {}

  /** Whether incarnation `incarnation` is gone. */
  isDead(incarnation: number): boolean {
    return this.dead.has(incarnation);
  }

  /** Incarnation `incarnation` died: nothing it asked is answered any more. */
  cut(incarnation: number): void {
    this.dead.add(incarnation);
    for (const timer of this.timers.get(incarnation) ?? []) this.world.clearTimeout(timer);
    this.timers.delete(incarnation);
  }

  /** A request leaving incarnation `incarnation`: it arrives at once, unless the process is gone or it was aborted. */
  async sent(incarnation: number, signal?: AbortSignal): Promise<void> {
    if (this.dead.has(incarnation)) return never();
    await Promise.resolve();
    if (signal?.aborted === true) throw new ChannelCallError('unreachable', 'aborted');
  }

  /** An answer's way back (a few ms); never settles for a dead incarnation, fails once `signal` aborts. */
  leg(incarnation: number, signal?: AbortSignal): Promise<void> {
    if (this.dead.has(incarnation)) return never();
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.clear(incarnation, timer);
        reject(new ChannelCallError('unreachable', 'aborted'));
      };
      const timer = this.after(incarnation, this.rng.int(...LEG_MS), () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      if (signal?.aborted === true) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Calls `fn` after `ms` unless incarnation `incarnation` died first; the handle clears it. */
  after(incarnation: number, ms: number, fn: () => void): unknown {
    const timer: unknown = this.world.setTimeout(() => {
      this.timers.get(incarnation)?.delete(timer);
      if (!this.dead.has(incarnation)) fn();
    }, ms);
    const set = this.timers.get(incarnation) ?? new Set();
    set.add(timer);
    this.timers.set(incarnation, set);
    return timer;
  }

  /** Clears a timer set with `after`. */
  clear(incarnation: number, timer: unknown): void {
    this.world.clearTimeout(timer);
    this.timers.get(incarnation)?.delete(timer);
  }
}

/** A promise a dead process waits on forever. */
export function never<T>(): Promise<T> {
  return new Promise<T>(() => undefined);
}
