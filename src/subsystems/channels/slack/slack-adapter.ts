/**
 * Slack through its own SDK's parts: `@slack/web-api` for calls (its automatic retries off, 429s rejected with their
 * `Retry-After` for the core to wait out, so a post is never repeated by a transport that cannot know whether it
 * landed) and `@slack/socket-mode` for events. Envelopes wait in an `EnvelopeQueue` and are acknowledged only when
 * the core receives from a cursor past them, which it does only once their messages are durable. Every message of a
 * reply goes into the thread of the message it answers. The Events API delivers into the same queue (`deliver`).
 * Once connected (and after every new Socket Mode connection) it catches up from history what Slack stopped
 * redelivering while it was away (`slack-catch-up.ts`), from the ts its durable cursor carries, before any live event.
 */
import { SocketModeClient } from '@slack/socket-mode';
import { WebClient } from '@slack/web-api';
import type { VigilLogger } from '../../../shared/logger.js';
import {
  ChannelCallError,
  type ChannelAccount,
  type ChannelAdapter,
  type InboundMessage,
  type InboundUpdate,
} from '../channel-adapter.js';
import { EnvelopeQueue, markOf } from './envelope-queue.js';
import { readMissed } from './slack-catch-up.js';
import { slackFailure } from './slack-errors.js';
import { eventOf, translateSlackEvent, type SlackBot } from './slack-inbound.js';
import { markdownToMrkdwn, mrkdwnBytes, SLACK_UPDATE_TEXT_BYTES } from './slack-mrkdwn.js';
import { SlackEventsWebhook } from './slack-events-webhook.js';
import { historyReader } from './slack-history.js';
import { sdkLogger } from './slack-sdk-logger.js';
import { ThreadMemory } from './thread-memory.js';

/** The characters a reply's part holds before its rendered bytes are measured (Slack's advice for a message). */
export const SLACK_MAX_MESSAGE_LENGTH = 4_000;

/** A Web API call with no answer by then is `unreachable` (for a post: its outcome unknown), never a lane held forever. */
const CALL_TIMEOUT_MS = 30_000;
/** How long a stop waits for Socket Mode's connection to say it closed. */
const CLOSE_WAIT_MS = 2_000;

/** How a Slack channel is reached. */
export interface SlackAdapterOptions {
  botToken: string;
  /** The app-level token (`xapp-…`): Socket Mode. Without it events come only through `deliver` (Events API). */
  appToken?: string;
  /** The signing secret: the Events API through the gateway (`webhook`). */
  signingSecret?: string;
  /** `https://slack.com/api/` or a test's fake. */
  apiUrl: string;
  log: VigilLogger;
  /** The channel ids the agent takes part in: a thread elsewhere is never looked up (its messages are ignored). */
  groups?: readonly string[];
  /** Socket Mode's wait for the server's pings (default Slack's 30 s). */
  serverPingTimeoutMs?: number;
}

/** A Slack app as a channel adapter. */
export class SlackAdapter implements ChannelAdapter {
  readonly maxMessageLength = SLACK_MAX_MESSAGE_LENGTH;
  readonly threadsReplies = true;
  readonly webhook: SlackEventsWebhook | undefined;
  private readonly web: WebClient;
  private readonly queue = new EnvelopeQueue();
  private readonly threads: ThreadMemory;
  private readonly secrets: string[];
  private bot: SlackBot | undefined;
  private socket: SocketModeClient | undefined;
  private socketOpen = false;
  // What Slack sent since the last connection may be lost to its retries: read history before taking live events.
  private behind = true;
  // Envelopes are translated one at a time, so a thread lookup never reorders them.
  private intake: Promise<void> = Promise.resolve();

  constructor(private readonly options: SlackAdapterOptions) {
    this.secrets = [options.botToken, options.appToken ?? '', options.signingSecret ?? ''];
    this.web = new WebClient(options.botToken, {
      slackApiUrl: options.apiUrl,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      timeout: CALL_TIMEOUT_MS,
      logger: sdkLogger(options.log, this.secrets),
    });
    this.threads = new ThreadMemory((channel, ts) => this.botInThread(channel, ts));
    const secret = options.signingSecret;
    this.webhook =
      secret === undefined ? undefined : new SlackEventsWebhook(secret, (payload, ack) => this.deliver(payload, ack));
  }

  async connect(): Promise<ChannelAccount> {
    const me = await this.call('auth.test', () => this.web.auth.test());
    this.bot = {
      userId: String(me.user_id),
      name: String(me.user ?? 'bot'),
      ...(me.bot_id ? { botId: me.bot_id } : {}),
    };
    this.behind = true;
    return { display: `@${this.bot.name}` };
  }

  async receive(cursor: string | undefined, signal: AbortSignal): Promise<InboundUpdate[]> {
    this.queue.confirm(cursor);
    this.queue.resume(cursor);
    const needsSocket = this.options.appToken !== undefined && !this.socketOpen;
    if (needsSocket || this.behind) {
      // Live events wait behind the catch-up, so what was missed comes first (oldest first).
      const release = this.holdIntake();
      try {
        if (needsSocket) {
          await this.openSocket(signal);
          this.behind = true;
        }
        await this.catchUp(cursor);
        this.behind = false;
      } finally {
        release();
      }
      // The connection went while history was read: its loss woke no one, so the next receive opens a new one.
      if (this.options.appToken !== undefined && !this.socketOpen) return [];
    }
    return this.queue.take(cursor, signal);
  }

  async place(chatId: string, text: string, replyTo: string | undefined): Promise<string> {
    const posted = await this.call('chat.postMessage', () =>
      this.web.chat.postMessage({
        channel: chatId,
        text,
        ...(replyTo === undefined ? {} : { thread_ts: replyTo }),
        unfurl_links: false,
        unfurl_media: false,
      }),
    );
    if (replyTo !== undefined) this.threads.joined(chatId, replyTo);
    return String(posted.ts);
  }

  async edit(chatId: string, messageId: string, markdown: string): Promise<void> {
    await this.call('chat.update', () =>
      this.web.chat.update({ channel: chatId, ts: messageId, text: markdownToMrkdwn(markdown) }),
    );
  }

  async notify(chatId: string, text: string): Promise<void> {
    await this.call('chat.postMessage', () => this.web.chat.postMessage({ channel: chatId, text }));
  }

  fits(markdown: string): boolean {
    return mrkdwnBytes(markdown) <= SLACK_UPDATE_TEXT_BYTES;
  }

  /**
   * An Events API payload (or a Socket Mode envelope's): queued, and `ack` called once its message is durable (or at
   * once for what carries no message). Resolves when it is queued.
   */
  deliver(payload: unknown, ack: () => void): Promise<void> {
    const run = this.intake.then(() => this.accept(payload, ack));
    this.intake = run.catch(() => undefined);
    return run;
  }

  /** Closes the Socket Mode connection (envelopes not acknowledged come again to the next one). */
  async close(): Promise<void> {
    const socket = this.socket;
    this.socket = undefined;
    this.socketOpen = false;
    if (socket === undefined) return;
    // A connection that never says it closed is let go after a moment: a stop never waits on Slack.
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS).unref()));
    await Promise.race([socket.disconnect().catch(() => undefined), gaveUp]);
    clearTimeout(timer);
    socket.removeAllListeners();
  }

  private async accept(payload: unknown, ack: () => void): Promise<void> {
    const bot = this.bot;
    const found = eventOf(payload);
    // Before `auth.test` answered, who the bot is is unknown: refused, so Slack sends it again (never taken as nothing).
    if (bot === undefined && found !== undefined) throw new Error('not connected to Slack yet');
    if (bot === undefined || found === undefined) {
      this.queue.push(undefined, ack);
      return;
    }
    // A message passed over is still one Slack's stream has reached: the next catch-up begins after it.
    const ts = found.event.type === 'message' || found.event.type === 'app_mention' ? found.event.ts : undefined;
    const translated = translateSlackEvent(found.event, bot);
    let message: InboundMessage | undefined;
    if (translated.kind === 'message') message = translated.message;
    else if (translated.kind === 'thread') {
      const listed = this.options.groups?.includes(translated.channel) ?? true;
      const inThread = listed && (await this.threads.has(translated.channel, translated.threadTs));
      message = { ...translated.message, repliesToBot: inThread };
    }
    // The bot answers in this thread from now on: later messages there are for it.
    if (message !== undefined && message.chatType === 'group' && (message.mentionsBot || message.repliesToBot)) {
      this.threads.joined(message.chatId, message.threadId ?? message.messageId);
    }
    this.queue.push(message, ack, ts);
  }

  // Reads what was missed since the durable cursor's ts into the queue, all or none.
  private async catchUp(cursor: string | undefined): Promise<void> {
    const bot = this.bot;
    if (bot === undefined) return;
    const since = markOf(cursor);
    const read = await readMissed(
      historyReader(this.web, (method, request) => this.call(method, request)),
      {
        since,
        groups: this.options.groups ?? [],
        bot,
        knownThreads: (channel) => this.threads.inChannel(channel),
        skipped: (channel, err) =>
          this.options.log.warn({ chatId: channel, error: (err as Error).message }, 'slack history not read'),
      },
    );
    for (const [channel, root] of read.botThreads) this.threads.joined(channel, root);
    for (const event of read.events) await this.accept({ type: 'event_callback', event }, () => undefined);
    // How far history was read rides on the next cursor written (no write of its own: a lagging mark rereads a little).
    this.queue.advance(read.newest);
    if (read.events.length > 0) this.options.log.info({ messages: read.events.length }, 'slack caught up from history');
  }

  // Holds envelopes arriving from now on until the returned function is called.
  private holdIntake(): () => void {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    this.intake = this.intake.then(() => held);
    return release;
  }

  private async openSocket(signal: AbortSignal): Promise<void> {
    await this.close();
    const socket = new SocketModeClient({
      appToken: this.options.appToken!,
      autoReconnectEnabled: false,
      logger: sdkLogger(this.options.log, this.secrets),
      ...(this.options.serverPingTimeoutMs === undefined
        ? {}
        : { serverPingTimeout: this.options.serverPingTimeoutMs }),
      clientOptions: {
        slackApiUrl: this.options.apiUrl,
        retryConfig: { retries: 0 },
        rejectRateLimitedCalls: true,
        timeout: CALL_TIMEOUT_MS,
      },
    });
    socket.on('slack_event', (envelope: { ack: () => Promise<void>; body?: unknown }) => {
      // Not queued (not connected yet): left unacknowledged, Slack delivers it again.
      this.deliver(envelope.body, () => void envelope.ack().catch(() => undefined)).catch(() => undefined);
    });
    const lost = () => {
      if (this.socket !== socket) return;
      this.socketOpen = false;
      this.queue.interrupt();
    };
    socket.on('disconnected', lost);
    socket.on('close', lost);
    this.socket = socket;
    try {
      await untilAborted(socket.start(), signal);
    } catch (err) {
      if (this.socket === socket) await this.close();
      if (signal.aborted) throw err;
      const failure = slackFailure('apps.connections.open', err, this.secrets);
      // The app-level token refused is not the bot's: `unauthorized` would have the core learn who the bot is again
      // (auth.test, which works) and call the channel recovered at every try. It stays failing until the socket opens.
      throw failure.kind === 'unauthorized' ? new ChannelCallError('refused', failure.message) : failure;
    }
    this.socketOpen = this.socket === socket;
  }

  // Whether the bot wrote in a thread: asked of Slack once per thread the adapter has not seen it in.
  private async botInThread(channel: string, threadTs: string): Promise<boolean> {
    const bot = this.bot;
    if (bot === undefined) return false;
    try {
      const replies = await this.web.conversations.replies({ channel, ts: threadTs, limit: 200 });
      return (replies.messages ?? []).some(
        (each) => each.user === bot.userId || (bot.botId !== undefined && each.bot_id === bot.botId),
      );
    } catch (err) {
      this.options.log.warn(
        { error: slackFailure('conversations.replies', err, this.secrets).message },
        'slack thread not looked up',
      );
      return false;
    }
  }

  private async call<T>(method: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (err) {
      throw slackFailure(method, err, this.secrets);
    }
  }
}

// `promise`, or the signal's reason once it aborts (the promise is left to settle on its own).
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
