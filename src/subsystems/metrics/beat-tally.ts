/**
 * What every beat adds to the metrics (an event of its type, a beat, its duration and delay), tallied in plain numbers
 * and handed to prom-client when the metrics are read: prom-client hashes labels and makes a closure per call, a
 * microsecond or more on a beat that costs a few dozen. Bounded: past `MAX_PENDING` observations it hands them over at
 * once, so a daemon never scraped holds no more than that.
 */
import type { Counter, Histogram } from 'prom-client';

const MAX_PENDING = 1024;

/** The metrics the tally feeds. */
export interface BeatTallyTargets {
  events: Counter<'type'>;
  beats: Counter;
  beatDuration: Histogram;
  beatDelay: Histogram;
}

export class BeatTally {
  private readonly eventsByType = new Map<string, number>();
  private beats = 0;
  private durations: number[] = [];
  private delays: number[] = [];
  private targets: BeatTallyTargets | undefined;

  /** Where the tally goes (set once the metrics exist: they are built with `flush` as their collect hook). */
  useTargets(targets: BeatTallyTargets): void {
    this.targets = targets;
  }

  event(type: string): void {
    this.eventsByType.set(type, (this.eventsByType.get(type) ?? 0) + 1);
  }

  /** A beat that took `durationSeconds`, and started `delaySeconds` late (undefined for the first). */
  beat(durationSeconds: number, delaySeconds: number | undefined): void {
    this.beats += 1;
    this.durations.push(durationSeconds);
    if (delaySeconds !== undefined) this.delays.push(delaySeconds);
    if (this.durations.length >= MAX_PENDING) this.flush();
  }

  /** Hands everything tallied to prom-client. */
  flush(): void {
    const targets = this.targets;
    if (targets === undefined) return;
    for (const [type, count] of this.eventsByType) targets.events.inc({ type }, count);
    this.eventsByType.clear();
    if (this.beats > 0) targets.beats.inc(this.beats);
    this.beats = 0;
    for (const seconds of this.durations) targets.beatDuration.observe(seconds);
    for (const seconds of this.delays) targets.beatDelay.observe(seconds);
    this.durations = [];
    this.delays = [];
  }
}
