/** Ends user turns durably: the ending (a reply, or an unanswered entry) and the event announcing it go to disk in one sync batch. */
import type { EventBus } from '../../events/event-bus.js';
import type { NewConversationMessage, TurnEndingCode } from '../../protocol/conversation.schema.js';
import type { VigilEvent } from '../../protocol/events.schema.js';
import type { EventRecorder } from '../journal/event-journal.js';
import type { VigilBatchOp } from '../store/vigil-db.js';
import type { ConversationLog } from './conversation-log.js';

/**
 * Writes a turn's ending and its `agent.reply` / `agent.unanswered` event atomically, then publishes the event. After
 * `kill -9` either both exist (the turn is ended, and a resuming subscriber finds the event in the journal) or
 * neither (the turn is still pending and is thought about again): a turn never ends twice and never ends silently.
 */
export class TurnCloser {
  constructor(
    private readonly conversation: ConversationLog,
    private readonly journal: EventRecorder,
    private readonly bus: EventBus,
  ) {}

  /** The agent's answer to `turnId` (or an unprompted message under an autonomous turn id). */
  async reply(turnId: string, text: string, at: number): Promise<void> {
    const event = this.bus.stamp('agent.reply', { turnId, text });
    await this.written(
      event,
      this.conversation.append({ turnId, role: 'assistant', text, at }, [this.journal.entryOp(event)]),
    );
  }

  /** Ends `turnId` without an answer: `code` for machines, `reason` for people. */
  async unanswered(turnId: string, code: TurnEndingCode, reason: string, at: number): Promise<void> {
    const event = this.bus.stamp('agent.unanswered', { turnId, code, reason });
    const entry = { turnId, role: 'assistant' as const, text: reason, at, unanswered: { code, reason } };
    await this.written(event, this.conversation.append(entry, [this.journal.entryOp(event)]));
  }

  // Publishes the stamped event once its write lands; a failed write withdraws it, so it holds no later event back.
  private async written(event: VigilEvent, write: Promise<unknown>): Promise<void> {
    try {
      await write;
    } catch (err) {
      this.bus.withdraw(event);
      throw err;
    }
    this.bus.publish(event);
  }

  /**
   * Ends each of `turnIds` without an answer inside another's batch (a restore's, written with its checkpoint): the
   * log entries go into that batch, the events are stamped when it is about to be written and published once it is.
   */
  unansweredInBatch(turnIds: readonly string[], code: TurnEndingCode, reason: string, at: number): BatchedEndings {
    const messages = turnIds.map((turnId): NewConversationMessage => ({
      turnId,
      role: 'assistant',
      text: reason,
      at,
      unanswered: { code, reason },
    }));
    let events: VigilEvent[] = [];
    return {
      messages,
      journalOps: () => {
        events = turnIds.map((turnId) => this.bus.stamp('agent.unanswered', { turnId, code, reason }));
        return events.map((event) => this.journal.entryOp(event));
      },
      publish: () => {
        for (const event of events) this.bus.publish(event);
      },
      withdraw: () => this.bus.withdraw(...events),
    };
  }
}

/** Turn endings another batch writes: its log entries, its journal entries, and the events to publish after it. */
export interface BatchedEndings {
  /** The log entries, for the conversation part of the batch. */
  readonly messages: readonly NewConversationMessage[];
  /** Stamps the events (call just before the write, so they go out in seq order) and returns their journal entries. */
  journalOps(): VigilBatchOp[];
  /** Publishes the stamped events; call once the batch is durable. */
  publish(): void;
  /** Withdraws the stamped events (the batch failed), so they hold no later event back. */
  withdraw(): void;
}
