import { afterEach, describe, expect, it } from 'vitest';
import { VigilError } from '../../src/errors.js';
import { RESUME_NOTICE } from '../../src/heartbeat/turn-tracker.js';
import { SLEEPING_ACK_TEXT } from '../../src/runtime/runtime.js';
import type { ThinkAction } from '../../src/subsystems/thinking/thinker.schema.js';
import { deferred, startRuntime, type RuntimeHarness } from '../fixtures/runtime.fixture.js';
import { ScriptedThinker } from '../fixtures/scripted-thinker.js';

let h: RuntimeHarness | undefined;
afterEach(async () => {
  await h?.runtime.stop().catch(() => undefined);
  h = undefined;
});

const answerAll = (input: { pendingMessages: Array<{ turnId: string; text: string }> }): ThinkAction[] =>
  input.pendingMessages.map((m) => ({ type: 'reply', turnId: m.turnId, text: `re: ${m.text}` }));

describe('turns', () => {
  it('starts the think for a message at once, without waiting out a 30 s beat interval', async () => {
    const thinker = new ScriptedThinker();
    h = await startRuntime({ thinker, config: { beatMs: 30_000, beatMinMs: 30_000, beatMaxMs: 30_000 } });
    const { turnId } = await h.runtime.send({ text: 'hello' });
    await h.settle();
    // No simulated time has passed: the message woke the heartbeat.
    expect(thinker.calls).toHaveLength(1);
    expect(h.ofType('agent.reply')).toMatchObject([{ turnId, text: 're: hello' }]);
  });

  it('while asleep over the budget makes no think, acks at once with the wake time, and replies after a top-up', async () => {
    const thinker = new ScriptedThinker();
    thinker.costMicroUsd = 1_200_000;
    h = await startRuntime({ thinker, config: { dailyBudgetUsd: 1 } });
    await h.runtime.send({ text: 'spend it' });
    await h.advance(2000);
    expect(h.runtime.status().state).toBe('dormant');
    const calls = thinker.calls.length;

    const { turnId } = await h.runtime.send({ text: 'are you awake?' });
    await h.advance(5000);
    expect(thinker.calls).toHaveLength(calls);
    const ack = h.ofType('agent.ack').find((e) => e.turnId === turnId);
    expect(ack?.text).toContain(SLEEPING_ACK_TEXT);
    expect(ack?.text).toContain('2026-03-02T00:00:00.000Z');

    thinker.costMicroUsd = 0;
    await h.runtime.topUp({ amountUsd: 5 });
    await h.settle();
    expect(h.ofType('agent.reply').filter((e) => e.turnId === turnId)).toHaveLength(1);
  });

  it('keeps what a preempted autonomous think completed and resumes that work, told it was interrupted', async () => {
    const gate = deferred();
    const thinker = new ScriptedThinker(async (input, call) => {
      if (input.reason !== 'goal_work') return answerAll(input);
      if (call === 1) {
        // The model remembered something, then was still thinking when the user wrote.
        thinker.partial = [{ type: 'remember', content: 'the archive has 3 shelves', salience: 0.9 }];
        await gate.promise;
      }
      return [{ type: 'goal_progress', goalId: input.focusGoalId!, delta: 0.5 }];
    });
    h = await startRuntime({ thinker, goalWorkEveryBeats: 1000 });
    const goal = h.runtime.addGoal({ title: 'Index the archive', dueAt: '2026-01-01T00:00:00.000Z' });
    await h.advance(1000);
    await h.runtime.send({ text: 'quick question' });
    await h.advance(2000);

    expect(h.runtime.listMemory().map((m) => m.content)).toContain('the archive has 3 shelves');
    const reasons = thinker.calls.map((c) => c.reason);
    expect(reasons.slice(0, 3)).toEqual(['goal_work', 'user_message', 'goal_work']);
    expect(thinker.calls[2]).toMatchObject({ focusGoalId: goal.id, notices: expect.arrayContaining([RESUME_NOTICE]) });
  });

  it('keeps a turn whose think started a sub-agent task open until the task result is answered', async () => {
    const thinker = new ScriptedThinker((input) => {
      if (input.reason === 'user_message') return [{ type: 'spawn_task', prompt: 'look into tides' }];
      return input.swarmResults.map((r) => ({ type: 'reply' as const, turnId: r.turnId, text: `found: ${r.text}` }));
    });
    h = await startRuntime({ thinker });
    const { turnId } = await h.runtime.send({ text: 'research tides' });
    await h.advance(5000);
    expect(thinker.tasks).toHaveLength(1);
    expect(thinker.calls.map((c) => c.reason)).toEqual(['user_message', 'swarm_results']);
    expect(thinker.calls[1]!.pendingMessages.map((m) => m.turnId)).toEqual([turnId]);
    expect(h.ofType('agent.reply')).toMatchObject([{ turnId, text: 'found: done: look into tides' }]);
  });

  it('sends a reply aimed at an already answered turn under the think’s own turn id, never a second reply', async () => {
    let answered = '';
    const thinker = new ScriptedThinker((input) => {
      if (input.reason === 'user_message') {
        answered = input.pendingMessages[0]!.turnId;
        return [
          ...answerAll(input),
          { type: 'goal_add', title: 'Follow up', dueAt: Date.parse('2026-01-01T00:00:00Z') },
        ];
      }
      return [{ type: 'reply', turnId: answered, text: 'one more thing' }];
    });
    h = await startRuntime({ thinker });
    await h.runtime.send({ text: 'hi' });
    await h.advance(3000);
    const replies = h.ofType('agent.reply');
    expect(replies.filter((r) => r.turnId === answered)).toHaveLength(1);
    expect(replies.find((r) => r.text === 'one more thing')?.turnId).toMatch(/^auto-/);
  });

  it('ends the turns of a think the local bound refused as CONTEXT_TOO_SMALL, and answers the next message', async () => {
    const thinker = new ScriptedThinker((input, call) => {
      if (call === 1)
        throw new VigilError(
          'CONTEXT_TOO_SMALL',
          'The prompt cannot fit VIGIL_CONTEXT_TOKENS=4096. Raise VIGIL_CONTEXT_TOKENS.',
        );
      return answerAll(input);
    });
    h = await startRuntime({ thinker });
    const refused = await h.runtime.send({ text: 'a long one' });
    await h.advance(1000);
    const next = await h.runtime.send({ text: 'a short one' });
    await h.advance(1000);

    expect(h.ofType('agent.unanswered')).toMatchObject([
      { turnId: refused.turnId, code: 'CONTEXT_TOO_SMALL', reason: expect.stringContaining('VIGIL_CONTEXT_TOKENS') },
    ]);
    expect(h.ofType('think.failed')).toMatchObject([{ code: 'CONTEXT_TOO_SMALL' }]);
    expect(h.ofType('agent.reply')).toMatchObject([{ turnId: next.turnId, text: 're: a short one' }]);
    expect(thinker.calls.map((c) => c.pendingMessages.map((m) => m.turnId))).toEqual([[refused.turnId], [next.turnId]]);
    expect(h.runtime.status().consecutiveFailures).toBe(0);
  });

  it('ends turns opened after a restored checkpoint as TURN_CANCELLED, and never re-answers one answered after it', async () => {
    const gate = deferred();
    const thinker = new ScriptedThinker(async (input) => {
      if (input.pendingMessages.some((m) => m.text === 'slow')) await gate.promise;
      return answerAll(input);
    });
    h = await startRuntime({ thinker, config: { checkpointEnabled: false } });
    const early = await h.runtime.send({ text: 'early' });
    await h.settle();
    const checkpoint = h.runtime.createCheckpoint();
    await h.settle();
    const { id } = await checkpoint;
    const late = await h.runtime.send({ text: 'late' });
    await h.settle();
    const pending = await h.runtime.send({ text: 'slow' });
    await h.settle();
    gate.resolve();
    const restoring = h.runtime.restoreCheckpoint(id, { confirm: true });
    await h.advance(1000);
    await restoring;
    await h.advance(3000);

    const terminal = h.events.filter((e) => e.type === 'agent.reply' || e.type === 'agent.unanswered');
    for (const turn of [early, late, pending]) expect(terminal.filter((e) => e.turnId === turn.turnId)).toHaveLength(1);
    expect(h.runtime.status().pendingMessages).toBe(0);
  });

  it('lists the conversation newest last, paging backwards with before', async () => {
    h = await startRuntime({ thinker: new ScriptedThinker() });
    for (const text of ['one', 'two', 'three']) {
      await h.runtime.send({ text, from: 'ada' });
      await h.settle();
    }
    const all = await h.runtime.listConversation();
    expect(all.map((e) => [e.role, e.text])).toEqual([
      ['user', 'one'],
      ['agent', 're: one'],
      ['user', 'two'],
      ['agent', 're: two'],
      ['user', 'three'],
      ['agent', 're: three'],
    ]);
    expect(all[0]).toMatchObject({ from: 'ada', turnId: expect.stringMatching(/^t-/), at: expect.any(String) });
    const page = await h.runtime.listConversation({ before: all[4]!.seq, limit: 2 });
    expect(page.map((e) => e.text)).toEqual(['two', 're: two']);
  });
});
