/**
 * What Slack said while the app was away, read back from history: Slack redelivers an event for a few minutes at most,
 * so after a longer outage (or a restart after one) the adapter reads the direct messages (`conversations.list
 * types=im`), the listed channels, and the threads in them, from shortly before the newest ts its durable cursor
 * carries. It returns events (as the Events API would have sent them) oldest first; the core decides who may talk,
 * and the inbox's record of (chat, ts) makes a message read here and also delivered live one turn.
 *
 * Bounds, so a long outage costs a bounded number of calls: per conversation the newest `CATCH_UP_PER_CONVERSATION`
 * messages, per thread as many replies, at most `CATCH_UP_THREADS` threads per conversation, and nothing more than
 * `CATCH_UP_WINDOW_MS` older than the newest message read (Slack's clock: the adapter needs none of its own).
 */
import type { SlackEvent } from './slack-inbound.js';
import { laterTs, tsMicros, tsMinusMs } from './slack-ts.js';

/** The newest messages read back per conversation (and per thread). */
export const CATCH_UP_PER_CONVERSATION = 200;
/** Threads read per conversation (those with the newest replies first). */
export const CATCH_UP_THREADS = 20;
/** Nothing older than this before the newest message read is answered late. */
export const CATCH_UP_WINDOW_MS = 24 * 3_600_000;
/**
 * Read from this long before the cursor's ts: an event Slack was still retrying (an acknowledgement a crash cost) may
 * be older than a message already durable. What is read twice is one turn (the inbox's records).
 */
export const CATCH_UP_OVERLAP_MS = 10 * 60_000;
// Slack's advice for one page of history (at most 999); one call's worth.
const PAGE = 200;

/** A message of `conversations.history` / `conversations.replies`, as Slack answers it. */
export interface HistoryMessage {
  type?: string;
  subtype?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts?: string;
  thread_ts?: string;
  parent_user_id?: string;
  reply_count?: number;
  latest_reply?: string;
}

/** One page of a cursor-paginated Slack answer. */
export interface SlackPage<T> {
  items: T[];
  /** `response_metadata.next_cursor`, when there is more. */
  next?: string;
}

/** The Web API calls a catch-up makes (each throws `ChannelCallError`). */
export interface HistoryReader {
  directChannels(cursor: string | undefined): Promise<SlackPage<string>>;
  history(
    channel: string,
    oldest: string | undefined,
    limit: number,
    cursor: string | undefined,
  ): Promise<SlackPage<HistoryMessage>>;
  replies(channel: string, threadTs: string, cursor: string | undefined): Promise<SlackPage<HistoryMessage>>;
}

/** What a catch-up is asked. */
export interface CatchUpRequest {
  /** The newest ts the durable cursor carries; undefined: nothing seen yet, so only where Slack stands is learnt. */
  since: string | undefined;
  /** The channels the agent takes part in (besides every direct message). */
  groups: readonly string[];
  /** The bot's user id and bot id: its own messages tell which threads it is in. */
  bot: { userId: string; botId?: string };
  /** Threads this process knows the bot is in (answered since it started), for their replies under old roots. */
  knownThreads(channel: string): string[];
  /** A conversation Slack refuses to read (the bot left it): skipped, said why. */
  skipped(channel: string, error: unknown): void;
}

/** What was missed, oldest first, and how far Slack's stream was read. */
export interface CatchUp {
  events: SlackEvent[];
  /** Threads the bot is in, learnt while reading (`channel`, root ts). */
  botThreads: Array<[string, string]>;
  /** The newest ts read anywhere (the mark a cursor may carry once these are durable). */
  newest: string | undefined;
}

/** Reads what was missed since `request.since`; a refusal other than a conversation's own (429, auth) throws. */
export async function readMissed(reader: HistoryReader, request: CatchUpRequest): Promise<CatchUp> {
  const conversations: Array<[string, string]> = request.groups.map((id) => [id, 'channel']);
  for (let cursor: string | undefined, first = true; first || cursor !== undefined; first = false) {
    const page = await reader.directChannels(cursor);
    for (const id of page.items) conversations.push([id, 'im']);
    cursor = page.next;
  }
  const found = new Map<string, SlackEvent>();
  const botThreads: Array<[string, string]> = [];
  let newest = request.since;
  for (const [channel, channelType] of conversations) {
    try {
      const read = await readConversation(reader, request, channel, channelType === 'im');
      newest = laterTs(newest, read.newest);
      for (const message of read.messages) {
        found.set(`${channel}:${message.ts}`, { ...message, type: 'message', channel, channel_type: channelType });
      }
      for (const root of read.botThreads) botThreads.push([channel, root]);
    } catch (err) {
      if ((err as { kind?: string }).kind !== 'refused') throw err;
      request.skipped(channel, err);
    }
  }
  const floor = newest === undefined ? undefined : tsMicros(tsMinusMs(newest, CATCH_UP_WINDOW_MS));
  const events = [...found.values()]
    .filter((event) => floor === undefined || (tsMicros(event.ts!) ?? 0n) >= floor)
    .sort((a, b) => (tsMicros(a.ts!)! < tsMicros(b.ts!)! ? -1 : 1));
  return { events, botThreads, newest };
}

interface ConversationRead {
  messages: HistoryMessage[];
  botThreads: string[];
  newest: string | undefined;
}

async function readConversation(
  reader: HistoryReader,
  request: CatchUpRequest,
  channel: string,
  direct: boolean,
): Promise<ConversationRead> {
  if (request.since === undefined) {
    // Nothing seen yet: only where the conversation stands (its newest ts), so the next outage has a start.
    const page = await reader.history(channel, undefined, 1, undefined);
    return { messages: [], botThreads: [], newest: page.items[0]?.ts };
  }
  const oldest = tsMinusMs(request.since, CATCH_UP_OVERLAP_MS);
  const messages: HistoryMessage[] = [];
  // Newest first, `oldest` exclusive: the first CATCH_UP_PER_CONVERSATION are the newest ones.
  for (let cursor: string | undefined, first = true; first || cursor !== undefined; first = false) {
    const page = await reader.history(channel, oldest, PAGE, cursor);
    messages.push(...page.items.filter((message) => isTs(message.ts)));
    cursor = messages.length >= CATCH_UP_PER_CONVERSATION ? undefined : page.next;
  }
  messages.splice(CATCH_UP_PER_CONVERSATION);
  let newest: string | undefined;
  for (const message of messages) newest = laterTs(newest, message.ts);
  const oldestMicros = tsMicros(oldest)!;
  const active = messages
    .filter((message) => (message.reply_count ?? 0) > 0 && (tsMicros(message.latest_reply ?? '') ?? 0n) > oldestMicros)
    .sort((a, b) => (tsMicros(b.latest_reply!)! > tsMicros(a.latest_reply!)! ? 1 : -1))
    .map((message) => message.ts!);
  const roots = [...new Set([...active, ...request.knownThreads(channel)])].slice(0, CATCH_UP_THREADS);
  const botThreads: string[] = [];
  for (const root of roots) {
    const thread = await readThread(reader, channel, root);
    const byBot = thread.some(
      (message) =>
        message.user === request.bot.userId ||
        (request.bot.botId !== undefined && message.bot_id === request.bot.botId),
    );
    if (byBot) botThreads.push(root);
    const late = thread.filter((message) => message.ts !== root && (tsMicros(message.ts!) ?? 0n) > oldestMicros);
    // In a channel, a reply in a thread the bot is not in matters only when it names the bot (the rest is never a
    // turn); in a direct message every reply is for the bot.
    const wanted = late.filter(
      (message) => direct || byBot || (message.text ?? '').includes(`<@${request.bot.userId}>`),
    );
    messages.push(...wanted.slice(-CATCH_UP_PER_CONVERSATION).map((message) => ({ ...message, thread_ts: root })));
    for (const message of late) newest = laterTs(newest, message.ts);
  }
  return { messages, botThreads, newest };
}

// The whole thread (oldest first, as Slack answers replies), its root included, up to a bound.
async function readThread(reader: HistoryReader, channel: string, root: string): Promise<HistoryMessage[]> {
  const thread: HistoryMessage[] = [];
  for (let cursor: string | undefined, first = true; first || cursor !== undefined; first = false) {
    const page = await reader.replies(channel, root, cursor);
    thread.push(...page.items.filter((message) => isTs(message.ts)));
    cursor = thread.length >= CATCH_UP_PER_CONVERSATION * 5 ? undefined : page.next;
  }
  return thread;
}

function isTs(ts: string | undefined): ts is string {
  return ts !== undefined && tsMicros(ts) !== undefined;
}
