import { afterEach, describe, expect, it } from 'vitest';
import { delay } from '../../src/shared/clock.js';
import { ACK_TEXT } from '../../src/runtime/runtime.js';
import { deferred, startRuntime, type RuntimeHarness } from '../fixtures/runtime.fixture.js';
import { ScriptedThinker } from '../fixtures/scripted-thinker.js';

let h: RuntimeHarness | undefined;
afterEach(async () => {
  await h?.runtime.stop().catch(() => undefined);
  h = undefined;
});

const replies = (input: { pendingMessages: Array<{ turnId: string; text: string }> }) =>
  input.pendingMessages.map((m) => ({ type: 'reply' as const, turnId: m.turnId, text: `re: ${m.text}` }));

describe('preemption', () => {
  it('answers a user message first during a long autonomous think, then resumes the autonomous work', async () => {
    const firstGoalThink = deferred();
    const thinker = new ScriptedThinker(async (input, call) => {
      if (input.reason === 'goal_work' && call === 1) await firstGoalThink.promise; // long: never finishes by itself
      if (input.reason === 'goal_work') return [{ type: 'goal_progress', goalId: input.focusGoalId!, delta: 0.5 }];
      return replies(input);
    });
    h = await startRuntime({ thinker });
    const goal = h.runtime.addGoal({ title: 'Index the archive', dueAt: '2026-01-01T00:00:00.000Z' });
    await h.advance(1000);
    expect(h.runtime.status()).toMatchObject({ phase: 'think', activity: 'working' });

    const { turnId } = await h.runtime.send({ text: 'quick question' });
    expect(h.ofType('agent.preempted')).toMatchObject([{ reason: expect.stringContaining(turnId) }]);
    expect(h.ofType('agent.ack')).toEqual([expect.objectContaining({ turnId, text: ACK_TEXT })]);
    expect(thinker.aborted.map((c) => c.reason)).toEqual(['goal_work']);
    // Preempted at once: nothing of the autonomous think was applied.
    expect(h.runtime.listGoals()[0]!.progress).toBe(0);

    await h.advance(3000);
    expect(thinker.calls.map((c) => c.reason)).toEqual(['goal_work', 'user_message', 'goal_work', 'goal_work']);
    expect(h.ofType('agent.reply')).toMatchObject([{ turnId, text: 're: quick question' }]);
    expect(h.runtime.listGoals().find((g) => g.id === goal.id)).toMatchObject({ status: 'completed' });
    const types = h.events.map((e) => e.type);
    expect(types.indexOf('agent.reply')).toBeLessThan(types.indexOf('goal.updated'));
  });

  it('interrupts a user turn for another message by default, answering both in the next think', async () => {
    const slow = deferred();
    const thinker = new ScriptedThinker(async (input, call) => {
      if (call === 1) await slow.promise;
      return replies(input);
    });
    h = await startRuntime({ thinker });
    await h.runtime.send({ text: 'first' });
    await h.advance(1000);
    await h.runtime.send({ text: 'second' });
    expect(thinker.aborted).toHaveLength(1);
    await h.advance(1000);
    expect(thinker.calls[1]!.pendingMessages.map((m) => m.text)).toEqual(['first', 'second']);
    expect(h.ofType('agent.reply').map((r) => r.text)).toEqual(['re: first', 're: second']);
  });

  it('enqueues a message behind a running user turn with the enqueue strategy', async () => {
    const slow = deferred();
    const thinker = new ScriptedThinker(async (input, call) => {
      if (call === 1) await slow.promise;
      return replies(input);
    });
    h = await startRuntime({ thinker, config: { busyStrategy: 'enqueue' } });
    await h.runtime.send({ text: 'first' });
    await h.advance(1000);
    await h.runtime.send({ text: 'second' });
    expect(thinker.aborted).toHaveLength(0);
    expect(h.ofType('agent.preempted')).toHaveLength(0);
    slow.resolve();
    await h.advance(2000);
    expect(thinker.calls.map((c) => c.pendingMessages.map((m) => m.text))).toEqual([['first'], ['second']]);
  });

  it('rejects a message during a running user turn with AGENT_BUSY under the reject strategy, losing nothing', async () => {
    const slow = deferred();
    const thinker = new ScriptedThinker(async (input) => {
      await slow.promise;
      return replies(input);
    });
    h = await startRuntime({ thinker, config: { busyStrategy: 'reject' } });
    await h.runtime.send({ text: 'first' });
    await h.advance(1000);
    await expect(h.runtime.send({ text: 'second' })).rejects.toMatchObject({ code: 'AGENT_BUSY' });
    slow.resolve();
    await h.advance(1000);
    expect(h.ofType('agent.reply').map((r) => r.text)).toEqual(['re: first']);
    expect(h.ofType('agent.message')).toHaveLength(1);
  });

  it('resets a turn stuck longer than the limit and keeps beating', async () => {
    const thinker = new ScriptedThinker(async (input, call) => {
      if (call === 1) await new Promise(() => {}); // hangs forever
      return replies(input);
    });
    h = await startRuntime({ thinker, config: { stuckTurnS: 30 } });
    await h.runtime.send({ text: 'hello?' });
    await h.advance(31_000);
    expect(h.ofType('think.failed')).toMatchObject([{ code: 'THINK_STUCK' }]);
    expect(thinker.aborted).toHaveLength(1);
    await h.advance(2000);
    // The message was not lost: the next think answers it.
    expect(h.ofType('agent.reply')).toMatchObject([{ text: 're: hello?' }]);
  });

  it('lets a think take simulated time without real sleeps', async () => {
    const thinker = new ScriptedThinker(async (input) => {
      await delay(h!.clock, 5000);
      return replies(input);
    });
    h = await startRuntime({ thinker });
    await h.runtime.send({ text: 'take your time' });
    // The message wakes the heartbeat: the think starts at once and takes its 5 simulated seconds.
    await h.advance(4900);
    expect(h.ofType('agent.reply')).toHaveLength(0);
    await h.advance(200);
    expect(h.ofType('agent.reply')).toHaveLength(1);
  });
});
