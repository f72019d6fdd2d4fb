/** What bench 18's three parts share: the fake Telegram's bot, the channel entry pointing at it, and a user's message. */
import type { ChannelConfig } from '../src/protocol/channels.schema.js';
import { createFakeTelegram, type FakeTelegram, type TgMessage } from '../test/fixtures/fake-telegram.js';

/** The bot's token (its id is the number before the colon), held in `TOKEN_ENV` as a daemon reads it. */
export const BOT_TOKEN = '7000018:AAH-bench-token-for-the-fake-bot-api-0';
export const TOKEN_ENV = 'TG_BENCH_TOKEN';
/** The channel's name in the config. */
export const CHANNEL = 'tg';

/** The fake's clock: epoch milliseconds at `performance.now()`'s resolution, so its request stamps time a round. */
export const fakeNow = (): number => performance.timeOrigin + performance.now();

/** A fake Telegram Bot API on 127.0.0.1 for the bench's bot. */
export function startFakeTelegram(): Promise<FakeTelegram> {
  return createFakeTelegram({ tokens: [BOT_TOKEN], botUsername: 'vigil_bench_bot', now: fakeNow });
}

/** The channel entry: a Telegram bot on the fake, direct messages from `users` only (no pairing round trips). */
export function channelEntry(fake: FakeTelegram, users: readonly number[]): ChannelConfig {
  return {
    type: 'telegram',
    tokenEnv: TOKEN_ENV,
    apiRoot: fake.url,
    dmPolicy: 'allowlist',
    allowFrom: users.map(String),
    groups: [],
    operators: [],
  };
}

/** User `userId`'s direct message to the bot, queued on the fake as Telegram queues it. */
export function userWrites(fake: FakeTelegram, userId: number, text: string): TgMessage {
  return fake.userSends({
    chat: { id: userId, type: 'private' },
    from: { id: userId, first_name: `User ${userId}`, username: `user${userId}` },
    text,
  });
}
