/**
 * What the simulated chat platform keeps, as the outside world of a seed's channel: every message each chat ever
 * showed (people's and the bot's, with a bot message's edits), the update queue with its integer offsets, and what
 * became of each placeholder's answer. It outlives every runtime crash; the checker reads it at the end.
 */
import type { InboundMessage, InboundUpdate } from '../../src/subsystems/channels/channel-adapter.js';
import type { SimWorldClock } from './sim-clock.js';

/** A person's or the bot's message in a chat. */
export interface SimChatMessage {
  chatId: string;
  messageId: string;
  chatType: 'direct' | 'group';
  /** The sender's id, or `bot`. */
  from: string;
  /** `notice`: a pairing reply (`notify`); `reply`: a placeholder the bot placed (then edited). */
  kind: 'person' | 'reply' | 'notice';
  /** Every text it showed, oldest first: a bot message's edits follow its first text. */
  texts: string[];
  at: number;
  replyTo?: string;
  mentionsBot: boolean;
  repliesToBot: boolean;
  deletedAt?: number;
  /** A placed message: the incarnation that placed it, and what became of the answer carrying its id. */
  placedBy?: number;
  /**
   * `delivered`: the id reached a live runtime; `lost`: the answer was lost on purpose; `cut`: the runtime died
   * before it arrived; `unrecorded`: it arrived, and the runtime died before writing it (found at its burial);
   * `unwritten`: it arrived, and the write recording it failed (a disk fault; found at the end).
   */
  answer?: 'delivered' | 'lost' | 'cut' | 'unrecorded' | 'unwritten';
  /** An edit of it was refused for good (the person had blocked the bot). */
  editRefused?: boolean;
}

/** One update of the queue: a message (by chat and id), or a service update that carries none. */
export interface SimUpdate {
  updateId: number;
  chatId?: string;
  messageId?: string;
  at: number;
  /** When a receive first passed an offset beyond it. */
  confirmedAt?: number;
  /** Receives that answered it. */
  deliveries: number;
}

/** A broken promise the platform saw as it happened. */
export interface SimChatViolation {
  invariant: string;
  detail: string;
}

/** The whole platform's record of a run, for the checker. */
export interface SimChatWorld {
  chats: Record<string, SimChatMessage[]>;
  updates: SimUpdate[];
  violations: SimChatViolation[];
  /** Calls by method and outcome (`place ok`, `edit rate_limited`…). */
  calls: Record<string, number>;
}

/** What a new message is made of. */
export interface NewChatMessage {
  chatId: string;
  from: string;
  kind: SimChatMessage['kind'];
  text: string;
  replyTo?: string;
  mentionsBot?: boolean;
  repliesToBot?: boolean;
}

/** The chats and the update queue. */
export class SimChats {
  readonly chats = new Map<string, SimChatMessage[]>();
  readonly updates: SimUpdate[] = [];

  constructor(private readonly world: SimWorldClock) {}

  /** Every message of every chat. */
  all(): SimChatMessage[] {
    return [...this.chats.values()].flat();
  }

  /** A new message in its chat, numbered after the chat's last (people's and the bot's share one sequence). */
  add(fields: NewChatMessage): SimChatMessage {
    const chat = this.chats.get(fields.chatId) ?? [];
    this.chats.set(fields.chatId, chat);
    const { text, ...rest } = fields;
    const message: SimChatMessage = {
      mentionsBot: false,
      repliesToBot: false,
      ...rest,
      chatType: fields.chatId.startsWith('-') ? 'group' : 'direct',
      messageId: String(chat.length + 1),
      texts: [text],
      at: this.world.now(),
    };
    chat.push(message);
    return message;
  }

  /** A new update carrying `message` (undefined: a service update). */
  enqueue(message: SimChatMessage | undefined): void {
    this.updates.push({
      updateId: this.updates.length + 1,
      ...(message === undefined ? {} : { chatId: message.chatId, messageId: message.messageId }),
      at: this.world.now(),
      deliveries: 0,
    });
  }

  /** Message `messageId` of chat `chatId`. */
  find(chatId: string, messageId: string | undefined): SimChatMessage | undefined {
    return this.chats.get(chatId)?.find((m) => m.messageId === messageId);
  }

  /** The message an update carries. */
  messageOf(update: SimUpdate): SimChatMessage | undefined {
    return update.chatId === undefined ? undefined : this.find(update.chatId, update.messageId);
  }

  /** An update as the adapter hands it to the runtime (Telegram: the next offset is its update_id + 1). */
  translate(update: SimUpdate): InboundUpdate {
    const cursorAfter = String(update.updateId + 1);
    const message = this.messageOf(update);
    if (message === undefined) return { cursorAfter };
    const inbound: InboundMessage = {
      chatId: message.chatId,
      chatType: message.chatType,
      ...(message.chatType === 'group' ? { chatTitle: `Group ${message.chatId}` } : {}),
      messageId: message.messageId,
      senderId: message.from,
      senderName: `Person ${message.from}`,
      text: message.texts[0]!,
      mentionsBot: message.mentionsBot,
      repliesToBot: message.repliesToBot,
      at: message.at,
    };
    return { cursorAfter, message: inbound };
  }

  /**
   * After incarnation `incarnation` died and its last write landed: each placeholder whose id reached it and that it
   * never edited had its answer cut by the crash when no reply record on disk (`records`) holds its id.
   */
  markUnrecorded(incarnation: number, records: ReadonlyMap<string, unknown>): void {
    const known = new Set<string>();
    for (const [key, value] of records) {
      if (!key.startsWith('r!')) continue;
      const reply = value as { chatId: string; slots: { messageId?: string }[] };
      for (const slot of reply.slots) if (slot.messageId !== undefined) known.add(`${reply.chatId}!${slot.messageId}`);
    }
    for (const message of this.unedited())
      if (message.placedBy === incarnation && !known.has(`${message.chatId}!${message.messageId}`))
        message.answer = 'unrecorded';
  }

  /** At the end: each placeholder never edited whose id was in a reply record whose write failed (`failed`). */
  markUnwritten(failed: ReadonlySet<string>): void {
    for (const message of this.unedited())
      if (failed.has(`${message.chatId}!${message.messageId}`)) message.answer = 'unwritten';
  }

  /** Placeholders whose id reached a runtime, never edited. */
  unedited(): SimChatMessage[] {
    return this.all().filter((m) => m.answer === 'delivered' && m.texts.length === 1);
  }
}
