/**
 * Telegram through grammY's `Api`: long polling with `getUpdates` from the core's durable offset, placeholders sent as
 * replies, edits rendered as Telegram HTML (plain text when Telegram refuses the markup, so a reply is never lost),
 * 429s waited out by grammY's auto-retry plugin. The bot token is in every URL Telegram serves, so no error leaves
 * here without it redacted.
 */
import { autoRetry } from '@grammyjs/auto-retry';
import { Api, GrammyError, HttpError } from 'grammy';
import type { Message, Update } from 'grammy/types';
import {
  ChannelCallError,
  type ChannelAccount,
  type ChannelAdapter,
  type InboundMessage,
  type InboundUpdate,
} from '../channel-adapter.js';
import { markdownToTelegramHtml } from './telegram-text.js';

/** grammY's Node build types its signals after the abort-controller package; at run time it takes Node's own. */
type GrammySignal = Parameters<Api['getMe']>[0];
const grammySignal = (signal: AbortSignal): GrammySignal => signal as unknown as GrammySignal;

/** Telegram's limit on a message's text, after entity parsing. */
export const TELEGRAM_MAX_MESSAGE_LENGTH = 4096;

/** How a Telegram channel is reached. */
export interface TelegramAdapterOptions {
  token: string;
  /** `https://api.telegram.org`, a self-hosted Bot API server, or a test's fake (no trailing slash). */
  apiRoot: string;
  /** Seconds one `getUpdates` waits for an update (default 30). */
  pollTimeoutS?: number;
  /** Longest `retry_after` auto-retry waits out in place; a longer one is the core's to wait (default 60). */
  maxRetryAfterS?: number;
}

/** A Telegram bot as a channel adapter. */
export class TelegramAdapter implements ChannelAdapter {
  readonly maxMessageLength = TELEGRAM_MAX_MESSAGE_LENGTH;
  private readonly api: Api;
  private readonly pollTimeoutS: number;
  private botId: number | undefined;
  private username: string | undefined;

  constructor(private readonly options: TelegramAdapterOptions) {
    this.api = new Api(options.token, { apiRoot: options.apiRoot });
    // Only 429s are retried in place: after a network error or a 5xx a send may have gone out, and whether to try
    // again is the core's decision (a placeholder's outcome is then unknown), never a transport's.
    this.api.config.use(
      autoRetry({
        maxRetryAttempts: 3,
        maxDelaySeconds: options.maxRetryAfterS ?? 60,
        rethrowHttpErrors: true,
        rethrowInternalServerErrors: true,
      }),
    );
    this.pollTimeoutS = options.pollTimeoutS ?? 30;
  }

  async connect(signal: AbortSignal): Promise<ChannelAccount> {
    const me = await this.call(() => this.api.getMe(grammySignal(signal)));
    this.botId = me.id;
    this.username = me.username;
    return { display: `@${me.username}` };
  }

  async receive(cursor: string | undefined, signal: AbortSignal): Promise<InboundUpdate[]> {
    const updates = await this.call(() =>
      this.api.getUpdates(
        {
          ...(cursor === undefined ? {} : { offset: Number(cursor) }),
          timeout: this.pollTimeoutS,
          allowed_updates: ['message'],
        },
        grammySignal(signal),
      ),
    );
    return updates.map((update) => this.translate(update));
  }

  async place(chatId: string, text: string, replyTo: string | undefined): Promise<string> {
    const message = await this.call(() =>
      this.api.sendMessage(chatId, text, {
        ...(replyTo === undefined
          ? {}
          : { reply_parameters: { message_id: Number(replyTo), allow_sending_without_reply: true } }),
        link_preview_options: { is_disabled: true },
      }),
    );
    return String(message.message_id);
  }

  async edit(chatId: string, messageId: string, markdown: string): Promise<void> {
    try {
      await this.editText(chatId, messageId, markdownToTelegramHtml(markdown), 'HTML');
    } catch (err) {
      // Telegram refused the markup: the same words without it, rather than no reply.
      if (!(err instanceof GrammyError) || !/can't parse entities/i.test(err.description)) throw this.failure(err);
      await this.call(() => this.editText(chatId, messageId, markdown, undefined));
    }
  }

  async notify(chatId: string, text: string): Promise<void> {
    await this.call(() => this.api.sendMessage(chatId, text));
  }

  private async editText(chatId: string, messageId: string, text: string, mode: 'HTML' | undefined): Promise<void> {
    try {
      await this.api.editMessageText(chatId, Number(messageId), text, {
        ...(mode === undefined ? {} : { parse_mode: mode }),
        link_preview_options: { is_disabled: true },
      });
    } catch (err) {
      // The message already shows this text: an edit repeated after a restart.
      if (err instanceof GrammyError && /message is not modified/i.test(err.description)) return;
      throw err;
    }
  }

  private translate(update: Update): InboundUpdate {
    const cursorAfter = String(update.update_id + 1);
    const message = update.message;
    const text = message?.text ?? message?.caption;
    if (message === undefined || text === undefined || message.from === undefined) return { cursorAfter };
    return { cursorAfter, message: this.inbound(message, text) };
  }

  private inbound(message: Message, text: string): InboundMessage {
    const from = message.from!;
    const chat = message.chat;
    const mention = this.username === undefined ? undefined : `@${this.username.toLowerCase()}`;
    return {
      chatId: String(chat.id),
      chatType: chat.type === 'private' ? 'direct' : 'group',
      ...('title' in chat && chat.title !== undefined ? { chatTitle: chat.title } : {}),
      messageId: String(message.message_id),
      senderId: String(from.id),
      senderName: from.username === undefined ? from.first_name : `@${from.username}`,
      text,
      mentionsBot: mention !== undefined && text.toLowerCase().includes(mention),
      repliesToBot: this.botId !== undefined && message.reply_to_message?.from?.id === this.botId,
      at: message.date * 1000,
    };
  }

  private async call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (err) {
      throw this.failure(err);
    }
  }

  // Telegram's answer, or the network's, as the core needs it; the token never in the message.
  private failure(err: unknown): ChannelCallError {
    if (err instanceof ChannelCallError) return err;
    if (err instanceof GrammyError) {
      const said = this.redact(`${err.method}: ${err.error_code} ${err.description}`);
      if (err.error_code === 401 || err.error_code === 404) return new ChannelCallError('unauthorized', said);
      if (err.error_code === 409) return new ChannelCallError('conflict', said);
      if (err.error_code === 429) {
        return new ChannelCallError('rate_limited', said, (err.parameters.retry_after ?? 1) * 1000);
      }
      if (err.error_code >= 500) return new ChannelCallError('unreachable', said);
      if (/message to edit not found|message can't be edited/i.test(err.description)) {
        return new ChannelCallError('gone', said);
      }
      return new ChannelCallError('refused', said);
    }
    if (err instanceof HttpError) {
      const cause = err.error instanceof Error ? `: ${err.error.message}` : '';
      return new ChannelCallError('unreachable', this.redact(`${err.message}${cause}`));
    }
    const message = err instanceof Error ? err.message : String(err);
    return new ChannelCallError('unreachable', this.redact(message));
  }

  private redact(text: string): string {
    return text.split(this.options.token).join('<token>');
  }
}
