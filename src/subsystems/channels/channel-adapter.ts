/**
 * The one small interface a chat platform implements for the channel core: connect, receive from a cursor, place a
 * message, edit it. An adapter only translates (grammY does Telegram's work); it never decides who may talk, what to
 * store or whether to send again: the core does, the same for every platform.
 */

/** A platform message, translated. Ids are strings whatever the platform uses. */
export interface InboundMessage {
  chatId: string;
  /** `direct`: a one-to-one chat with the bot; `group`: anything with more people in it. */
  chatType: 'direct' | 'group';
  chatTitle?: string;
  messageId: string;
  senderId: string;
  /** How the sender calls themselves (Telegram: first name, or @username), for operators' lists. */
  senderName?: string;
  text: string;
  /** The message names the bot (`@username`). */
  mentionsBot: boolean;
  /** The message replies to one of the bot's messages. */
  repliesToBot: boolean;
  /** Epoch ms, as the platform dated it. */
  at: number;
}

/** One item of the platform's update stream: a message for the inbox, or something to pass over; then the cursor. */
export interface InboundUpdate {
  message?: InboundMessage;
  /** Where the stream stands once this update is durable (Telegram: its update_id + 1). */
  cursorAfter: string;
}

/** Who the bot is on the platform, once connected. */
export interface ChannelAccount {
  /** As people see it (Telegram: `@username`). */
  display: string;
}

/**
 * Why a platform call failed, as the core needs to know it. `refused`: the platform answered no for good (a 4xx other
 * than 429); `gone`: the message to edit no longer exists or can no longer be edited; `rate_limited`: wait
 * `retryAfterMs`; `unauthorized`: the token is refused; `unreachable`: no answer (for a send, its outcome is unknown);
 * `conflict`: another process polls the same bot.
 */
export type ChannelFailureKind = 'refused' | 'gone' | 'rate_limited' | 'unauthorized' | 'unreachable' | 'conflict';

/** A platform call's failure, its description free of secrets. */
export class ChannelCallError extends Error {
  constructor(
    readonly kind: ChannelFailureKind,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ChannelCallError';
  }
}

/** A chat platform as the channel core drives it. */
export interface ChannelAdapter {
  /** The most characters one message may hold. */
  readonly maxMessageLength: number;
  /** Checks the credentials and learns who the bot is; throws `ChannelCallError`. */
  connect(signal: AbortSignal): Promise<ChannelAccount>;
  /**
   * The updates after `cursor` (undefined: wherever the platform stands), waiting for some up to its long-poll time.
   * Receiving from a cursor confirms every update before it to the platform: pass one only once they are durable.
   */
  receive(cursor: string | undefined, signal: AbortSignal): Promise<InboundUpdate[]>;
  /** Sends a placeholder into `chatId` (replying to `replyTo` when given) and answers its message id. */
  place(chatId: string, text: string, replyTo: string | undefined): Promise<string>;
  /** Makes message `messageId` show `markdown` (rendered as the platform takes it); the same text again is no error. */
  edit(chatId: string, messageId: string, markdown: string): Promise<void>;
  /** Sends a one-off notice (a pairing code) with no reply expected; at most once, never retried. */
  notify(chatId: string, text: string): Promise<void>;
}
