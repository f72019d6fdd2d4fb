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
  /**
   * The platform could not vouch for the sender (email: the receiving server's `Authentication-Results` fail for the
   * From domain): the id may be forged, so the message is refused whoever it names.
   */
  unauthenticated?: boolean;
  /**
   * The thread a reply goes into when it is not the message itself (Slack: the root's `thread_ts` of a message
   * written in a thread); the reply record keeps it as the message it replies to.
   */
  threadId?: string;
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
  /**
   * False for a platform whose messages cannot be edited (email): the core then sends no placeholder and calls `send`
   * once per message of a reply, with its whole text, when it is known. Default true.
   */
  readonly edits?: boolean;
  /**
   * For a platform that cannot edit: sends `text` as one message. `key` is the same every time the core tries this
   * message (after a crash too), so the platform can tell its own earlier send: resolves with the message's id and
   * `doubled` when an earlier try may have reached the chat as well.
   */
  send?(chatId: string, text: string, replyTo: string | undefined, key: string): Promise<WholeSend>;
  /**
   * Every message of a reply goes where its first one does (Slack: into the thread), not only the first: `place` is
   * given the message replied to for each of them.
   */
  readonly threadsReplies?: boolean;
  /**
   * Whether a part of a reply (Markdown, at most `maxMessageLength` long) is one the platform takes as it renders it;
   * a part that does not fit is split further (Slack counts bytes of its rendered text, not characters).
   */
  fits?(markdown: string): boolean;
  /** Lets go of a connection the adapter holds open (Slack's Socket Mode), when the channel stops. */
  close?(): Promise<void>;
  /** Where the platform pushes its updates over HTTP to the gateway, when it does (Slack's Events API). */
  readonly webhook?: ChannelWebhook;
}

/** An HTTP request a platform made to the gateway, as the adapter reads it. */
export interface WebhookRequest {
  headers: Readonly<Record<string, string | undefined>>;
  body: string;
}

/** What the gateway answers the platform. */
export interface WebhookAnswer {
  status: number;
  body: string;
  contentType?: string;
}

/**
 * A platform's HTTP push: the adapter checks the request is the platform's (its signature), queues what it carries,
 * and answers once it is durable; the gateway only carries bytes (the route needs no gateway token).
 */
export interface ChannelWebhook {
  handle(request: WebhookRequest): Promise<WebhookAnswer>;
}

/** What a platform that cannot edit answers for one message sent whole. */
export interface WholeSend {
  messageId: string;
  /** An earlier try of the same key may have been delivered too (its outcome was unknown). */
  doubled: boolean;
}
