/** A runtime with a Slack channel on the fake Slack, driven through Slack's SDK over Socket Mode as the daemon drives it. */
import { MemoryLevel } from 'memory-level';
import { afterEach } from 'vitest';
import type { ChannelConfig } from '../../src/protocol/channels.schema.js';
import { createSimulatedClock } from '../../src/shared/clock.js';
import type { VigilDb } from '../../src/subsystems/store/vigil-db.js';
import type { Thinker } from '../../src/subsystems/thinking/thinker.js';
import { createFakeSlack, type FakeSlack } from '../fixtures/fake-slack.js';
import { startRuntime, type RuntimeHarness } from '../fixtures/runtime.fixture.js';
import { ScriptedThinker } from '../fixtures/scripted-thinker.js';

export const SLACK_BOT_TOKEN = 'xoxb-runtime-test-bot-token-0001';
export const SLACK_APP_TOKEN = 'xapp-runtime-test-app-token-0001';

/** A Slack channel under test. */
export interface SlackRig {
  h: RuntimeHarness;
  fake: FakeSlack;
  db: VigilDb;
  /** Advances simulated time and lets real I/O run until `done` holds; throws after `rounds`. */
  until(done: () => boolean, what: string, rounds?: number): Promise<void>;
  /** Stops the runtime (or crashes it first) and starts a new one on the same database and fake. */
  restart(options?: { crash?: boolean; meanwhile?: () => void }): Promise<void>;
}

/** Access settings of the test channel (overridable). */
export type SlackEntryOverrides = Partial<Omit<Extract<ChannelConfig, { type: 'slack' }>, 'type'>>;

/** Creates rigs and closes them after each test. */
export function useSlackRigs(): (options?: { channel?: SlackEntryOverrides; thinker?: Thinker }) => Promise<SlackRig> {
  const open: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of open.splice(0).reverse()) await close();
  });
  return async (options = {}) => {
    const clock = createSimulatedClock(Date.parse('2026-03-01T10:00:00Z'));
    // Slack's ack timeout is real time (300 ms here, 3 s in Slack); message dates and call times are the agent's.
    const fake = await createFakeSlack({
      botToken: SLACK_BOT_TOKEN,
      appToken: SLACK_APP_TOKEN,
      ackTimeoutMs: 300,
      now: () => clock.now(),
    });
    const db: VigilDb = new MemoryLevel();
    const thinker = options.thinker ?? new ScriptedThinker();
    const start = () =>
      startRuntime({
        db,
        clock,
        thinker,
        config: {
          channels: {
            channels: {
              sl: {
                type: 'slack',
                botTokenEnv: 'SLACK_BOT',
                appTokenEnv: 'SLACK_APP',
                apiUrl: fake.apiUrl,
                dmPolicy: 'pairing',
                allowFrom: ['U0101'],
                groups: [],
                operators: [],
                ...options.channel,
              },
            },
          },
        },
        channels: { env: { SLACK_BOT: SLACK_BOT_TOKEN, SLACK_APP: SLACK_APP_TOKEN }, newCode: () => 'CODE2345' },
      });
    const rig: SlackRig = {
      h: await start(),
      fake,
      db,
      async until(done, what, rounds = 400) {
        for (let i = 0; i < rounds; i++) {
          if (done()) return;
          await rig.h.advance(50, 50);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        throw new Error(`timed out waiting for ${what}`);
      },
      async restart(restartOptions = {}) {
        if (restartOptions.crash === true) await rig.h.crash();
        await rig.h.runtime.stop().catch(() => undefined);
        restartOptions.meanwhile?.();
        rig.h = await start();
      },
    };
    open.push(async () => {
      await rig.h.runtime.stop().catch(() => undefined);
      await fake.close();
    });
    return rig;
  };
}

/** A direct message from `user` (its DM channel is `D` + the user id's digits). */
export function dm(fake: FakeSlack, user: string, text: string) {
  return fake.userSends({ channel: `D${user.slice(1)}`, channelType: 'im', user, text });
}
