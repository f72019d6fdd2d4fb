/** A runtime with a Telegram channel on the fake Bot API, driven through grammY as the daemon drives it. */
import { MemoryLevel } from 'memory-level';
import { afterEach } from 'vitest';
import type { VigilConfig } from '../../src/config.js';
import type { ChannelConfig } from '../../src/protocol/channels.schema.js';
import { createSimulatedClock } from '../../src/shared/clock.js';
import type { VigilDb } from '../../src/subsystems/store/vigil-db.js';
import type { Thinker } from '../../src/subsystems/thinking/thinker.js';
import { createFakeTelegram, type FakeTelegram } from '../fixtures/fake-telegram.js';
import { startRuntime, type RuntimeHarness } from '../fixtures/runtime.fixture.js';
import { ScriptedThinker } from '../fixtures/scripted-thinker.js';

/** The bot's token (its id is the number before the colon). */
export const BOT_TOKEN = '7000001:AAH-test-token-for-the-fake-bot-api-000';
export const BOT_USERNAME = 'vigil_test_bot';

/** A Telegram channel under test: the runtime, the fake, and the database to restart on. */
export interface TelegramRig {
  h: RuntimeHarness;
  fake: FakeTelegram;
  db: VigilDb;
  thinker: Thinker;
  /** Advances simulated time and lets real I/O (the fake's HTTP) run until `done` holds; throws after `rounds`. */
  until(done: () => boolean, what: string, rounds?: number): Promise<void>;
  /** Stops the runtime and starts a new one on the same database and fake. */
  restart(options?: { crash?: boolean }): Promise<void>;
}

/** Access settings of the test channel (overridable). */
export type ChannelEntryOverrides = Partial<Omit<Extract<ChannelConfig, { type: 'telegram' }>, 'type'>>;

/** Creates rigs and closes them after each test. */
export function useTelegramRigs(): (options?: {
  channel?: ChannelEntryOverrides;
  thinker?: Thinker;
  fake?: FakeTelegram;
  config?: Partial<VigilConfig>;
}) => Promise<TelegramRig> {
  const open: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of open.splice(0).reverse()) await close();
  });
  return async (options = {}) => {
    const clock = createSimulatedClock(Date.parse('2026-03-01T10:00:00Z'));
    // The fake dates requests on the runtime's clock, so a test reads spacing in the agent's own time.
    const fake =
      options.fake ??
      (await createFakeTelegram({ tokens: [BOT_TOKEN], botUsername: BOT_USERNAME, now: () => clock.now() }));
    const db: VigilDb = new MemoryLevel();
    const thinker = options.thinker ?? new ScriptedThinker();
    const start = () =>
      startRuntime({
        db,
        clock,
        thinker,
        config: {
          ...options.config,
          channels: {
            channels: {
              tg: {
                type: 'telegram',
                tokenEnv: 'TG_TOKEN',
                apiRoot: fake.url,
                dmPolicy: 'pairing',
                allowFrom: ['101'],
                groups: [],
                operators: [],
                ...options.channel,
              },
            },
          },
        },
        channels: { env: { TG_TOKEN: BOT_TOKEN }, pollTimeoutS: 1, newCode: codes() },
      });
    const rig: TelegramRig = {
      h: await start(),
      fake,
      db,
      thinker,
      async until(done, what, rounds = 400) {
        for (let i = 0; i < rounds; i++) {
          if (done()) return;
          await rig.h.advance(50, 50);
          // The fake answers over real sockets: give them a moment.
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        throw new Error(`timed out waiting for ${what}`);
      },
      async restart(restartOptions = {}) {
        if (restartOptions.crash === true) await rig.h.crash();
        await rig.h.runtime.stop().catch(() => undefined);
        rig.h = await start();
      },
    };
    open.push(async () => {
      await rig.h.runtime.stop().catch(() => undefined);
      if (options.fake === undefined) await fake.close();
    });
    return rig;
  };
}

// Pairing codes in a known order, so a test can type the code it expects.
function codes(): () => string {
  let next = 0;
  return () => `CODE${String(++next).padStart(4, '2')}`.replace(/[01]/g, '2');
}

/** A user's direct message to the bot. */
export function direct(fake: FakeTelegram, userId: number, text: string, username = `user${userId}`) {
  return fake.userSends({
    chat: { id: userId, type: 'private' },
    from: { id: userId, first_name: `User ${userId}`, username },
    text,
  });
}
