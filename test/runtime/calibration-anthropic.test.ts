import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  message,
  pendingTurnIds,
  startFakeMessagesApi,
  toolUse,
  type FakeMessagesApi,
  type FakeResponse,
} from '../fixtures/fake-messages-api.js';
import { MODEL, startAnthropicRuntime, type AnthropicHarness } from '../faults/anthropic-harness.js';
import { LEVELS } from '../faults/recording-logger.js';
import { startRuntime, type RuntimeHarness } from '../fixtures/runtime.fixture.js';
import { AnthropicThinker } from '../../src/subsystems/thinking/anthropic-thinker.js';
import { resolvePrice } from '../../src/subsystems/thinking/pricing.js';

let api: FakeMessagesApi;
let h: AnthropicHarness | RuntimeHarness | undefined;
beforeEach(async () => {
  api = await startFakeMessagesApi();
});
afterEach(async () => {
  await h?.runtime.stop();
  h = undefined;
  await api.close();
});

/** A think's first call answering every turn its prompt lists; `inputTokens` scripts the usage it reports. */
const replyToEach = (inputTokens?: number): FakeResponse => ({
  kind: 'respond',
  respond: (request) =>
    message(
      pendingTurnIds(request).map((turnId) => toolUse('reply', { turnId, text: `answer to ${turnId}` })),
      inputTokens === undefined ? {} : { input_tokens: inputTokens },
    ),
});

describe('token calibration in the runtime with the Anthropic thinker', () => {
  it('answers every message after a think reported 1,000,000 input tokens and a top-up woke the agent', async () => {
    const harness = await startAnthropicRuntime(api, { config: { dailyBudgetUsd: 1 } });
    h = harness;
    // $2 per million input tokens: the first think alone spends twice the daily cap, and the agent sleeps.
    api.enqueue(replyToEach(1_000_000), message([]));
    const first = await h.runtime.send({ text: 'hello' });
    await harness.runFor(2000);
    expect(h.ofType('agent.reply')).toMatchObject([{ turnId: first.turnId }]);
    expect(h.runtime.status().state).toBe('dormant');
    // Reported: the scripted input with the prefix the call wrote to the cache; estimated: a few thousand tokens.
    const usage = api.requests[0]!.usage!;
    const reported = usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens;
    expect(h.ofType('think.usage_implausible')).toMatchObject([{ reported, estimated: expect.any(Number) }]);
    expect(h.ofType('think.usage_implausible')[0]!.estimated).toBeLessThan(10_000);
    expect(harness.records.some((r) => r.level === LEVELS.warn && r.msg === 'think.usage_implausible')).toBe(true);

    await h.runtime.topUp({ amountUsd: 10 });
    for (const text of ['one', 'two', 'three']) {
      api.enqueue(replyToEach(), message([]));
      const { turnId } = await h.runtime.send({ text });
      await harness.runFor(2000);
      expect(h.ofType('agent.reply').at(-1)).toMatchObject({ turnId, text: `answer to ${turnId}` });
    }
    expect(h.ofType('agent.reply')).toHaveLength(4);
    expect(h.ofType('agent.unanswered')).toEqual([]);
    expect(h.ofType('think.failed')).toEqual([]);
    expect(api.requests).toHaveLength(8);
  });

  it('ends each turn a too-small bound refuses as CONTEXT_TOO_SMALL, before any API call, and tries the next message afresh', async () => {
    const thinker = new AnthropicThinker({
      apiKey: 'sk-test',
      baseURL: api.url,
      model: MODEL,
      price: resolvePrice(MODEL),
      maxToolIterations: 4,
      maxRetries: 0,
    });
    // An identity of some 5,000 estimated tokens: the fixed prefix alone is over the smallest bound allowed.
    const runtime = await startRuntime({
      thinker,
      identity: `You are Vigil. ${'Mind the tides. '.repeat(1000)}`,
      config: { contextTokens: 4096 },
    });
    h = runtime;
    const first = await runtime.runtime.send({ text: 'hello' });
    await runtime.advance(1000);
    const second = await runtime.runtime.send({ text: 'still there?' });
    await runtime.advance(1000);

    expect(api.requests).toHaveLength(0);
    const refused = { code: 'CONTEXT_TOO_SMALL', reason: expect.stringContaining('VIGIL_CONTEXT_TOKENS=4096') };
    expect(runtime.ofType('agent.unanswered')).toMatchObject([
      { turnId: first.turnId, ...refused },
      { turnId: second.turnId, ...refused },
    ]);
    expect(runtime.ofType('think.failed')).toMatchObject([
      { code: 'CONTEXT_TOO_SMALL' },
      { code: 'CONTEXT_TOO_SMALL' },
    ]);
    expect(runtime.runtime.status().consecutiveFailures).toBe(0);
    const conversation = await runtime.runtime.listConversation();
    expect(conversation.filter((e) => e.role === 'agent').map((e) => e.unanswered?.code)).toEqual([
      'CONTEXT_TOO_SMALL',
      'CONTEXT_TOO_SMALL',
    ]);
  });
});
