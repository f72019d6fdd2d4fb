/** One event feed of a client: what it asked for, where it is, and how an event reaches its observer. */
import type { Subscriber } from 'rxjs';
import type { VigilEvent } from '../protocol/events.schema.js';
import type { LiveEvent } from '../protocol/live-events.schema.js';

/** What a feed delivers: events, and the live-only events it named. */
export type FeedEvent = VigilEvent | LiveEvent;

/** A feed's state, kept across reconnections. */
export interface FeedState {
  types: readonly string[] | undefined;
  /** The newest seq delivered (or the point the feed began after); a resubscription continues after it. */
  cursor: number | undefined;
  serverId: string | undefined;
  observer: Subscriber<FeedEvent>;
  /** Passes live-only events (no seq) on too: only `subscribeFeed` asks for them. */
  withLive: boolean;
  closed: boolean;
}

/** Hands one `events.event` to its feed; a live-only event (no seq) moves no cursor, so no resubscription asks for it again. */
export function deliverToFeed(feed: FeedState, event: FeedEvent): void {
  if (feed.closed) return;
  if (!('seq' in event)) {
    if (feed.withLive) feed.observer.next(event);
    return;
  }
  feed.cursor = Math.max(feed.cursor ?? 0, event.seq);
  feed.observer.next(event);
}
