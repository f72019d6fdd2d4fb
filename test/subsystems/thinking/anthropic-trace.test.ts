/** The Anthropic thinker's trace (CONTRACT §10): the real SDK against the fake Messages API, one entry per call and per tool call. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AnthropicThinker, type AnthropicThinkerOptions } from '../../../src/subsystems/thinking/anthropic-thinker.js';
import { callCostUsd } from '../../../src/subsystems/thinking/call-trace-recorder.js';
import { resolvePrice } from '../../../src/subsystems/thinking/pricing.js';
import { estimateTokens } from '../../../src/subsystems/thinking/token-estimate.js';
import type { ThinkResult } from '../../../src/subsystems/thinking/thinker.schema.js';
import {
  apiError,
  message,
  startFakeMessagesApi,
  text,
  tokenUsageOf,
  toolUse,
  type FakeMessagesApi,
} from '../../fixtures/fake-messages-api.js';
import { userMessageInput } from '../../fixtures/think-input.fixture.js';

const MODEL = 'claude-sonnet-4-6';
const PRICE = resolvePrice(MODEL);
const NOW = Date.parse('2026-03-01T08:00:00Z');
// retry-after-ms keeps the SDK's wait at 1 ms, so retries cost no real time.
const FAST = { 'retry-after-ms': '1' };
const live = () => new AbortController().signal;

let api: FakeMessagesApi;
beforeEach(async () => {
  api = await startFakeMessagesApi();
});
afterEach(async () => {
  await api.close();
});

function thinker(options: Partial<AnthropicThinkerOptions> = {}): AnthropicThinker {
  return new AnthropicThinker({
    apiKey: 'sk-test',
    baseURL: api.url,
    model: MODEL,
    price: PRICE,
    maxToolIterations: 4,
    maxRetries: 0,
    timeoutMs: 5000,
    now: () => NOW,
    ...options,
  });
}

describe('AnthropicThinker trace', () => {
  it('records each Messages call with its usage, own cost and stop reason, and each tool call', async () => {
    // Uncached input and output scripted; the cache counts are the fake's own (the first call writes the prefix, the second reads it).
    api.enqueue(
      message(
        [
          toolUse('reply', { turnId: 't-1', text: 'Hello, Ada.' }, 'toolu_r'),
          toolUse('goal_progress', { goalId: 'g-x', delta: 0.1 }, 'toolu_g'),
        ],
        { input_tokens: 40, output_tokens: 12 },
      ),
      message([text('done')], { input_tokens: 55, output_tokens: 8 }),
    );
    const result = await thinker().think(userMessageInput('Hi!', NOW), live());
    const trace = result.trace!;
    expect(trace.stopReason).toBe('end_turn');
    expect(trace.calls).toHaveLength(2);
    const [first, second] = api.requests.map((req) => tokenUsageOf(req.usage!));
    expect(first).toMatchObject({ inputTokens: 40, outputTokens: 12, cacheReadTokens: 0 });
    expect(first!.cacheWriteTokens).toBeGreaterThan(0);
    expect(second).toEqual({
      inputTokens: 55,
      outputTokens: 8,
      cacheWriteTokens: 0,
      cacheReadTokens: first!.cacheWriteTokens,
    });
    expect(trace.calls[0]).toMatchObject({
      model: MODEL,
      startedAt: NOW,
      retries: 0,
      stopReason: 'tool_use',
      ...first,
      costUsd: callCostUsd(first!, PRICE),
    });
    expect(trace.calls[1]).toMatchObject({ stopReason: 'end_turn', ...second, costUsd: callCostUsd(second!, PRICE) });
    for (const call of trace.calls) expect(call.durationMs).toBeGreaterThanOrEqual(0);
    // The think's charge is the calls' exact sum rounded up once to a micro-dollar.
    const sum = trace.calls.reduce((total, call) => total + call.costUsd, 0);
    expect(result.costMicroUsd).toBe(Math.ceil(Number((sum * 1e6).toFixed(6))));
    expect(trace.toolCalls).toEqual([
      { callId: 'toolu_r', name: 'reply', startedAt: NOW, durationMs: 0, ok: true, resultBytes: 2 },
      {
        callId: 'toolu_g',
        name: 'goal_progress',
        startedAt: NOW,
        durationMs: 0,
        ok: false,
        resultBytes: expect.any(Number),
      },
    ]);
  });

  it("gives the prompt's sections as sent: the cached prefix (tools, identity, instructions), then the state message's sections", async () => {
    api.enqueue(message([text('noted')]));
    const result = await thinker().think(userMessageInput('Hi!', NOW), live());
    const sections = result.trace!.sections;
    const request = api.requests[0]!.body;
    expect(sections.map((s) => s.name)).toEqual([
      'tools',
      'identity',
      'instructions',
      'heartbeat',
      'affect',
      'working_memory',
      'goals',
      'focus_goal',
      'pending_messages',
      'swarm_results',
      'notices',
    ]);
    expect(sections.filter((s) => s.cached === true).map((s) => s.name)).toEqual(['tools', 'identity', 'instructions']);
    expect(sections[0]!.text).toBe(JSON.stringify(request.tools));
    expect(sections[1]!.text).toBe(request.system[0].text);
    // Each count is the bound's own, conservative: never under the estimate of the text it stands for.
    for (const section of sections) expect(section.tokens).toBeGreaterThanOrEqual(estimateTokens(section.text!));
    // The state message is exactly its sections, joined.
    expect(
      sections
        .slice(3)
        .map((s) => s.text)
        .join('\n\n'),
    ).toBe(request.messages[0].content);
    expect(result.trace!.content).toEqual({
      system: request.system.map((b: { text: string }) => b.text).join('\n\n'),
      messages: [
        { role: 'user', text: request.messages[0].content },
        { role: 'assistant', text: 'noted' },
      ],
    });
  });

  it("counts the SDK's retries of a call from the HTTP attempts its fetch made", async () => {
    api.enqueue(
      apiError(529, 'overloaded_error', FAST),
      apiError(429, 'rate_limit_error', FAST),
      message([text('finally')], { input_tokens: 10, output_tokens: 2 }),
    );
    const result = await thinker({ maxRetries: 3 }).think(userMessageInput('Hi!', NOW), live());
    expect(api.requests).toHaveLength(3);
    expect(result.trace!.calls).toMatchObject([{ retries: 2, inputTokens: 10, stopReason: 'end_turn' }]);
  });

  it("records a call that failed after its retries with its error, in the failed think's partial trace", async () => {
    api.enqueue(
      message([toolUse('remember', { content: 'x', salience: 0.5 })], { input_tokens: 10, output_tokens: 5 }),
      apiError(500, 'api_error', FAST),
      apiError(500, 'api_error', FAST),
    );
    const err = await thinker({ maxRetries: 1 })
      .think(userMessageInput('Hi!', NOW), live())
      .then(
        () => ({ code: 'resolved', data: { partial: {} as ThinkResult } }),
        (e: unknown) => e as { code: string; data: { partial: ThinkResult } },
      );
    expect(err.code).toBe('THINK_FAILED');
    const trace = err.data.partial.trace!;
    expect(trace.stopReason).toBe('error');
    expect(trace.calls).toHaveLength(2);
    expect(trace.calls[1]).toMatchObject({
      retries: 1,
      costUsd: 0,
      inputTokens: 0,
      error: { type: expect.stringContaining('500'), message: expect.stringContaining('api_error') },
    });
    expect(trace.calls[1]).not.toHaveProperty('stopReason');
  });

  it('says the iteration guard ended a think that still asked for tools', async () => {
    api.enqueue(
      message([toolUse('remember', { content: 'a', salience: 0.5 })]),
      message([toolUse('remember', { content: 'b', salience: 0.5 })]),
    );
    const result = await thinker({ maxToolIterations: 2 }).think(userMessageInput('Hi!', NOW), live());
    expect(result.trace!.calls.map((c) => c.stopReason)).toEqual(['tool_use', 'tool_use']);
    expect(result.trace!.stopReason).toBe('max_tool_iterations');
  });
});
