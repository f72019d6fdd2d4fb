/** The payload schemas of the chat channels' events (CONTRACT §18), part of `EVENT_PAYLOADS`. */
import { z } from 'zod';

/** Payload schemas of the `channel.*` events, by type. */
export const CHANNEL_EVENT_PAYLOADS = {
  /** Channel `channel` reached its platform as `account` (Telegram: the bot's `@username`); at every (re)connect. */
  'channel.connected': z.object({ channel: z.string(), account: z.string() }),
  /** Channel `channel` cannot reach its platform (refused token, no answer): emitted once; retried at most a minute apart. */
  'channel.failing': z.object({ channel: z.string(), error: z.string() }),
  /** Channel `channel` works again after `channel.failing`. */
  'channel.recovered': z.object({ channel: z.string() }),
  /** A platform message was admitted as turn `turnId` (written with the turn, before the platform was told). */
  'channel.received': z.object({
    channel: z.string(),
    chatId: z.string(),
    messageId: z.string(),
    senderId: z.string(),
    turnId: z.string(),
  }),
  /** Turn `turnId`'s reply is in its chat, as messages `messageIds` (written with the reply's end). */
  'channel.replied': z.object({
    channel: z.string(),
    chatId: z.string(),
    turnId: z.string(),
    messageIds: z.array(z.string()),
  }),
  /** The platform refused turn `turnId`'s reply for good (a 4xx): it is not retried. */
  'channel.send_failed': z.object({ channel: z.string(), chatId: z.string(), turnId: z.string(), error: z.string() }),
  /** A message made no turn: its sender may not talk (`reason`); at most once per sender per hour. */
  'channel.refused': z.object({
    channel: z.string(),
    chatId: z.string(),
    senderId: z.string(),
    reason: z.enum(['pairing', 'not_allowed', 'direct_messages_disabled', 'unauthenticated']),
  }),
  /** An operator approved `senderId`'s pairing code: the sender may talk from now on. */
  'channel.paired': z.object({ channel: z.string(), senderId: z.string() }),
} as const;
