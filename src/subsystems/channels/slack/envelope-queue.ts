/**
 * Slack pushes, the channel core pulls from a cursor: envelopes wait here, unacknowledged, in the order they came,
 * each numbered; `take` hands out those after the cursor, and `confirm(cursor)` (called when the core receives from
 * a cursor, which it passes only once everything before it is durable) acknowledges those up to it. An envelope is
 * therefore acknowledged to Slack only after its message is on disk; one never acknowledged (a crash, a store
 * failure) is delivered again by Slack, and the inbox's records make that a no-op.
 *
 * A cursor also carries the newest message ts seen up to it (`generation:seq:ts`): durable with it, and meaningful to
 * the next process too, it is where a catch-up from Slack's history begins after a restart (`markOf`).
 */
import { randomUUID } from 'node:crypto';
import type { InboundMessage, InboundUpdate } from '../channel-adapter.js';
import { laterTs } from './slack-ts.js';

interface Waiting {
  seq: number;
  message: InboundMessage | undefined;
  ack: () => void;
  mark: string | undefined;
}

/** The newest message ts a cursor says was seen before it (any process's cursor), if it carries one. */
export function markOf(cursor: string | undefined): string | undefined {
  return cursor?.split(':')[2];
}

/** The envelopes of one adapter's life. */
export class EnvelopeQueue {
  // Cursors of an earlier process mean nothing to this one: they carry the process's own prefix.
  private readonly generation = randomUUID().slice(0, 8);
  private seq = 0;
  private readonly waiting: Waiting[] = [];
  private wake: (() => void) | undefined;
  private mark: string | undefined;

  /**
   * Adds an envelope (its message, or undefined for one that carries none) and the function that acknowledges it;
   * `ts`: the message ts it shows Slack's stream has reached (a message passed over too), for the cursors after it.
   */
  push(message: InboundMessage | undefined, ack: () => void, ts?: string): void {
    this.mark = laterTs(this.mark, ts);
    this.waiting.push({ seq: ++this.seq, message, ack, mark: this.mark });
    this.interrupt();
  }

  /** Carries on from the mark of a durable cursor (an earlier process's too), so later cursors never lose it. */
  resume(cursor: string | undefined): void {
    this.advance(markOf(cursor));
  }

  /** Slack's stream was read up to `ts` (history): the cursors of envelopes from now on say so. */
  advance(ts: string | undefined): void {
    this.mark = laterTs(this.mark, ts);
  }

  /** Acknowledges every envelope up to `cursor`, if it is one of this queue's. */
  confirm(cursor: string | undefined): void {
    const upTo = this.seqOf(cursor);
    if (upTo === undefined) return;
    while (this.waiting.length > 0 && this.waiting[0]!.seq <= upTo) this.waiting.shift()!.ack();
  }

  /** Ends a `take` waiting now with nothing (the connection went, so the caller opens a new one). */
  interrupt(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** The envelopes after `cursor`, waiting for one if there are none; [] when interrupted. Rejects on `signal`. */
  async take(cursor: string | undefined, signal: AbortSignal): Promise<InboundUpdate[]> {
    const after = this.seqOf(cursor) ?? 0;
    let ready = this.waiting.filter((each) => each.seq > after);
    if (ready.length === 0) {
      await new Promise<void>((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason as Error);
        const onAbort = () => reject(signal.reason as Error);
        signal.addEventListener('abort', onAbort, { once: true });
        this.wake = () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
      });
      ready = this.waiting.filter((each) => each.seq > after);
    }
    return ready.map((each) => ({
      cursorAfter: `${this.generation}:${each.seq}${each.mark === undefined ? '' : `:${each.mark}`}`,
      ...(each.message === undefined ? {} : { message: each.message }),
    }));
  }

  /** How many envelopes wait for their acknowledgement. */
  get size(): number {
    return this.waiting.length;
  }

  private seqOf(cursor: string | undefined): number | undefined {
    if (cursor === undefined) return undefined;
    const [generation, seq] = cursor.split(':');
    return generation === this.generation ? Number(seq) : undefined;
  }
}
