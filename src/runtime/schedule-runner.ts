/**
 * Fires schedules when they fall due. One timer on the runtime's clock points at the earliest due time (re-armed
 * whenever the schedules change or fire), so the agent sleeps until then whatever its beat interval: no polling. A
 * beat also compares the clock with that time (one comparison), which catches a wall clock that jumped past it while
 * the timer, on the monotonic clock, still waits (NTP, a suspended laptop). What fell due while the runtime could not
 * fire it (at boot: while down; while dormant over the budget; after a jump) follows each schedule's catch-up policy.
 */
import type { Subscription } from 'rxjs';
import { describeError } from '../errors.js';
import { createMutex } from '../shared/mutex.js';
import { planFirings, type FiringMode } from '../subsystems/schedules/firing-plan.js';
import type { ScheduleStore } from '../subsystems/schedules/schedule-store.js';
import type { RuntimeCore } from './runtime-core.js';
import { writeFiringPlan } from './schedule-firing.js';

/** The longest the timer waits before looking again (a due time far off is reached in steps of this). */
const MAX_TIMER_DELAY_MS = 3_600_000;
/** After a firing could not be written (disk full), the next try waits this long. */
const RETRY_AFTER_MS = 5_000;

/** The schedules' timer and the passes that fire what is due. */
export class ScheduleRunner {
  /** Serialises passes and changes to the schedules, so a pass never writes over a schedule changed meanwhile. */
  private readonly mutex = createMutex();
  private timer: unknown;
  private earliest: number | null = null;
  private retryAt = 0;
  private started = false;
  private stopped = false;
  /** Dormant over the budget: nothing fires; on waking, what fell due meanwhile is caught up. */
  private waitingForWake = false;
  private subscription: Subscription | undefined;
  private passes: Promise<void> = Promise.resolve();
  /** A pass asked for and not yet begun (asking again only upgrades it to a catch-up). */
  private queued: FiringMode | null = null;

  constructor(
    private readonly core: RuntimeCore,
    private readonly store: ScheduleStore,
  ) {}

  /** Starts firing: first what fell due while the runtime was down, then each schedule as it falls due. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.subscription = this.core.parts.bus.events$.subscribe((event) => {
      if (event.type === 'heartbeat.beat') this.onBeat();
      else if (event.type === 'agent.waking') this.kick('catch_up');
    });
    this.kick('catch_up');
  }

  /** Stops the timer; resolves once a pass in progress has finished. */
  stop(): Promise<void> {
    this.stopped = true;
    this.disarm();
    this.subscription?.unsubscribe();
    return this.passes;
  }

  /** Runs `change` with the schedules to itself (no pass in between), then re-arms the timer for the new earliest time. */
  change<T>(change: () => Promise<T>): Promise<T> {
    return this.mutex.run(async () => {
      try {
        return await change();
      } finally {
        this.rearm();
      }
    });
  }

  /** Resolves once every pass asked for so far has run (tests and the stop wait on it). */
  settled(): Promise<void> {
    return this.passes;
  }

  private onBeat(): void {
    if (this.waitingForWake) {
      // Awake again by any path (a wake event, a restore that resumed awake): catch up now.
      if (!this.dormant()) this.kick('catch_up');
      return;
    }
    const now = this.core.parts.clock.now();
    if (this.earliest !== null && now >= this.earliest && now >= this.retryAt) this.kick('on_time');
  }

  private kick(mode: FiringMode): void {
    if (this.stopped) return;
    if (this.queued !== null) {
      if (mode === 'catch_up') this.queued = 'catch_up';
      return;
    }
    this.queued = mode;
    this.passes = this.passes.then(async () => {
      const queued = this.queued ?? mode;
      this.queued = null;
      await this.pass(queued);
    });
  }

  // The runtime's exclusive section first, then the schedules': a restore holds the former while it waits for a think
  // to end, and a think may wait for the latter (the model's schedule tools), so taking them the other way round could
  // deadlock.
  private pass(mode: FiringMode): Promise<void> {
    return this.core.exclusive.run(() =>
      this.mutex.run(async () => {
        const { core, store } = this;
        if (this.stopped || core.stopped) return;
        try {
          if (this.dormant()) {
            // No API call while asleep: the firings wait, and the wake catches them up under their policy.
            this.waitingForWake = true;
            return;
          }
          const wake = this.waitingForWake;
          this.waitingForWake = false;
          const now = core.parts.clock.now();
          for (const record of store.list()) {
            const plan = planFirings(record, now, wake ? 'catch_up' : mode);
            if (plan === null) continue;
            if (!(await writeFiringPlan(core, store, plan))) return;
          }
        } catch (err) {
          this.retryAt = core.parts.clock.now() + RETRY_AFTER_MS;
          core.parts.log.error({ err: describeError(err) }, 'a schedule could not fire; trying again shortly');
        } finally {
          this.rearm();
        }
      }),
    );
  }

  private rearm(): void {
    this.disarm();
    this.earliest = this.store.earliestDue();
    this.core.parts.metrics.schedulesActive(this.store.activeCount());
    if (!this.started || this.stopped || this.waitingForWake || this.earliest === null) return;
    const { clock } = this.core.parts;
    const delay = Math.max(this.earliest, this.retryAt) - clock.now();
    if (delay <= 0) {
      this.kick('on_time');
      return;
    }
    this.timer = clock.setTimeout(
      () => {
        this.timer = undefined;
        const now = clock.now();
        if (this.earliest !== null && now >= this.earliest) this.kick('on_time');
        else this.rearm();
      },
      Math.min(delay, MAX_TIMER_DELAY_MS),
    );
  }

  private disarm(): void {
    if (this.timer === undefined) return;
    this.core.parts.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private dormant(): boolean {
    return this.core.actor.getSnapshot().matches('dormant');
  }
}
