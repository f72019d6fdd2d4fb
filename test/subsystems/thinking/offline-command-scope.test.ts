import { describe, expect, it } from 'vitest';
import { CognitiveCheckpointSchema } from '../../../src/protocol/checkpoint-format.schema.js';
import { replayTurns } from '../../../src/runtime/heartbeat-seed.js';
import { firingScope } from '../../../src/runtime/schedule-firing.js';
import { refusalBeyondScope, senderScope } from '../../../src/subsystems/thinking/offline-command-scope.js';
import { makeCheckpoint } from '../../fixtures/checkpoint.fixture.js';

const message = { turnId: 't-1', text: '/tool x', from: 'user', at: 0 };

describe('offline-command-scope', () => {
  it('refuses an acting command to a talk sender with a reply naming operate, and lets operate through', () => {
    expect(refusalBeyondScope({ ...message, scope: 'talk' }, '/tool')).toEqual([
      {
        type: 'reply',
        turnId: 't-1',
        text: expect.stringMatching(/^\/tool needs the operate scope, and this message was sent with a talk token/),
      },
    ]);
    expect(refusalBeyondScope({ ...message, scope: 'operate' }, '/tool')).toBeUndefined();
  });

  it('takes a message from before scopes were recorded (no scope) as operate, as it was accepted then', () => {
    expect(senderScope(message)).toBe('operate');
    expect(refusalBeyondScope(message, '/schedule')).toBeUndefined();
  });

  it("fires an operator's schedule as operate and the model's as talk", () => {
    expect(firingScope('operator')).toBe('operate');
    expect(firingScope('model')).toBe('talk');
  });

  it('keeps the scope of a logged message when a crash replays its turn, and restores an old checkpoint without one', () => {
    const base = makeCheckpoint().conversation;
    const replayed = replayTurns(base, [
      { seq: 1, turnId: 't-9', role: 'user', text: '/tool x', from: 'bridge', scope: 'talk', at: 5 },
      { seq: 2, turnId: 't-10', role: 'user', text: 'hi', from: 'old', at: 6 },
    ]);
    expect(replayed.pending.slice(-2)).toEqual([
      { turnId: 't-9', text: '/tool x', from: 'bridge', scope: 'talk', at: 5 },
      { turnId: 't-10', text: 'hi', from: 'old', at: 6 },
    ]);
    const old = makeCheckpoint();
    old.conversation.pending = [message];
    expect(CognitiveCheckpointSchema.parse(old).conversation.pending).toEqual([message]);
  });
});
