/**
 * What a Slack event is to the channel core (pure): a direct message (`im`), a channel message that mentions the bot
 * (`app_mention`, or a `message` naming it) or is written in a thread the bot is in, or nothing. Slack sends one
 * mention as both `message` and `app_mention`: both translate to the same (channel, ts), which the inbox admits once.
 * The bot's own messages, edits, deletions and joins are nothing.
 */
import type { InboundMessage } from '../channel-adapter.js';

/** The fields of an Events API event the adapter reads. */
export interface SlackEvent {
  type?: string;
  subtype?: string;
  channel?: string;
  channel_type?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts?: string;
  thread_ts?: string;
  parent_user_id?: string;
  user_profile?: { display_name?: string; real_name?: string };
}

/** Who the bot is, once `auth.test` answered. */
export interface SlackBot {
  userId: string;
  botId?: string;
  name: string;
}

// Message subtypes that are a person writing; every other one (edits, joins, bots) is not a message for the agent.
const WRITTEN = new Set([undefined, 'file_share', 'thread_broadcast']);

/** A channel message needs a thread lookup before it is known (pure part: the fields decide everything else). */
export type SlackTranslation =
  | { kind: 'message'; message: InboundMessage }
  | { kind: 'thread'; channel: string; threadTs: string; message: InboundMessage }
  | { kind: 'none' };

/** Translates `event`; a channel message in a thread not started by the bot asks for a lookup (`kind: 'thread'`). */
export function translateSlackEvent(event: SlackEvent, bot: SlackBot): SlackTranslation {
  if (event.type !== 'message' && event.type !== 'app_mention') return { kind: 'none' };
  if (!WRITTEN.has(event.subtype)) return { kind: 'none' };
  const { channel, user, ts } = event;
  if (channel === undefined || user === undefined || ts === undefined) return { kind: 'none' };
  if (user === bot.userId || (event.bot_id !== undefined && event.bot_id === bot.botId)) return { kind: 'none' };
  const raw = event.text ?? '';
  const mentionTag = `<@${bot.userId}>`;
  const direct = event.type === 'message' && event.channel_type === 'im';
  const name = event.user_profile?.display_name || event.user_profile?.real_name;
  const inThread = event.thread_ts !== undefined && event.thread_ts !== ts;
  const message: InboundMessage = {
    chatId: channel,
    chatType: direct ? 'direct' : 'group',
    messageId: ts,
    senderId: user,
    ...(name === undefined || name === '' ? {} : { senderName: name }),
    text: raw.split(mentionTag).join(`@${bot.name}`).trim(),
    mentionsBot: event.type === 'app_mention' || raw.includes(mentionTag),
    repliesToBot: inThread && event.parent_user_id === bot.userId,
    at: Math.round(Number(ts) * 1000),
    threadId: event.thread_ts ?? ts,
  };
  if (direct || message.mentionsBot || message.repliesToBot || !inThread) return { kind: 'message', message };
  return { kind: 'thread', channel, threadTs: event.thread_ts!, message };
}

/** The event inside a Socket Mode envelope's or an Events API request's payload, if it is an event callback. */
export function eventOf(payload: unknown): { event: SlackEvent; eventId?: string } | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const body = payload as { type?: unknown; event?: unknown; event_id?: unknown };
  if (body.type !== 'event_callback' || typeof body.event !== 'object' || body.event === null) return undefined;
  return {
    event: body.event,
    ...(typeof body.event_id === 'string' ? { eventId: body.event_id } : {}),
  };
}
