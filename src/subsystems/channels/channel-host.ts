/**
 * What a channel needs of the runtime that hosts it: turns written with the channel's own records in one synced batch
 * and handed to the heartbeat, turn endings looked up and followed, and events stamped for the same batches. The
 * runtime implements it (`src/runtime/channel-turns.ts`); tests and the simulator may implement it themselves.
 */
import type { ReplyRecord } from '../../protocol/channel-records.schema.js';
import type { EventPayload, EventType, VigilEvent, VigilEventOf } from '../../protocol/events.schema.js';
import type { TokenScope } from '../../protocol/token-scopes.js';
import type { VigilBatchOp } from '../store/vigil-db.js';
import type { InboundMessage } from './channel-adapter.js';
import type { ChannelStore } from './channel-store.js';

/** A message the inbox admits: the text the turn carries (a group's marked untrusted) and the scope it acts with. */
export interface AdmittedTurn {
  message: InboundMessage;
  text: string;
  scope: TokenScope;
}

/** A turn's ending as the conversation holds it: the reply, or the unanswered reason. */
export interface TurnEnding {
  turnId: string;
  text: string;
}

/** The events a channel emits, stamped to be written with the fact they report, or emitted as they happen. */
export interface ChannelEvents {
  stamp<T extends EventType>(type: T, payload: EventPayload<T>): VigilEventOf<T>;
  entryOp(event: VigilEvent): VigilBatchOp;
  publish(event: VigilEvent): void;
  withdraw(...events: readonly VigilEvent[]): void;
  emit<T extends EventType>(type: T, payload: EventPayload<T>): unknown;
}

/** Where a channel reports its metrics (VigilMetrics implements it); labelled by the channel's name, never a sender. */
export interface ChannelMetricsSink {
  channelMessages(channel: string, direction: 'in' | 'out', count: number): void;
  channelSendFailed(channel: string): void;
  channelPending(channel: string, replies: number): void;
  channelUp(channel: string, up: boolean): void;
}

/** The runtime, as a channel sees it. */
export interface ChannelHost {
  events: ChannelEvents;
  metrics?: ChannelMetricsSink;
  /**
   * Writes `turns` as conversation messages from `CHANNEL:SENDER`, with their inbox and reply records, their
   * `channel.received` events, the cursor and `alongside`, in one synced batch; then hands them to the heartbeat.
   * Resolves with their reply records (an ack already in those of an agent asleep over its budget), or null when the
   * runtime is stopping (nothing written).
   */
  admit(
    channel: string,
    store: ChannelStore,
    turns: readonly AdmittedTurn[],
    cursor: string,
    alongside: readonly VigilBatchOp[],
  ): Promise<ReplyRecord[] | null>;
  /** Turn `turnId`'s ending, if the conversation has it (looked up after seq `afterSeq`). */
  ending(turnId: string, afterSeq: number): Promise<TurnEnding | undefined>;
  /** Calls `listener` with every turn ending as it is written; returns the function that stops it. */
  onEnding(listener: (ending: TurnEnding) => void): () => void;
  /**
   * Calls `listener` with each piece of a reply as the model writes it (live only, never stored); returns the function
   * that stops it. While a channel listens, the thinker streams every reply.
   */
  onReplyPiece?(listener: (turnId: string, piece: string) => void): () => void;
}
