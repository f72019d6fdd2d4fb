/**
 * The rule that makes Slack exactly-once: an envelope is acknowledged only after the inbox batch holding its message
 * is on disk. The channel runner drives the real Slack adapter against the fake Slack; the host's `admit` (the synced
 * batch) is held open, and the envelope stays unacknowledged (Slack redelivers it) until it resolves; a batch that
 * fails leaves it unacknowledged for good, so Slack delivers it again and it is admitted then, once.
 */
import { MemoryLevel } from 'memory-level';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReplyRecord } from '../../../../src/protocol/channel-records.schema.js';
import { createSimulatedClock } from '../../../../src/shared/clock.js';
import { silentLogger } from '../../../../src/shared/logger.js';
import type { AdmittedTurn, ChannelHost } from '../../../../src/subsystems/channels/channel-host.js';
import { ChannelRunner } from '../../../../src/subsystems/channels/channel-runner.js';
import { ChannelStore } from '../../../../src/subsystems/channels/channel-store.js';
import { newReply } from '../../../../src/subsystems/channels/reply.machine.js';
import { SlackAdapter } from '../../../../src/subsystems/channels/slack/slack-adapter.js';
import type { VigilDb } from '../../../../src/subsystems/store/vigil-db.js';
import { createFakeSlack } from '../../../fixtures/fake-slack.js';

const BOT = 'xoxb-ack-test';
const APP = 'xapp-ack-test';
const closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

const until = async (done: () => boolean, what: string) => {
  for (let i = 0; i < 300 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!done()) throw new Error(`timed out waiting for ${what}`);
};

/** A host whose batches the test lets through one at a time (or fails). */
function heldHost(store: () => ChannelStore) {
  const batches: Array<{ turns: readonly AdmittedTurn[]; release: (fail?: boolean) => void }> = [];
  const admitted: string[] = [];
  const host: ChannelHost = {
    events: {
      stamp: (type, payload) => ({ type, ...payload }) as never,
      entryOp: () => ({ type: 'del', key: 'nothing' }),
      publish: () => undefined,
      withdraw: () => undefined,
      emit: () => undefined,
    },
    admit: (_channel, _store, turns, cursor, alongside) =>
      new Promise<ReplyRecord[] | null>((resolve, reject) => {
        batches.push({
          turns,
          release: (fail = false) => {
            if (fail) return reject(new Error('disk full'));
            const replies = turns.map((turn, i) =>
              newReply(`t-${admitted.length + i}`, turn.message.chatId, turn.message.messageId, i, 0),
            );
            const ops = turns.flatMap((turn, i) =>
              store().admissionOps(
                turn.message.chatId,
                turn.message.messageId,
                { turnId: replies[i]!.turnId, senderId: turn.message.senderId, at: 0 },
                replies[i]!,
              ),
            );
            admitted.push(...turns.map((turn) => turn.message.text));
            void store()
              .write([...ops, store().cursorOp(cursor), ...alongside])
              .then(() => resolve(replies), reject);
          },
        });
      }),
    ending: () => Promise.resolve(undefined),
    onEnding: () => () => undefined,
  };
  return { host, batches, admitted };
}

async function rig() {
  const fake = await createFakeSlack({ botToken: BOT, appToken: APP, ackTimeoutMs: 150 });
  const db: VigilDb = new MemoryLevel();
  const store = await ChannelStore.open(db, 'sl');
  const { host, batches, admitted } = heldHost(() => store);
  const adapter = new SlackAdapter({ botToken: BOT, appToken: APP, apiUrl: fake.apiUrl, log: silentLogger });
  const clock = createSimulatedClock(0);
  const runner = new ChannelRunner({
    name: 'sl',
    type: 'slack',
    adapter,
    store,
    access: { dmPolicy: 'open', allowFrom: [], groups: [], operators: [] },
    host,
    clock,
    log: silentLogger,
  });
  await runner.start();
  closing.push(async () => {
    await runner.stop();
    await fake.close();
  });
  return { fake, batches, admitted, clock };
}

describe('Slack: acknowledged only once durable', () => {
  it('holds the acknowledgement while the batch is being written, and redeliveries make no second turn', async () => {
    const { fake, batches, admitted } = await rig();
    await until(() => fake.socket.connections === 1, 'the connection');
    fake.userSends({ channel: 'D0001', channelType: 'im', user: 'U0001', text: 'hello' });
    await until(() => batches.length === 1, 'the batch');
    // Not durable yet: Slack's timeout passes, it delivers again; nothing is acknowledged.
    await until(() => fake.socket.deliveries.length >= 2, 'a redelivery');
    expect(fake.socket.events[0]!.acked).toBe(false);
    batches[0]!.release();
    await until(() => fake.socket.events[0]!.acked, 'the acknowledgement');
    // The redeliveries already queued come through the inbox, which finds the message admitted: no second batch.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(batches).toHaveLength(1);
    expect(admitted).toEqual(['hello']);
  });

  it('leaves a message whose batch failed unacknowledged; Slack delivers it again and it is admitted then, once', async () => {
    const { fake, batches, admitted, clock } = await rig();
    await until(() => fake.socket.connections === 1, 'the connection');
    fake.userSends({ channel: 'D0001', channelType: 'im', user: 'U0001', text: 'again' });
    await until(() => batches.length === 1, 'the batch');
    batches[0]!.release(true);
    await until(() => fake.socket.deliveries.length >= 2, 'a redelivery');
    expect(fake.socket.events[0]!.acked).toBe(false);
    expect(admitted).toEqual([]);
    // The runner's backoff passes: it receives from the durable cursor again, the message (and its redelivery) with it.
    clock.increment(60_000);
    await until(() => batches.length === 2, 'the second batch');
    expect(batches[1]!.turns.map((turn) => turn.message.text)).toEqual(['again']);
    batches[1]!.release();
    await until(() => fake.socket.events[0]!.acked, 'the acknowledgement');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(batches).toHaveLength(2);
    expect(admitted).toEqual(['again']);
  });
});
