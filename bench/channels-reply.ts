/**
 * Bench 18 (a): a Telegram message to its reply in the chat, against `agent.send` to `agent.reply` over the WebSocket,
 * both to one real `vigil run` (child process, offline thinker, 30 s beats, a Telegram channel on the fake Bot API in
 * the bench's process), in alternation. The Telegram side is timed from `userSends` on the fake to the bot's first
 * message in the chat (the "…" placeholder replying to it, stored by the fake) and to the reply's text (the edit).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connect, type VigilClient } from '../src/client/vigil-client.js';
import type { FakeTelegram } from '../test/fixtures/fake-telegram.js';
import { startDaemon, type DaemonProcess } from '../test/e2e/daemon-process.js';
import { max, median, percentile, withTempDir } from './bench-utils.js';
import { ratioCheck, ratioInfo, sanity, type Check, type Detail, type Sanity } from './report.js';
import { BOT_TOKEN, CHANNEL, channelEntry, fakeNow, startFakeTelegram, TOKEN_ENV, userWrites } from './telegram-rig.js';

/** How many of each, alternating. */
export interface ReplyOptions {
  rounds: number;
  warmup: number;
}

const TOKEN = 'bench-channels-token-0123456789';
const BEAT_MS = 30_000;
/**
 * Round i's message comes from user FIRST_USER + i in a chat of its own: Vigil spaces edits into one chat a second
 * apart (Telegram's limit), so rounds in one chat would time that spacing, not the reply.
 */
const FIRST_USER = 810_001;
/** A turn's reply is a woken think; anything near the beat would be a lost wake-up, not a latency. */
const GIVE_UP_MS = BEAT_MS / 2;

/** Resolves with `promise`, or rejects saying `what` once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * The daemon's event feed, awaited by key: `agent.reply:<turnId>` (also reached by agent.unanswered, whose type is the
 * value), `channel.replied:<turnId>`, and `channel.received:<chatId>!<messageId>` (whose value is the turn's id).
 */
function followFeed(client: VigilClient) {
  const seen = new Map<string, string>();
  const waiters = new Map<string, () => void>();
  const note = (key: string, value: string) => {
    seen.set(key, value);
    waiters.get(key)?.();
  };
  const feed = client
    .subscribe(['agent.reply', 'agent.unanswered', 'channel.received', 'channel.replied'])
    .subscribe((event) => {
      if (event.type === 'agent.reply' || event.type === 'agent.unanswered') {
        note(`agent.reply:${event.turnId}`, event.type);
      } else if (event.type === 'channel.replied') note(`channel.replied:${event.turnId}`, event.type);
      else if (event.type === 'channel.received') {
        note(`channel.received:${event.chatId}!${event.messageId}`, event.turnId);
      }
    });
  return {
    /** The value noted under `key`, once it is. */
    async wait(key: string): Promise<string> {
      if (!seen.has(key)) {
        await within(new Promise<void>((resolve) => waiters.set(key, resolve)), GIVE_UP_MS, key);
        waiters.delete(key);
      }
      return seen.get(key)!;
    },
    stop: () => feed.unsubscribe(),
  };
}

/** What the alternating rounds measured, ms. */
interface Rounds {
  wsReplyMs: number[];
  tgFirstMs: number[];
  tgTextMs: number[];
  wsUnanswered: number;
  asked: Array<{ chatId: number; messageId: number }>;
}

async function measure(daemon: DaemonProcess, fake: FakeTelegram, options: ReplyOptions): Promise<Rounds> {
  const listening = await daemon.waitFor((l) => l.msg === 'gateway listening', 60_000, 'gateway listening');
  const client = await connect({ url: String(listening.url), token: TOKEN, reconnect: false });
  const feed = followFeed(client);
  const rounds: Rounds = { wsReplyMs: [], tgFirstMs: [], tgTextMs: [], wsUnanswered: 0, asked: [] };
  try {
    // The subscription is live once its answer came back; a round trip on the same connection orders after it.
    await client.heartbeat.status();
    const viaWs = async (text: string): Promise<number> => {
      const sentAt = performance.now();
      const { turnId } = await client.agent.send({ text, from: 'bench' });
      if ((await feed.wait(`agent.reply:${turnId}`)) !== 'agent.reply') rounds.wsUnanswered += 1;
      return performance.now() - sentAt;
    };
    const viaTelegram = async (
      user: number,
      text: string,
    ): Promise<{ firstMs: number; textMs: number; messageId: number }> => {
      // Every round starts as a message to an idle channel does: its long poll held by the fake.
      await within(fake.waitForHeldPoll(), GIVE_UP_MS, 'the long poll');
      const from = fake.requests.length;
      const sentAt = fakeNow();
      const message = userWrites(fake, user, text);
      // The round is over once the reply's last step (`written`, with channel.replied) is stored.
      const turnId = await feed.wait(`channel.received:${user}!${message.message_id}`);
      await feed.wait(`channel.replied:${turnId}`);
      // The fake stamps each request as it takes it, in the turn of its loop that stores the message or the edit.
      const served = (method: string) =>
        fake.requests
          .slice(from)
          .filter((r) => r.method === method && String(r.chatId) === String(user) && r.status === 200);
      const placed = served('sendMessage')[0];
      const [shown] = fake.botMessages(user);
      // The edit that made the message show its final text (a streaming reply's earlier edits showed a part of it).
      const final = shown?.edits.findIndex((version) => version.text === shown.text) ?? -1;
      const edited = served('editMessageText')[final];
      if (placed === undefined || edited === undefined) throw new Error(`chat ${user}: no placeholder or no edit`);
      return { firstMs: placed.at - sentAt, textMs: edited.at - sentAt, messageId: message.message_id };
    };
    for (let i = 0; i < options.warmup + options.rounds; i += 1) {
      const text = `Bench ${i < options.warmup ? 'warmup' : 'measure'} ${i}: how are you?`;
      const user = FIRST_USER + i;
      // The order swaps every round, so neither side always follows the other's leftover work.
      let tg = i % 2 === 0 ? await viaTelegram(user, text) : undefined;
      const ws = await viaWs(text);
      tg ??= await viaTelegram(user, text);
      rounds.asked.push({ chatId: user, messageId: tg.messageId });
      if (i < options.warmup) continue;
      rounds.wsReplyMs.push(ws);
      rounds.tgFirstMs.push(tg.firstMs);
      rounds.tgTextMs.push(tg.textMs);
    }
  } finally {
    feed.stop();
    await client.close();
  }
  return rounds;
}

/** Runs part (a). */
export async function replyBench(
  options: ReplyOptions,
): Promise<{ checks: Check[]; details: Detail[]; sanity: Sanity[] }> {
  return withTempDir('channels-reply', async (root) => {
    const fake = await startFakeTelegram();
    const configPath = join(root, 'channels.json');
    await mkdir(join(root, 'data'));
    const users = Array.from({ length: options.warmup + options.rounds }, (_, i) => FIRST_USER + i);
    await writeFile(configPath, JSON.stringify({ channels: { [CHANNEL]: channelEntry(fake, users) } }));
    const daemon = startDaemon(['run', '--data-dir', join(root, 'data'), '--port', '0', '--thinker', 'offline'], {
      VIGIL_TOKEN: TOKEN,
      VIGIL_BEAT_MS: String(BEAT_MS),
      VIGIL_CHANNELS_CONFIG: configPath,
      [TOKEN_ENV]: BOT_TOKEN,
    });
    try {
      const rounds = await measure(daemon, fake, options);
      daemon.kill('SIGTERM');
      const exit = await daemon.exited;
      const bot = users.flatMap((user) => fake.botMessages(user).map((m) => ({ ...m, chatId: user })));
      const answered = rounds.asked.filter(({ chatId, messageId }) => {
        const replies = bot.filter((m) => m.chatId === chatId && m.replyTo === messageId);
        return replies.length === 1 && replies[0]!.text !== '…' && replies[0]!.edits.length >= 1;
      });
      const calls = fake.requests.filter((r) => r.method === 'sendMessage' || r.method === 'editMessageText');
      const refused = calls.filter((r) => r.status !== 200).length;
      const ms = (value: number, what: string) => ({ value, unit: 'ms', what });
      const [first, text, ws] = [median(rounds.tgFirstMs), median(rounds.tgTextMs), median(rounds.wsReplyMs)];
      return {
        checks: [
          ratioCheck(
            'channels.first-reply',
            `Telegram message → the bot's first message in the chat / agent.send → agent.reply over the WebSocket (medians of ${options.rounds}, alternating)`,
            ms(first, 'Telegram, first bot message'),
            ms(ws, 'WebSocket, agent.reply'),
            '<=',
            1.5,
          ),
          ratioInfo(
            'channels.reply-text',
            "Telegram message → the reply's text in the chat (the placeholder edited) / agent.send → agent.reply",
            ms(text, 'Telegram, reply text visible'),
            ms(ws, 'WebSocket, agent.reply'),
          ),
        ],
        details: [
          { label: "Telegram → the bot's first message (placeholder) p50", value: first, unit: 'ms' },
          { label: "Telegram → the bot's first message p99", value: percentile(rounds.tgFirstMs, 99), unit: 'ms' },
          { label: "Telegram → the reply's text visible (edit) p50", value: text, unit: 'ms' },
          { label: "Telegram → the reply's text visible p99", value: percentile(rounds.tgTextMs, 99), unit: 'ms' },
          { label: 'agent.send → agent.reply over the WebSocket p50', value: ws, unit: 'ms' },
          { label: 'agent.send → agent.reply p99', value: percentile(rounds.wsReplyMs, 99), unit: 'ms' },
        ],
        sanity: [
          sanity(
            'every Telegram message has exactly one reply in its chat, placed and edited into its text',
            answered.length === rounds.asked.length && bot.length === rounds.asked.length,
            `${answered.length} of ${rounds.asked.length} answered, ${bot.length} bot messages in their chats`,
          ),
          sanity(
            'Telegram accepted every send and edit (no markup refused, no retry)',
            refused === 0 && calls.length === 2 * rounds.asked.length,
            `${calls.length} sendMessage and editMessageText, ${refused} refused`,
          ),
          sanity(
            'every agent.send got its agent.reply from a woken think, not the 30 s beat',
            rounds.wsUnanswered === 0 && max([...rounds.wsReplyMs, ...rounds.tgTextMs]) < BEAT_MS / 10,
            `${rounds.wsUnanswered} unanswered, slowest ${max([...rounds.wsReplyMs, ...rounds.tgTextMs]).toFixed(1)} ms`,
          ),
          sanity('the daemon stopped cleanly (SIGTERM, exit 0)', exit === 0, `exit ${String(exit)}`),
        ],
      };
    } finally {
      if (daemon.proc.exitCode === null && daemon.proc.signalCode === null) daemon.kill('SIGKILL');
      await fake.close();
    }
  });
}
