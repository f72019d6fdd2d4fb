/** How events and drop notices are written on the WebSocket feed (JSON-RPC notifications) and on SSE. */
import type { VigilEvent } from '../protocol/events.schema.js';
import type { DroppedRange, FeedFormat } from './event-subscriber.js';

// Each event is serialised once however many subscribers it fans out to.
const serialised = new WeakMap<VigilEvent, string>();

/** The event's JSON text, computed once per event. */
export function eventJson(event: VigilEvent): string {
  let text = serialised.get(event);
  if (text === undefined) {
    text = JSON.stringify(event);
    serialised.set(event, text);
  }
  return text;
}

/** JSON-RPC notifications `events.event` / `events.dropped` for subscription `subscription`. */
export function jsonRpcFeedFormat(subscription: string): FeedFormat {
  const prefix = `{"jsonrpc":"2.0","method":"events.event","params":{"subscription":${JSON.stringify(subscription)},"event":`;
  return {
    event: (event) => `${prefix}${eventJson(event)}}}`,
    dropped: (notice: DroppedRange) =>
      JSON.stringify({ jsonrpc: '2.0', method: 'events.dropped', params: { subscription, ...notice } }),
    live: (event) => `${prefix}${JSON.stringify(event)}}}`,
  };
}

/** Server-Sent Events: `id:` carries the seq (so `Last-Event-ID` resumes); a drop notice is the named event `dropped`; a live-only event has no `id:`. */
export const sseFeedFormat: FeedFormat = {
  event: (event) => `id: ${event.seq}\ndata: ${eventJson(event)}\n\n`,
  dropped: (notice) => `event: dropped\ndata: ${JSON.stringify(notice)}\n\n`,
  // No `id:`: a live-only event has no seq, and must not move the client's Last-Event-ID.
  live: (event) => `data: ${JSON.stringify(event)}\n\n`,
};
