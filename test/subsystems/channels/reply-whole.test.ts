/** The reply machine on a platform that cannot edit (email): no placeholder, each message sent once, whole. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  newReply,
  nextReplyAction,
  replyMessageIds,
  replyTransition,
} from '../../../src/subsystems/channels/reply.machine.js';

const AT = 1_000;

describe('reply machine, whole sends', () => {
  it('sends nothing until the text is known, then each part once, the first replying to the message', () => {
    let reply = newReply('t-1', 'a@example.org', '<m1@example.org>', 3, AT);
    expect(nextReplyAction(reply, false)).toEqual({ kind: 'none' });
    reply = replyTransition(reply, { type: 'fill', texts: ['hello', 'world'], final: true, ack: false, at: AT });
    expect(nextReplyAction(reply, false)).toEqual({ kind: 'send', slot: 0, replyTo: true, text: 'hello' });
    reply = replyTransition(reply, { type: 'placing', slot: 0, at: AT });
    expect(nextReplyAction(reply, false)).toEqual({ kind: 'none' });
    reply = replyTransition(reply, { type: 'sent', slot: 0, messageId: '<a>', doubled: false, at: AT });
    expect(nextReplyAction(reply, false)).toEqual({ kind: 'send', slot: 1, replyTo: false, text: 'world' });
    reply = replyTransition(reply, { type: 'placing', slot: 1, at: AT });
    reply = replyTransition(reply, { type: 'sent', slot: 1, messageId: '<b>', doubled: false, at: AT });
    expect(reply.state).toBe('sent');
    expect(replyMessageIds(reply)).toEqual(['<a>', '<b>']);
    expect(reply.strays).toBe(0);
  });

  it('sends an ack whole, then the answer as a message of its own replying to the one answered', () => {
    let reply = newReply('t-1', 'a@example.org', '<m1@example.org>', 3, AT);
    reply = replyTransition(reply, { type: 'fill', texts: ['asleep'], final: false, ack: true, at: AT });
    expect(nextReplyAction(reply, false)).toEqual({ kind: 'send', slot: 0, replyTo: true, text: 'asleep' });
    reply = replyTransition(reply, { type: 'placing', slot: 0, at: AT });
    reply = replyTransition(reply, { type: 'sent', slot: 0, messageId: '<a>', doubled: false, at: AT });
    expect(reply.state).toBe('awaiting');
    reply = replyTransition(reply, { type: 'fill', texts: ['the answer'], final: true, ack: false, at: AT });
    expect(nextReplyAction(reply, false)).toEqual({ kind: 'send', slot: 1, replyTo: true, text: 'the answer' });
  });

  it('after a crash mid-send sends again under the same slot without counting a stray; the platform says if doubled', () => {
    let reply = newReply('t-1', 'a@example.org', '<m1@example.org>', 3, AT);
    reply = replyTransition(reply, { type: 'fill', texts: ['hello'], final: true, ack: false, at: AT });
    reply = replyTransition(reply, { type: 'placing', slot: 0, at: AT });
    reply = replyTransition(reply, { type: 'recovered', at: AT, whole: true });
    expect(reply.strays).toBe(0);
    expect(nextReplyAction(reply, false)).toEqual({ kind: 'send', slot: 0, replyTo: true, text: 'hello' });
    reply = replyTransition(reply, { type: 'placing', slot: 0, at: AT });
    reply = replyTransition(reply, { type: 'sent', slot: 0, messageId: '<a>', doubled: true, at: AT });
    expect(reply).toMatchObject({ state: 'sent', strays: 1 });
  });

  it('whatever crashes when, each part is sent and the reply ends sent (a model of the outbox with a recognising platform)', () => {
    const Fault = fc.constantFrom('ok', 'crash_before', 'crash_after', 'lost');
    fc.assert(
      fc.property(
        fc.array(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 4 }),
        fc.array(Fault),
        (parts, faults) => {
          // The platform: what it delivered under each key; a key it has seen is not delivered again.
          const delivered = new Map<number, string>();
          let reply = newReply('t-1', 'chat', 'm', 1, AT);
          reply = replyTransition(reply, { type: 'fill', texts: parts, final: true, ack: false, at: AT });
          let i = 0;
          for (let steps = 0; reply.state !== 'sent' && steps < 100; steps++) {
            const action = nextReplyAction(reply, false);
            if (action.kind !== 'send') {
              reply = replyTransition(reply, { type: 'recovered', at: AT, whole: true });
              continue;
            }
            const fault = faults[i++] ?? 'ok';
            reply = replyTransition(reply, { type: 'placing', slot: action.slot, at: AT });
            if (fault === 'crash_before') continue;
            const doubled = delivered.has(action.slot);
            delivered.set(action.slot, action.text);
            if (fault === 'crash_after') continue;
            if (fault === 'lost') {
              reply = replyTransition(reply, { type: 'place_failed', slot: action.slot, unknown: false, at: AT });
              continue;
            }
            reply = replyTransition(reply, {
              type: 'sent',
              slot: action.slot,
              messageId: `m${action.slot}`,
              doubled,
              at: AT,
            });
          }
          expect(reply.state).toBe('sent');
          expect([...delivered.keys()].sort()).toEqual(parts.map((_, slot) => slot));
          expect(parts.map((_, slot) => delivered.get(slot))).toEqual(parts);
        },
      ),
    );
  });
});
