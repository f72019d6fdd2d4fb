/**
 * A Slack channel through `kill -9` (CONTRACT §18): people write to the bot (direct messages, and mentions in a
 * channel, which Slack sends twice: `message` and `app_mention`) on a fake Slack that keeps Slack's rules — Socket
 * Mode envelopes delivered again with `retry_attempt` until acknowledged — while the daemon is killed at seeded
 * random moments and started again (after each kill Slack also delivers again an event whose acknowledgement the
 * kill may have cost; once, a message is written whose event Slack never delivers, as after a downtime longer than
 * its retries: only history holds it). In the end every message is exactly one turn and has exactly one reply, in its
 * thread; Slack gave up on no event; the only leftovers a crash may cost are placeholders whose send it cut short.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/vigil-client.js';
import { createFakeSlack, type FakeSlack } from '../fixtures/fake-slack.js';
import { seededRandom, seedFrom } from '../faults/seeded-random.js';
import { startDaemon, type DaemonProcess } from './daemon-process.js';

const TOKEN = 'channels-slack-crash-token-0123456789';
const BOT_TOKEN = 'xoxb-e2e-bot-token-never-in-a-log-0000';
const APP_TOKEN = 'xapp-e2e-app-token-never-in-a-log-0000';
const USERS = ['U0111', 'U0222', 'U0333'];
const CHANNEL = 'C0900';
const MESSAGES = 30;
const KILLS = 3;
const WAIT_MS = 30_000;

let root: string;
let fake: FakeSlack;
const started: DaemonProcess[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'vigil-slack-crash-'));
  // Slack retries over an hour (at once, after a minute, after five); the fake retries every 3 s, so it is given
  // more tries than Slack's three to cover the same time.
  fake = await createFakeSlack({ botToken: BOT_TOKEN, appToken: APP_TOKEN, maxRetries: 20 });
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
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_APP_TOKEN: APP_TOKEN,
  });
  started.push(daemon);
  await daemon.waitFor((line) => line.msg === 'gateway listening', WAIT_MS, 'gateway listening');
  return daemon;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a Slack channel across kill -9', () => {
  it('gives every message exactly one turn and one reply in its thread', async () => {
    const seed = seedFrom(process.env, 'VIGIL_CRASH_SEED');
    const random = seededRandom(seed);
    const dataDir = join(root, 'data');
    const configPath = join(root, 'channels.json');
    const entry = {
      type: 'slack',
      botTokenEnv: 'SLACK_BOT_TOKEN',
      appTokenEnv: 'SLACK_APP_TOKEN',
      apiUrl: fake.apiUrl,
      allowFrom: USERS,
      groups: [CHANNEL],
    };
    await writeFile(configPath, JSON.stringify({ channels: { sl: entry } }));
    const killAfter = new Set<number>();
    while (killAfter.size < KILLS) killAfter.add(random.int(3, MESSAGES - 4));
    let daemon = await start(dataDir, configPath);
    const sent: Array<{ channel: string; ts: string; text: string }> = [];
    const send = (options: { undelivered?: boolean } = {}): void => {
      const user = USERS[random.int(0, USERS.length - 1)]!;
      const text = `message ${sent.length} from ${user}`;
      const inChannel = random.next() < 0.3;
      const message = inChannel
        ? fake.userSends({ channel: CHANNEL, user, text: `<@${fake.botUserId}> ${text}`, ...options })
        : fake.userSends({ channel: `D${user.slice(1)}`, channelType: 'im', user, text, ...options });
      sent.push({ channel: message.channel, ts: message.ts, text });
    };
    let kills = 0;
    for (let round = 0; sent.length < MESSAGES; round++) {
      send();
      await pause(random.int(0, 60));
      if (!killAfter.has(round)) continue;
      await pause(random.int(0, 250));
      daemon.kill('SIGKILL');
      await daemon.exited;
      kills++;
      if (random.next() < 0.5) send();
      // Down for longer than Slack retries (once): its event is never delivered, only history holds it.
      if (kills === 1) send({ undelivered: true });
      // An acknowledgement the kill may have cost: Slack delivers that event again (retry_attempt one higher).
      const acked = fake.socket.events.filter((event) => event.acked);
      if (acked.length > 0) fake.socket.replay(acked[random.int(0, acked.length - 1)]!.eventId);
      daemon = await start(dataDir, configPath);
    }
    expect(kills).toBe(KILLS);
    const line = daemon.lines.find((l) => l.msg === 'gateway listening')!;
    const client = await connect({ url: String(line.url), token: TOKEN, reconnect: false });
    const chats = [...new Set(sent.map((message) => message.channel))];
    const answers = (channel: string) => fake.botMessages(channel).filter((message) => message.text !== '…');
    try {
      const deadline = Date.now() + 60_000;
      const replied = () =>
        chats.every((chat) => answers(chat).length >= sent.filter((message) => message.channel === chat).length);
      while (!replied() && Date.now() < deadline) await pause(100);
      const detail = `seed ${seed} (VIGIL_CRASH_SEED=${seed} repeats it)`;
      expect(replied(), detail).toBe(true);
      await pause(500);
      for (const chat of chats) {
        const asked = sent.filter((message) => message.channel === chat);
        // One reply per message, each in the thread of the message it answers: none missing, none twice.
        expect(
          answers(chat)
            .map((message) => message.threadTs)
            .sort(),
          `${detail}: ${chat}`,
        ).toEqual(asked.map((message) => message.ts).sort());
      }
      // One turn per message, though Slack delivered many more than once (retries, and mentions as two events).
      const conversation = await client.conversation.list({ limit: 500 });
      const turns = conversation.filter((each) => each.role === 'user' && each.from?.startsWith('sl:'));
      expect(turns.map((each) => each.text.split('\n').at(-1)!.replace('@vigil ', '')).sort(), detail).toEqual(
        sent.map((message) => message.text).sort(),
      );
      expect(fake.socket.deliveries.filter((each) => each.retryAttempt > 0).length).toBeGreaterThanOrEqual(KILLS);
      await expect(client.channels.list()).resolves.toEqual([
        expect.objectContaining({ name: 'sl', type: 'slack', state: 'ok', pending: 0 }),
      ]);
      // Every event acknowledged in the end (after durable), none given up on.
      expect(fake.abandoned(), detail).toEqual([]);
      expect(
        fake.socket.events.every((event) => event.acked),
        detail,
      ).toBe(true);
      const strays = chats.flatMap((chat) => fake.botMessages(chat).filter((message) => message.text === '…'));
      expect(strays.length, detail).toBeLessThanOrEqual(KILLS * chats.length);
      console.log(
        `seed ${seed}: ${kills} kills, ${sent.length} messages, ${fake.socket.deliveries.length} deliveries, ${strays.length} strays`,
      );
      for (const each of started) {
        expect(JSON.stringify(each.lines)).not.toMatch(/e2e-(bot|app)-token/);
        expect(each.stderr()).not.toMatch(/e2e-(bot|app)-token/);
      }
    } finally {
      await client.close();
    }
  }, 180_000);
});
