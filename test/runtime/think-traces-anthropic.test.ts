/** Think traces with the real Anthropic SDK against the fake Messages API: totals are the sums of the calls, text only with content on. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ThinkTraceSchema, type ThinkTraceSummary } from '../../src/protocol/think-trace.schema.js';
import {
  apiError,
  message,
  startFakeMessagesApi,
  text,
  toolUse,
  type FakeMessagesApi,
} from '../fixtures/fake-messages-api.js';
import { startRuntime, type RuntimeHarness } from '../fixtures/runtime.fixture.js';
import { startAnthropicRuntime } from '../faults/anthropic-harness.js';

let api: FakeMessagesApi;
let h: RuntimeHarness | undefined;
beforeEach(async () => {
  api = await startFakeMessagesApi();
});
afterEach(async () => {
  await h?.runtime.stop().catch(() => undefined);
  h = undefined;
  await api.close();
});

/** The runtime as `vigil run --thinker anthropic` builds it (config path), pointed at the fake API. */
function startAnthropic(config: Record<string, unknown> = {}): Promise<RuntimeHarness> {
  return startRuntime({
    config: {
      thinker: 'anthropic',
      anthropicApiKey: 'sk-test',
      anthropicBaseUrl: api.url,
      model: 'claude-sonnet-5-5',
      dailyBudgetUsd: 1,
      ...config,
    },
  });
}

/** Waits on real I/O until `count` thinks are traced. */
async function traced(harness: RuntimeHarness, count: number): Promise<void> {
  await vi.waitFor(
    async () => {
      await harness.settle();
      expect(harness.ofType('think.traced').length).toBeGreaterThanOrEqual(count);
    },
    { timeout: 10_000, interval: 5 },
  );
}

/** Every total of a summary against the sum of its calls. */
function expectTotalsAreSums(think: ThinkTraceSummary): void {
  const sum = (pick: (c: ThinkTraceSummary['calls'][number]) => number) =>
    think.calls.reduce((total, call) => total + pick(call), 0);
  expect(think.inputTokens).toBe(sum((c) => c.inputTokens));
  expect(think.outputTokens).toBe(sum((c) => c.outputTokens));
  expect(think.cacheReadTokens).toBe(sum((c) => c.cacheReadTokens));
  expect(think.cacheWriteTokens).toBe(sum((c) => c.cacheWriteTokens));
  expect(think.costUsd).toBeCloseTo(
    sum((c) => c.costUsd),
    12,
  );
}

describe('think traces with the Anthropic thinker (real SDK, fake Messages API)', () => {
  it('lists and gets each think with totals equal to the sums of its calls, retries counted, no prompt text by default', async () => {
    h = await startAnthropic();
    const { turnId } = await h.runtime.send({ text: 'Tell me the secret word: marmalade.' });
    api.enqueue(
      apiError(529, 'overloaded_error', { 'retry-after-ms': '1' }),
      message([toolUse('reply', { turnId, text: 'Noted.' })]),
      message([text('done')]),
    );
    await h.advance(1000);
    await traced(h, 1);
    const [think] = await h.runtime.listThinks();
    expect(think).toMatchObject({
      turnIds: [turnId],
      reason: 'user_message',
      model: 'claude-sonnet-5-5',
      stopReason: 'end_turn',
    });
    expect(think!.calls.map((c) => [c.retries, c.stopReason])).toEqual([
      [1, 'tool_use'],
      [0, 'end_turn'],
    ]);
    expect(think!.toolCalls).toMatchObject([{ name: 'reply', ok: true }]);
    // Calls are timed on the runtime's clock (simulated here), like the think itself.
    for (const call of think!.calls) expect(call.startedAt - think!.startedAt).toBeGreaterThanOrEqual(0);
    for (const call of think!.calls) expect(call.startedAt - think!.startedAt).toBeLessThanOrEqual(1000);
    expectTotalsAreSums(think!);
    // As the (truthful) fake answered: the totals are the sums of what it reported for the two answered requests.
    const reported = api.requests.filter((r) => r.usage !== undefined).map((r) => r.usage!);
    expect(reported).toHaveLength(2);
    expect(think).toMatchObject({
      inputTokens: reported[0]!.input_tokens + reported[1]!.input_tokens,
      outputTokens: reported[0]!.output_tokens + reported[1]!.output_tokens,
    });
    // The ledger's charge is the same money, rounded up once to a micro-dollar.
    const completed = h.ofType('think.completed')[0]!;
    expect(completed.costUsd - think!.costUsd).toBeGreaterThanOrEqual(0);
    expect(completed.costUsd - think!.costUsd).toBeLessThan(1e-6);

    const full = await h.runtime.getThink(think!.id);
    expect(ThinkTraceSchema.parse(full)).toEqual(full);
    expect({ ...full, sections: undefined }).toEqual({ ...think, sections: undefined });
    expect(full.sections.length).toBeGreaterThan(5);
    for (const section of full.sections)
      expect(section).toEqual({
        name: section.name,
        tokens: expect.any(Number),
        ...(section.cached === undefined ? {} : { cached: true }),
      });
    expect(full).not.toHaveProperty('content');
    expect(JSON.stringify(full)).not.toContain('marmalade');
  });

  it('keeps the prompt and answer text with VIGIL_TRACE_CONTENT=true', async () => {
    h = await startAnthropicRuntime(api, { config: { traceContent: true } });
    const { turnId } = await h.runtime.send({ text: 'Tell me the secret word: marmalade.' });
    api.enqueue(
      message([toolUse('reply', { turnId, text: 'The word is marmalade.' })], { input_tokens: 100, output_tokens: 20 }),
      message([text('done')], { input_tokens: 10, output_tokens: 2 }),
    );
    await h.advance(1000);
    await traced(h, 1);
    const [think] = await h.runtime.listThinks();
    expectTotalsAreSums(think!);
    const full = await h.runtime.getThink(think!.id);
    expect(full.sections.find((s) => s.name === 'pending_messages')?.text).toContain('marmalade');
    expect(full.sections.find((s) => s.name === 'instructions')?.text).toContain('# How you work');
    expect(full.content?.system).toContain('# How you work');
    expect(full.content?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(full.content?.messages[1]?.text).toContain('The word is marmalade.');
  });

  it('traces a think the API refused for good, with the failed call and its error', async () => {
    h = await startAnthropicRuntime(api);
    await h.runtime.send({ text: 'too long' });
    api.enqueue(apiError(400, 'invalid_request_error'));
    await h.advance(1000);
    await traced(h, 1);
    const [think] = await h.runtime.listThinks();
    expect(think).toMatchObject({ stopReason: 'error', error: { code: 'THINK_REJECTED' }, costUsd: 0 });
    expect(think!.calls).toMatchObject([{ retries: 0, error: { type: expect.stringContaining('400') } }]);
  });
});
