/** The runtime as `vigil run --thinker openai` builds it, against the fake Chat Completions API: pricing, the ledger, §7 refusals, sleep. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  chatError,
  completion,
  startFakeChatCompletions,
  toolCall,
  type FakeChatCompletions,
} from '../fixtures/fake-chat-completions.js';
import { startRuntime, type RuntimeHarness } from '../fixtures/runtime.fixture.js';

const MODEL = 'gpt-fake-1';
/** USD per million tokens, as VIGIL_PRICING_JSON gives them: cached input at a tenth, no cache writes. */
const PRICE = { inputPerMTok: 2, outputPerMTok: 10, cacheWritePerMTok: 0, cacheReadPerMTok: 0.2 };

let api: FakeChatCompletions;
let h: RuntimeHarness | undefined;
beforeEach(async () => {
  api = await startFakeChatCompletions();
});
afterEach(async () => {
  await h?.runtime.stop().catch(() => undefined);
  h = undefined;
  await api.close();
});

async function startOpenAi(config: Record<string, unknown> = {}): Promise<RuntimeHarness> {
  return startRuntime({
    config: {
      thinker: 'openai',
      openaiBaseUrl: api.url,
      model: MODEL,
      pricingOverrides: { [MODEL]: PRICE },
      dailyBudgetUsd: 1,
      ...config,
    },
  });
}

/** Waits (on real I/O, not on time) until `count` events of `type` have been emitted. */
async function waitForEvents(type: string, count: number): Promise<void> {
  await vi.waitFor(
    async () => {
      await h!.settle();
      expect(h!.events.filter((e) => e.type === type).length).toBeGreaterThanOrEqual(count);
    },
    { timeout: 10_000, interval: 5 },
  );
}

describe('the runtime with the OpenAI-compatible thinker (real SDK, fake Chat Completions API)', () => {
  it('answers, prices each think from its usage with cached tokens as cache reads, and books it in the ledger', async () => {
    h = await startOpenAi();
    const first = await h.runtime.send({ text: 'hello' });
    api.enqueue(
      completion(null, [toolCall('reply', { turnId: first.turnId, text: 'Hi there.' })], {
        prompt_tokens: 3000,
        completion_tokens: 200,
      }),
      completion('', [], { prompt_tokens: 3100, completion_tokens: 10 }),
    );
    await h.advance(1000);
    await waitForEvents('think.completed', 1);
    expect(h.ofType('agent.reply')).toMatchObject([{ turnId: first.turnId, text: 'Hi there.' }]);
    const [completed] = h.ofType('think.completed');
    // The second call of the loop repeats the first's prompt: the fake's prefix cache serves it.
    const cached = completed!.cacheReadTokens;
    expect(cached).toBeGreaterThan(1024);
    expect(completed).toMatchObject({
      model: MODEL,
      inputTokens: 6100 - cached,
      outputTokens: 210,
      cacheWriteTokens: 0,
    });
    const cost = ((6100 - cached) * 2 + 210 * 10 + cached * 0.2) / 1_000_000;
    expect(completed!.costUsd).toBeCloseTo(cost, 5);
    expect(h.runtime.budgetStatus().spentTodayUsd).toBeCloseTo(completed!.costUsd, 9);
    expect(h.runtime.status()).toMatchObject({ thinker: 'openai' });
  });

  it('ends the turn a 400 refuses with agent.unanswered THINK_REJECTED, once, and answers the next message', async () => {
    h = await startOpenAi();
    const refused = await h.runtime.send({ text: 'something the server refuses' });
    api.enqueue(chatError(400, 'invalid_request_error'));
    await h.advance(1000);
    await waitForEvents('agent.unanswered', 1);
    expect(h.ofType('agent.unanswered')).toMatchObject([{ turnId: refused.turnId, code: 'THINK_REJECTED' }]);
    expect(api.requests).toHaveLength(1);

    const next = await h.runtime.send({ text: 'and this?' });
    api.enqueue(completion('This one works.'));
    await h.advance(1000);
    await waitForEvents('agent.reply', 1);
    expect(h.ofType('agent.reply')).toMatchObject([{ turnId: next.turnId, text: 'This one works.' }]);
    expect(h.ofType('agent.unanswered')).toHaveLength(1);
  });

  it('sends no request at all while asleep over its budget', async () => {
    h = await startOpenAi();
    const { turnId } = await h.runtime.send({ text: 'spend' });
    api.enqueue(
      completion(null, [toolCall('reply', { turnId, text: 'Spent.' })], { completion_tokens: 95_000 }),
      completion(''),
    );
    await h.advance(1000);
    await waitForEvents('agent.sleeping', 1);
    const requests = api.requests.length;
    await h.runtime.send({ text: 'wake up' });
    await h.advance(60_000);
    expect(api.requests).toHaveLength(requests);
    expect(h.runtime.status().state).toBe('dormant');
  });
});
