/**
 * A Telegram channel through `kill -9` (CONTRACT §18): people write to the bot on a fake Bot API that keeps
 * Telegram's rules while the daemon is killed at seeded random moments and started again; in the end every message is
 * exactly one turn and has exactly one reply in its chat, and the only leftovers a crash may cost are placeholders
 * whose send it cut short, counted.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/vigil-client.js';
import { createFakeTelegram, type FakeTelegram } from '../fixtures/fake-telegram.js';
import { seededRandom, seedFrom } from '../faults/seeded-random.js';
import { startDaemon, type DaemonProcess } from './daemon-process.js';

const TOKEN = 'channels-crash-token-0123456789';
const BOT_TOKEN = '7000002:AAH-e2e-bot-token-never-in-a-log-0000';
const USERS = [111, 222, 333, 444];
const MESSAGES = 32;
const KILLS = 3;
const WAIT_MS = 30_000;

let root: string;
let fake: FakeTelegram;
const started: DaemonProcess[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'vigil-channels-crash-'));
  fake = await createFakeTelegram({ tokens: [BOT_TOKEN], botUsername: 'vigil_e2e_bot' });
});
afterAll(async () => {
  for (const daemon of started) daemon.kill('SIGKILL');
  await fake.close();
  await rm(root, { recursive: true, force: true });
});

async function start(dataDir: string, configPath: string): Promise<DaemonProcess> {
  const daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], {
    VIGIL_TOKEN: TOKEN,
    VIGIL_BEAT_MS: '30000',
    VIGIL_BEAT_MAX_MS: '60000',
    VIGIL_CHECKPOINT_INTERVAL_BEATS: '2',
    VIGIL_CHANNELS_CONFIG: configPath,
    TG_BOT_TOKEN: BOT_TOKEN,
  });
  started.push(daemon);
  await daemon.waitFor((line) => line.msg === 'gateway listening', WAIT_MS, 'gateway listening');
  return daemon;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a Telegram channel across kill -9', () => {
  it('gives every message exactly one turn and one reply in its chat', async () => {
    const seed = seedFrom(process.env, 'VIGIL_CRASH_SEED');
    const random = seededRandom(seed);
    const dataDir = join(root, 'data');
    const configPath = join(root, 'channels.json');
    const entry = { type: 'telegram', tokenEnv: 'TG_BOT_TOKEN', apiRoot: fake.url, allowFrom: USERS.map(String) };
    await writeFile(configPath, JSON.stringify({ channels: { tg: entry } }));
    // The kills fall after these messages, each at a random moment after it.
    const killAfter = new Set<number>();
    while (killAfter.size < KILLS) killAfter.add(random.int(3, MESSAGES - 4));
    let daemon = await start(dataDir, configPath);
    const sent: Array<{ chatId: number; messageId: number; text: string }> = [];
    const send = (): void => {
      const user = USERS[random.int(0, USERS.length - 1)]!;
      const text = `message ${sent.length} from ${user}`;
      const message = fake.userSends({
        chat: { id: user, type: 'private' },
        from: { id: user, first_name: `U${user}` },
        text,
      });
      sent.push({ chatId: user, messageId: message.message_id, text });
    };
    let kills = 0;
    // Each round sends one message (a round may add one more while the daemon is down): the kill rounds all come.
    for (let round = 0; sent.length < MESSAGES; round++) {
      send();
      await pause(random.int(0, 60));
      if (!killAfter.has(round)) continue;
      await pause(random.int(0, 250));
      daemon.kill('SIGKILL');
      await daemon.exited;
      kills++;
      // Messages sent while it is down are answered after the restart.
      if (random.next() < 0.5) send();
      daemon = await start(dataDir, configPath);
    }
    expect(kills).toBe(KILLS);
    const line = daemon.lines.find((l) => l.msg === 'gateway listening')!;
    const client = await connect({ url: String(line.url), token: TOKEN, reconnect: false });
    try {
      // Every message answered: in each chat, one written reply per message sent to it.
      const deadline = Date.now() + 60_000;
      const replied = () =>
        USERS.every((user) => {
          const asked = sent.filter((message) => message.chatId === user).length;
          const answers = fake.botMessages(user).filter((message) => message.text !== '…');
          return answers.length >= asked;
        });
      while (!replied() && Date.now() < deadline) await pause(100);
      const detail = `seed ${seed} (VIGIL_CRASH_SEED=${seed} repeats it)`;
      expect(replied(), detail).toBe(true);
      // Let anything still in flight land before counting what is there.
      await pause(500);
      for (const user of USERS) {
        const asked = sent.filter((message) => message.chatId === user);
        const answers = fake.botMessages(user).filter((message) => message.text !== '…');
        expect(answers.length, `${detail}: chat ${user}`).toBe(asked.length);
        // The first message of each reply replies to the message it answers: one for each, none twice.
        expect(answers.map((message) => message.replyTo).sort(), `${detail}: chat ${user}`).toEqual(
          asked.map((message) => message.messageId).sort(),
        );
      }
      // One turn per message: the conversation holds each message once.
      const conversation = await client.conversation.list({ limit: 500 });
      const turns = conversation.filter((entry) => entry.role === 'user' && entry.from?.startsWith('tg:'));
      expect(turns.map((entry) => entry.text).sort(), detail).toEqual(sent.map((message) => message.text).sort());
      // Nothing left pending, and Telegram holds no unconfirmed update.
      await expect(client.channels.list()).resolves.toEqual([expect.objectContaining({ name: 'tg', pending: 0 })]);
      expect(fake.droppedPendingUpdates).toBe(0);
      // The only cost a crash may leave: placeholders whose send it cut short (at most one per chat per kill).
      const strays = USERS.flatMap((user) => fake.botMessages(user).filter((message) => message.text === '…'));
      expect(strays.length, detail).toBeLessThanOrEqual(KILLS * USERS.length);
      console.log(`seed ${seed}: ${kills} kills, ${sent.length} messages, ${strays.length} strays`);
      // The bot token never reaches a log line.
      for (const each of started) {
        expect(JSON.stringify(each.lines)).not.toContain('AAH-e2e-bot-token');
        expect(each.stderr()).not.toContain('AAH-e2e-bot-token');
      }
    } finally {
      await client.close();
    }
  }, 180_000);
});
