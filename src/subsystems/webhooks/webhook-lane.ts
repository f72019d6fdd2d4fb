/**
 * One endpoint's lane of the outbox: what it has read ahead of the journal, whether it is sending or waiting, and the
 * wire form of the event at its head. Plain data and the pure reads over it; the loop that drives lanes is
 * `webhook-outbox.ts`.
 */
import type { VigilEvent } from '../../protocol/events.schema.js';
import type { WebhookRecord } from '../../protocol/webhooks.schema.js';
import { webhookEventMatcher } from './webhook-event-match.js';
import type { WebhookEventSource } from './webhook-outbox-options.js';
import { webhookBody, webhookMessageId, WebhookSigner } from './webhook-signing.js';
import type { WebhookStoreLike } from './webhook-store.js';

/** An event as it goes on the wire: its body and `webhook-id`, made once for every attempt at it. */
export interface Wire {
  event: VigilEvent;
  body: string;
  webhookId: string;
}

/** One endpoint's lane: what it has read ahead, and whether it is sending or waiting. */
export interface Lane {
  id: string;
  /** Events of its types after the cursor, read ahead, oldest first. */
  buffer: VigilEvent[];
  /** The journal has been read through this seq: the buffer holds every event for the endpoint up to it. */
  scannedThrough: number;
  /** Bumped when the cursor is moved under the lane (redeliver, gap): an attempt begun before must not advance it. */
  generation: number;
  /** True from a kick until the pump returns (cleared in the same step as its last check, so no wake falls between). */
  active: boolean;
  /** The running pump, for `stop` to await. */
  running: Promise<void> | undefined;
  /** Woken while running: look at the journal again before going idle. */
  wakeAgain: boolean;
  /** The backoff timer while a failing endpoint waits. */
  timer: unknown;
  inflight: AbortController | undefined;
  matches: (event: VigilEvent) => boolean;
  signer: WebhookSigner;
  /** The head event's wire form: a failing endpoint retries one event many times, and each retry sends the same. */
  wire: Wire | undefined;
}

/** A fresh lane for endpoint `record`, read through its cursor. */
export function newLane(record: WebhookRecord): Lane {
  return {
    id: record.id,
    buffer: [],
    scannedThrough: record.deliveredSeq,
    generation: 0,
    active: false,
    running: undefined,
    wakeAgain: false,
    timer: undefined,
    inflight: undefined,
    matches: webhookEventMatcher(record),
    signer: new WebhookSigner(record.secret),
    wire: undefined,
  };
}

/** The lane forgets what it read ahead: the cursor moved under it, and an attempt begun before must not advance it. */
export function rewind(lane: Lane): void {
  lane.generation += 1;
  lane.buffer = [];
  lane.scannedThrough = 0;
}

/** The cursor, or past it when everything between it and the lane's read-ahead is of other types. */
export function effectiveCursor(lane: Lane | undefined, record: WebhookRecord): number {
  if (lane === undefined) return record.deliveredSeq;
  const head = lane.buffer[0];
  const readPast = head === undefined ? lane.scannedThrough : head.seq - 1;
  return Math.max(record.deliveredSeq, readPast);
}

/** `event`'s body and `webhook-id`: made at its first attempt, kept for the retries (the event never changes). */
export function wireOf(lane: Lane, event: VigilEvent): Wire {
  if (lane.wire?.event === event) return lane.wire;
  const body = webhookBody(event);
  lane.wire = { event, body, webhookId: webhookMessageId(event.seq, body) };
  return lane.wire;
}

/** The oldest event the endpoint has not received, reading the journal forward as needed; undefined when none. */
export async function headEvent(
  lane: Lane,
  record: WebhookRecord,
  source: { events: WebhookEventSource; store: WebhookStoreLike; pageSize: number },
): Promise<VigilEvent | undefined> {
  for (;;) {
    while (lane.buffer[0] !== undefined && lane.buffer[0].seq <= record.deliveredSeq) lane.buffer.shift();
    if (lane.scannedThrough < record.deliveredSeq) {
      lane.buffer = [];
      lane.scannedThrough = record.deliveredSeq;
    }
    if (lane.buffer[0] !== undefined) return lane.buffer[0];
    const generation = lane.generation;
    const from = lane.scannedThrough;
    const page = await source.events.read(from, record.types, source.pageSize);
    // The cursor moved while reading: read again from where it is now.
    if (lane.generation !== generation || source.store.get(record.id) !== record) return undefined;
    const last = page.at(-1);
    if (last === undefined) return undefined;
    lane.buffer.push(...page.filter(lane.matches));
    lane.scannedThrough = last.seq;
  }
}
