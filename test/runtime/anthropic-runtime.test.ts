import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  apiError,
  message,
  startFakeMessagesApi,
  text,
  toolUse,
  type FakeMessagesApi,
} from '../fixtures/fake-messages-api.js';
import { startRuntime, type RuntimeHarness } from '../fixtures/runtime.fixture.js';

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

/** The runtime as `vigil run --thinker anthropic` builds it, pointed at the fake API. */
async function startAnthropic(config: Record<string, unknown> = {}): Promise<RuntimeHarness> {
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

describe('the runtime with the Anthropic thinker (real SDK, fake Messages API)', () => {
  it('prices each think from its usage, cache tokens included, with the stable prefix byte-identical', async () => {
    h = await startAnthropic();
    const first = await h.runtime.send({ text: 'hello' });
    api.enqueue(
      message([toolUse('reply', { turnId: first.turnId, text: 'Hi there.' })], {
        input_tokens: 1000,
        output_tokens: 200,
      }),
      message([text('done')], { input_tokens: 50, output_tokens: 10 }),
    );
    await h.advance(1000);
    await waitForEvents('think.completed', 1);
    // The truthful fake: the first call writes the prefix, the second (same prefix, within 5 minutes) reads it.
    const [completed] = h.ofType('think.completed');
    const prefix = completed!.cacheWriteTokens;
    expect(prefix).toBeGreaterThanOrEqual(1024);
    expect(completed).toMatchObject({
      model: 'claude-sonnet-5-5',
      inputTokens: 1050,
      outputTokens: 210,
      cacheReadTokens: prefix,
    });
    // Sonnet 5.5: $2 in, $10 out, $2.50 cache write, $0.10 cache read per million tokens; both calls of the tool loop.
    const firstCost = (1000 * 2 + 200 * 10 + prefix * 2.5 + 50 * 2 + 10 * 10 + prefix * 0.1) / 1_000_000;
    expect(completed!.costUsd).toBeCloseTo(firstCost, 5); // rounded up to whole micro-dollars
    expect(h.ofType('agent.reply')).toMatchObject([{ turnId: first.turnId, text: 'Hi there.' }]);

    const second = await h.runtime.send({ text: 'and again' });
    api.enqueue(
      message([toolUse('reply', { turnId: second.turnId, text: 'Again.' })], { input_tokens: 900, output_tokens: 100 }),
      message([text('ok')]),
    );
    await h.advance(1000);
    await waitForEvents('think.completed', 2);
    // The next think reads the whole prefix on both its calls; its first call writes the conversation so far (the
    // first exchange, its own blocks after the prefix), which its second call reads.
    const again = h.ofType('think.completed')[1]!;
    const conversation = again.cacheWriteTokens;
    expect(conversation).toBeGreaterThan(0);
    expect(conversation).toBeLessThan(200);
    expect(again).toMatchObject({ cacheReadTokens: 2 * prefix + conversation });
    expect(h.runtime.budgetStatus().spentTodayUsd).toBeCloseTo(completed!.costUsd + again.costUsd, 9);
    const status = h.runtime.budgetStatus();
    const prompt = (e: { inputTokens: number; cacheReadTokens: number; cacheWriteTokens: number }) =>
      e.inputTokens + e.cacheReadTokens + e.cacheWriteTokens;
    expect(status.cacheReadShareToday).toBeCloseTo(
      (3 * prefix + conversation) / (prompt(completed!) + prompt(again)),
      4,
    );
    expect(h.ofType('think.cache_miss')).toEqual([]);

    const [a, , b] = api.requests;
    expect(a!.body.system.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(a!.body.tools.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(JSON.stringify(b!.body.system)).toBe(JSON.stringify(a!.body.system));
    expect(JSON.stringify(b!.body.tools)).toBe(JSON.stringify(a!.body.tools));
    expect(JSON.stringify(a!.body.messages)).toContain('hello');
    expect(JSON.stringify(a!.body.system)).not.toContain('hello');
  });

  it('retries 429 and 529, then succeeds', async () => {
    h = await startAnthropic();
    const { turnId } = await h.runtime.send({ text: 'are you up?' });
    api.enqueue(
      apiError(429, 'rate_limit_error', { 'retry-after-ms': '1' }),
      apiError(529, 'overloaded_error', { 'retry-after-ms': '1' }),
      message([toolUse('reply', { turnId, text: 'Yes.' })], { input_tokens: 10, output_tokens: 5 }),
      message([text('ok')]),
    );
    await h.advance(1000);
    await waitForEvents('agent.reply', 1);
    expect(api.requests).toHaveLength(4);
    expect(h.ofType('think.failed')).toHaveLength(0);
  });

  it('charges nothing for a think that finally fails, and the heartbeat goes on and answers later', async () => {
    h = await startAnthropic();
    const { turnId } = await h.runtime.send({ text: 'still there?' });
    for (let i = 0; i < 5; i += 1) api.enqueue(apiError(500, 'api_error', { 'retry-after-ms': '1' }));
    await h.advance(1000);
    await waitForEvents('think.failed', 1);
    expect(api.requests).toHaveLength(5);
    expect(h.runtime.budgetStatus().spentTodayUsd).toBe(0);
    expect(h.ofType('think.completed')).toHaveLength(0);

    const beats = h.runtime.status().beatCount;
    api.enqueue(
      message([toolUse('reply', { turnId, text: 'Back.' })], { input_tokens: 10, output_tokens: 5 }),
      message([text('ok')]),
    );
    await h.advance(1000);
    await waitForEvents('agent.reply', 1);
    expect(h.runtime.status().beatCount).toBeGreaterThan(beats);
  });

  it('sends no request at all while asleep', async () => {
    h = await startAnthropic();
    const { turnId } = await h.runtime.send({ text: 'spend' });
    api.enqueue(
      message([toolUse('reply', { turnId, text: 'Spent.' })], { output_tokens: 95_000 }),
      message([text('ok')]),
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
