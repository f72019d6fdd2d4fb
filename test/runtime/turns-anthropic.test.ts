import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  apiErrorBody,
  message,
  pendingTurnIds,
  startFakeMessagesApi,
  toolUse,
  type FakeMessagesApi,
  type FakeResponse,
} from '../fixtures/fake-messages-api.js';
import { startAnthropicRuntime, type AnthropicHarness } from '../faults/anthropic-harness.js';
import { MAX_UNANSWERED_THINKS } from '../../src/heartbeat/turn-book.js';

let api: FakeMessagesApi;
let h: AnthropicHarness | undefined;

beforeEach(async () => {
  api = await startFakeMessagesApi();
});
afterEach(async () => {
  await h?.runtime.stop();
  h = undefined;
  await api.close();
});

/** A think's first call answering every turn its prompt lists, each by its own id; the second call ends the loop. */
const replyToEach: FakeResponse = {
  kind: 'respond',
  respond: (request) =>
    message(pendingTurnIds(request).map((turnId) => toolUse('reply', { turnId, text: `answer to ${turnId}` }))),
};
const endTurn = (): FakeResponse => message([]);

/** Terminal events (reply or unanswered) for each turn id. */
function terminals(harness: AnthropicHarness): Map<string, string[]> {
  const byTurn = new Map<string, string[]>();
  for (const event of harness.events) {
    if (event.type !== 'agent.reply' && event.type !== 'agent.unanswered') continue;
    byTurn.set(event.turnId, [...(byTurn.get(event.turnId) ?? []), event.type]);
  }
  return byTurn;
}

describe('turns with the Anthropic thinker', () => {
  it('answers two messages carried by one think with one reply each, by turn id', async () => {
    h = await startAnthropicRuntime(api);
    // The first think hangs; the second message preempts it, and the next think carries both.
    api.enqueue({ kind: 'hang' }, replyToEach, endTurn());
    const first = await h.runtime.send({ text: 'What is the capital of France?' });
    await api.waitForRequests(1);
    const second = await h.runtime.send({ text: 'And of Italy?' });
    await h.runFor(2000);

    expect(pendingTurnIds(api.requests[1]!)).toEqual([first.turnId, second.turnId]);
    expect(h.ofType('agent.reply').map((e) => [e.turnId, e.text])).toEqual([
      [first.turnId, `answer to ${first.turnId}`],
      [second.turnId, `answer to ${second.turnId}`],
    ]);
    expect(terminals(h)).toEqual(
      new Map([
        [first.turnId, ['agent.reply']],
        [second.turnId, ['agent.reply']],
      ]),
    );
    expect(h.runtime.status().pendingMessages).toBe(0);
  });

  it('keeps a turn the model left unanswered open for the next think instead of marking it done', async () => {
    h = await startAnthropicRuntime(api);
    api.enqueue({ kind: 'hang' });
    const first = await h.runtime.send({ text: 'first' });
    await api.waitForRequests(1);
    const second = await h.runtime.send({ text: 'second' });
    // The think that carries both answers only the first; the second waits and is answered by the next think.
    api.enqueue(message([toolUse('reply', { turnId: first.turnId, text: 'one' })]), endTurn(), replyToEach, endTurn());
    await h.runFor(3000);

    expect(h.ofType('agent.reply').map((e) => e.turnId)).toEqual([first.turnId, second.turnId]);
    expect(pendingTurnIds(api.requests[3]!)).toEqual([second.turnId]);
    expect(h.ofType('agent.unanswered')).toHaveLength(0);
  });

  it(`ends a turn the model never answers with agent.unanswered NO_ANSWER after ${MAX_UNANSWERED_THINKS} thinks, then stops asking`, async () => {
    h = await startAnthropicRuntime(api);
    for (let i = 0; i < MAX_UNANSWERED_THINKS; i += 1) api.enqueue(endTurn());
    const { turnId } = await h.runtime.send({ text: 'are you there?' });
    await h.runFor(10_000);

    expect(api.requests).toHaveLength(MAX_UNANSWERED_THINKS);
    expect(h.ofType('agent.unanswered')).toMatchObject([{ turnId, code: 'NO_ANSWER' }]);
    expect(h.ofType('agent.reply')).toHaveLength(0);
    expect(h.runtime.status().pendingMessages).toBe(0);
    const conversation = await h.runtime.listConversation();
    expect(conversation.map((e) => [e.role, e.turnId, e.unanswered?.code])).toEqual([
      ['user', turnId, undefined],
      ['agent', turnId, 'NO_ANSWER'],
    ]);
  });

  const refusals: [number, string, string][] = [
    [400, 'invalid_request_error', 'prompt is too long: 212345 tokens > 200000 maximum'],
    [404, 'not_found_error', 'model: claude-nonexistent'],
    [413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.'],
  ];
  for (const [status, type, detail] of refusals) {
    it(`ends the turn with one THINK_REJECTED on HTTP ${status} and sends that turn no further request while beating on`, async () => {
      h = await startAnthropicRuntime(api);
      api.enqueue({ status, body: apiErrorBody(type, detail) });
      const { turnId } = await h.runtime.send({ text: 'a message the API refuses' });
      const beatsBefore = h.runtime.status().beatCount;
      await h.runFor(10_000);

      expect(api.requests).toHaveLength(1);
      expect(h.ofType('agent.unanswered')).toMatchObject([
        { turnId, code: 'THINK_REJECTED', reason: expect.stringContaining(detail) },
      ]);
      expect(h.ofType('think.failed')).toMatchObject([{ code: 'THINK_REJECTED' }]);
      expect(h.ofType('agent.reply')).toHaveLength(0);
      expect(h.runtime.status().beatCount).toBeGreaterThanOrEqual(beatsBefore + 9);
      expect(h.runtime.status().consecutiveFailures).toBe(0);
    });
  }

  it('ends a turn left pending by kill -9 exactly once after the restart, answered by the next think', async () => {
    h = await startAnthropicRuntime(api);
    // The first life's think never returns: the turn is open when the process dies.
    api.enqueue({ kind: 'hang' });
    const { turnId } = await h.runtime.send({ text: 'still there?' });
    await api.waitForRequests(1);
    await h.crash();
    api.enqueue(replyToEach, endTurn());
    const again = await startAnthropicRuntime(api, { db: h.db, clock: h.clock });
    h = again;
    await again.runFor(1000);

    expect(pendingTurnIds(api.requests[1]!)).toEqual([turnId]);
    const history = await again.runtime.history({ types: ['agent.reply', 'agent.unanswered'], limit: 100 });
    expect(history.map((e) => [e.type, (e as { turnId: string }).turnId])).toEqual([['agent.reply', turnId]]);
    expect(again.runtime.status().pendingMessages).toBe(0);
  });

  it('drops autonomous work the API refuses for good with agent.work_dropped, and keeps the goal', async () => {
    h = await startAnthropicRuntime(api, { goalWorkEveryBeats: 1000 });
    api.enqueue({ status: 400, body: apiErrorBody('invalid_request_error', 'prompt is too long') });
    const goal = h.runtime.addGoal({ title: 'Sort the archive', dueAt: new Date(h.clock.now() - 1000).toISOString() });
    await h.runFor(1500);

    expect(h.ofType('agent.work_dropped')).toMatchObject([
      { work: 'goal_work', goalId: goal.id, code: 'THINK_REJECTED' },
    ]);
    expect(h.runtime.listGoals()).toMatchObject([{ id: goal.id, status: 'active' }]);
  });
});
