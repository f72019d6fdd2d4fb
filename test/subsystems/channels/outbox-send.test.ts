/** One message of a reply sent whole: written `placing` before the send, `sent` after, the same key on every try. */
import { describe, expect, it } from 'vitest';
import { createSimulatedClock } from '../../../src/shared/clock.js';
import {
  ChannelCallError,
  type ChannelAdapter,
  type WholeSend,
} from '../../../src/subsystems/channels/channel-adapter.js';
import { sendWhole } from '../../../src/subsystems/channels/outbox-send.js';
import { newReply, replyTransition, type ReplyInput } from '../../../src/subsystems/channels/reply.machine.js';

function platform(answer: () => Promise<WholeSend>, threadsReplies = false) {
  const calls: Array<{ chatId: string; text: string; replyTo: string | undefined; key: string }> = [];
  const adapter = {
    edits: false,
    threadsReplies,
    send(chatId: string, text: string, replyTo: string | undefined, key: string) {
      calls.push({ chatId, text, replyTo, key });
      return answer();
    },
  } as unknown as ChannelAdapter;
  return { adapter, calls };
}

describe('sendWhole', () => {
  const clock = createSimulatedClock(1_000);
  const filled = () =>
    replyTransition(newReply('t-1', 'a@example.org', '<q@example.org>', 1, 0), {
      type: 'fill',
      texts: ['one', 'two'],
      final: true,
      ack: false,
      at: 0,
    });

  it('writes placing before the send and sent after, under a key of the turn and the slot', async () => {
    const { adapter, calls } = platform(() => Promise.resolve({ messageId: '<r@x>', doubled: true }));
    const inputs: ReplyInput[] = [];
    await sendWhole(
      adapter,
      filled(),
      { kind: 'send', slot: 0, replyTo: true, text: 'one' },
      async (input) => {
        inputs.push(input);
      },
      clock,
    );
    expect(calls).toEqual([{ chatId: 'a@example.org', text: 'one', replyTo: '<q@example.org>', key: 't-1.0' }]);
    expect(inputs.map((input) => input.type)).toEqual(['placing', 'sent']);
    expect(inputs[1]).toMatchObject({ slot: 0, messageId: '<r@x>', doubled: true });
  });

  it('threads every part where the platform wants it, and only the first otherwise', async () => {
    const threaded = platform(() => Promise.resolve({ messageId: '<r@x>', doubled: false }), true);
    const plain = platform(() => Promise.resolve({ messageId: '<r@x>', doubled: false }));
    const action = { kind: 'send' as const, slot: 1, replyTo: false, text: 'two' };
    await sendWhole(threaded.adapter, filled(), action, () => Promise.resolve(), clock);
    await sendWhole(plain.adapter, filled(), action, () => Promise.resolve(), clock);
    expect(threaded.calls[0]).toMatchObject({ replyTo: '<q@example.org>', key: 't-1.1' });
    expect(plain.calls[0]).toMatchObject({ replyTo: undefined, key: 't-1.1' });
  });

  it('after a failure puts the slot back without counting a stray, and throws the platform’s failure', async () => {
    const { adapter } = platform(() => Promise.reject(new Error('socket hang up')));
    const inputs: ReplyInput[] = [];
    const failure = await sendWhole(
      adapter,
      filled(),
      { kind: 'send', slot: 0, replyTo: true, text: 'one' },
      async (input) => {
        inputs.push(input);
      },
      clock,
    ).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(ChannelCallError);
    expect(failure).toMatchObject({ kind: 'unreachable' });
    expect(inputs.map((input) => input.type)).toEqual(['placing', 'place_failed']);
    expect(inputs[1]).toMatchObject({ unknown: false });
  });
});
