/**
 * Publication in seq order. An event stamped before its synced write (a turn's ending, a tool call's intent) is in
 * flight until it is published or withdrawn; every event with a higher seq waits behind it, so subscribers see seqs
 * strictly increasing by construction, and none of them can skip a lower seq that is still on its way.
 */
import type { VigilEvent } from '../protocol/events.schema.js';

/** What a release does with an event: hand it to the subscribers, or say it was too late to. */
export type ReleaseOutcome = { kind: 'released'; events: VigilEvent[] } | { kind: 'late'; event: VigilEvent };

/**
 * The bookkeeping behind ordered publication, with no I/O and no timers: the bus calls it and delivers what it
 * returns. Seqs in flight are few (one per synced write under way), so plain sorted arrays are the right size.
 */
export class PublicationOrder {
  // Stamped and neither published nor withdrawn, ascending.
  private readonly inFlight: number[] = [];
  // Published but behind a lower seq still in flight, ascending.
  private readonly waiting: VigilEvent[] = [];
  // Given up on by `expire`: if they are published after all, they are not delivered (their seq is behind the feed).
  private readonly expired = new Set<number>();

  /** True while nothing is held: an event published now goes straight out. */
  get idle(): boolean {
    return this.inFlight.length === 0 && this.waiting.length === 0;
  }

  /** The lowest seq not yet delivered nor given up on, or undefined when none is held. */
  floor(): number | undefined {
    const held = this.inFlight[0];
    const queued = this.waiting[0]?.seq;
    if (held === undefined) return queued;
    return queued === undefined ? held : Math.min(held, queued);
  }

  /** Marks `seq` as stamped: events above it wait until it is published or withdrawn. */
  stamped(seq: number): void {
    // Stamps come in increasing order, so this is an append.
    let at = this.inFlight.length;
    while (at > 0 && this.inFlight[at - 1]! > seq) at -= 1;
    this.inFlight.splice(at, 0, seq);
  }

  /** Publishes `event`: returns what may now be delivered, in seq order (possibly nothing yet). */
  publish(event: VigilEvent): ReleaseOutcome {
    if (this.expired.delete(event.seq)) return { kind: 'late', event };
    this.removeInFlight(event.seq);
    let at = this.waiting.length;
    while (at > 0 && this.waiting[at - 1]!.seq > event.seq) at -= 1;
    this.waiting.splice(at, 0, event);
    return { kind: 'released', events: this.releasable() };
  }

  /** `seq` will never be published (its write failed): returns what it was holding back. */
  withdraw(seq: number): VigilEvent[] {
    this.expired.delete(seq);
    this.removeInFlight(seq);
    return this.releasable();
  }

  /** Stops waiting for `seq` (its write is stuck): returns what it was holding back. A later `publish` of it is late. */
  expire(seq: number): VigilEvent[] {
    if (!this.removeInFlight(seq)) return [];
    this.expired.add(seq);
    return this.releasable();
  }

  private removeInFlight(seq: number): boolean {
    const at = this.inFlight.indexOf(seq);
    if (at < 0) return false;
    this.inFlight.splice(at, 1);
    return true;
  }

  private releasable(): VigilEvent[] {
    const lowestHeld = this.inFlight[0] ?? Number.POSITIVE_INFINITY;
    let count = 0;
    while (count < this.waiting.length && this.waiting[count]!.seq < lowestHeld) count += 1;
    return count === 0 ? [] : this.waiting.splice(0, count);
  }
}
