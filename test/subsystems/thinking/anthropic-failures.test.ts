import Anthropic from '@anthropic-ai/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VigilError, isVigilError } from '../../../src/errors.js';
import { AnthropicThinker, type AnthropicThinkerOptions } from '../../../src/subsystems/thinking/anthropic-thinker.js';
import { costMicroUsd, resolvePrice } from '../../../src/subsystems/thinking/pricing.js';
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

const input = userMessageInput('Hello?', NOW);
const ok = () =>
  message([toolUse('reply', { turnId: 't-1', text: 'Hello, Ada.' })], { input_tokens: 10, output_tokens: 5 });
const done = () => message([text('done')]);
const live = () => new AbortController().signal;

let api: FakeMessagesApi;
beforeEach(async () => {
  api = await startFakeMessagesApi();
});
afterEach(async () => {
  await api.close();
});

function thinker(options: Partial<AnthropicThinkerOptions> = {}): AnthropicThinker {
  const base = {
    apiKey: 'sk-test',
    baseURL: api.url,
    model: MODEL,
    price: PRICE,
    maxToolIterations: 4,
    timeoutMs: 5000,
  };
  return new AnthropicThinker({ ...base, ...options });
}

/** The VigilError a promise rejects with (fails the test if it resolves or rejects with something else). */
async function rejection(promise: Promise<unknown>): Promise<VigilError & { data: any }> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(VigilError);
  return err as VigilError & { data: any };
}

const ZERO = { inputTokens: 0, outputTokens: 0, cacheWriteTokens: 0, cacheReadTokens: 0 };

/** The usage the fake answered request `i` with (it counts cache reads and writes truthfully). */
const answered = (i: number) => tokenUsageOf(api.requests[i]!.usage!);

/** The first call of a think: the scripted 10 in and 5 out, and the whole prefix written to the cache. */
function expectFirstCall(usage: typeof ZERO): void {
  expect(usage).toMatchObject({ inputTokens: 10, outputTokens: 5, cacheReadTokens: 0 });
  expect(usage.cacheWriteTokens).toBeGreaterThan(1000);
}

describe('AnthropicThinker retries', () => {
  it('retries a 429 (honouring retry-after) and then succeeds', async () => {
    api.enqueue(apiError(429, 'rate_limit_error', { 'retry-after': '0.001' }), ok(), done());
    const result = await thinker({ maxRetries: 2 }).think(input, live());
    expect(result.actions).toEqual([{ type: 'reply', turnId: 't-1', text: 'Hello, Ada.' }]);
    expect(api.requests).toHaveLength(3);
    expect(api.requests[1]!.headers['x-stainless-retry-count']).toBe('1');
    // The failed attempt charges nothing: the usage is that of the two answered calls.
    expect(api.requests[0]!.usage).toBeUndefined();
    expectFirstCall(answered(1));
    const [a, b] = [answered(1), answered(2)];
    expect(result.usage).toEqual({
      inputTokens: a.inputTokens + b.inputTokens,
      outputTokens: a.outputTokens + b.outputTokens,
      cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
      cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    });
  });

  it('retries a 529 overloaded error and then succeeds', async () => {
    api.enqueue(apiError(529, 'overloaded_error', FAST), apiError(529, 'overloaded_error', FAST), ok(), done());
    const result = await thinker({ maxRetries: 2 }).think(input, live());
    expect(result.actions).toHaveLength(1);
    expect(api.requests).toHaveLength(4);
  });

  it('fails with THINK_FAILED after maxRetries + 1 attempts of a 500, charging nothing', async () => {
    for (let i = 0; i < 7; i++) api.enqueue(apiError(500, 'api_error', FAST));
    const err = await rejection(thinker().think(input, live())); // default maxRetries: 4
    expect(err.code).toBe('THINK_FAILED');
    expect(api.requests).toHaveLength(5);
    expect(err.data.status).toBe(500);
    expect(err.data.retryable).toBe(true);
    expect(err.data.partial).toEqual({
      model: MODEL,
      actions: [],
      usage: ZERO,
      costMicroUsd: 0,
      trace: expect.any(Object),
    });
    expect(err.message).toContain('HTTP 500 api_error');
  });

  it('does not retry a 401 and says why', async () => {
    api.enqueue(apiError(401, 'authentication_error', FAST), ok());
    const err = await rejection(thinker().think(input, live()));
    expect(err.code).toBe('THINK_AUTH_FAILED');
    expect(api.requests).toHaveLength(1);
    expect(err.data).toMatchObject({ status: 401, retryable: false });
    expect(err.message).toContain('HTTP 401 authentication_error');
    expect(err.cause).toBeInstanceOf(Anthropic.AuthenticationError);
  });

  it('does not retry a 400', async () => {
    api.enqueue(apiError(400, 'invalid_request_error', FAST), ok());
    const err = await rejection(thinker().think(input, live()));
    expect(api.requests).toHaveLength(1);
    expect(err.data).toMatchObject({ status: 400, retryable: false });
  });

  it('charges the calls that completed when a later call fails, and not the failed one', async () => {
    api.enqueue(ok(), apiError(500, 'api_error', FAST));
    const err = await rejection(thinker({ maxRetries: 0 }).think(input, live()));
    expect(err.code).toBe('THINK_FAILED');
    const firstCall = answered(0);
    expectFirstCall(firstCall);
    expect(err.data.partial).toEqual({
      model: MODEL,
      actions: [],
      usage: firstCall,
      costMicroUsd: costMicroUsd(firstCall, PRICE),
      trace: expect.any(Object),
    });
    expect(err.data.partial.costMicroUsd).toBe(30 + 75 + Math.ceil(firstCall.cacheWriteTokens * 3.75));
  });

  it('retries an attempt that timed out', async () => {
    api.enqueue({ kind: 'hang' }, ok(), done());
    // The timeout holds for every attempt: long enough that the answered ones never reach it on a loaded machine.
    const result = await thinker({ maxRetries: 1, timeoutMs: 1000 }).think(input, live());
    expect(result.actions).toHaveLength(1);
    expect(api.requests).toHaveLength(3);
  });

  it('fails with a retryable THINK_FAILED and no status when every attempt times out', async () => {
    api.enqueue({ kind: 'hang' });
    const err = await rejection(thinker({ maxRetries: 0, timeoutMs: 100 }).think(input, live()));
    expect(err.code).toBe('THINK_FAILED');
    expect(err.data).toMatchObject({ status: undefined, retryable: true });
    expect(err.cause).toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
  });

  it('fails with a retryable THINK_FAILED on a dropped connection or a malformed body', async () => {
    api.enqueue(
      { kind: 'reset' },
      { kind: 'raw', text: '{"id": "msg_1", "content": [' },
      { body: { type: 'message' } },
    );
    for (const kind of ['could not reach the API', 'got a malformed response', 'got a malformed response']) {
      const err = await rejection(thinker({ maxRetries: 0 }).think(input, live()));
      expect(err.code).toBe('THINK_FAILED');
      expect(err.data).toMatchObject({ status: undefined, retryable: true, partial: { costMicroUsd: 0 } });
      expect(err.message).toContain(kind);
    }
  });
});

describe('AnthropicThinker abort', () => {
  it('rejects with THINK_ABORTED and sends nothing when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('hard stop'));
    const err = await rejection(thinker().think(input, controller.signal));
    expect(err.code).toBe('THINK_ABORTED');
    expect(api.requests).toHaveLength(0);
    expect(err.data.partial).toEqual({
      model: MODEL,
      actions: [],
      usage: ZERO,
      costMicroUsd: 0,
      trace: expect.any(Object),
    });
  });

  it('aborts mid-call, keeping the cost and the actions of the completed calls (a preempted think keeps its work)', async () => {
    api.enqueue(ok(), { kind: 'hang' });
    const controller = new AbortController();
    const thinking = thinker().think(input, controller.signal);
    await api.waitForRequests(2);
    controller.abort(new Error('user message arrived'));
    const err = await rejection(thinking);
    expect(err.code).toBe('THINK_ABORTED');
    expect(err.message).toContain('user message arrived');
    const firstCall = answered(0);
    expectFirstCall(firstCall);
    const reply = { type: 'reply', turnId: 't-1', text: 'Hello, Ada.' };
    expect(err.data.partial).toEqual({
      model: MODEL,
      actions: [reply],
      usage: firstCall,
      costMicroUsd: costMicroUsd(firstCall, PRICE),
      trace: expect.any(Object),
    });
  });

  it('does not wait out a long retry-after once aborted', async () => {
    api.enqueue(apiError(429, 'rate_limit_error', { 'retry-after': '60' }), ok());
    const controller = new AbortController();
    const thinking = thinker().think(input, controller.signal);
    await api.waitForRequests(1);
    controller.abort(new Error('preempted'));
    const err = await rejection(thinking);
    expect(err.code).toBe('THINK_ABORTED');
    expect(api.requests).toHaveLength(1);
  });

  it('aborts at the safe point between iterations without starting the next call', async () => {
    const controller = new AbortController();
    const sdk = new Anthropic({ apiKey: 'sk-test', baseURL: api.url, maxRetries: 0 });
    // The real client, with the abort landing right after the first call has fully completed.
    const client = {
      messages: {
        create: async (...args: Parameters<typeof sdk.messages.create>) => {
          const response = await sdk.messages.create(...args);
          controller.abort(new Error('user message arrived'));
          return response;
        },
      },
    } as unknown as Anthropic;
    api.enqueue(ok(), ok());
    const err = await rejection(thinker({ client }).think(input, controller.signal));
    expect(err.code).toBe('THINK_ABORTED');
    expect(api.requests).toHaveLength(1);
    const partial = err.data.partial as ThinkResult;
    expect(partial.actions).toEqual([{ type: 'reply', turnId: 't-1', text: 'Hello, Ada.' }]);
    expectFirstCall(partial.usage);
    expect(partial.usage).toEqual(answered(0));
    expect(partial.costMicroUsd).toBe(costMicroUsd(partial.usage, PRICE));
  });

  it('aborts a swarm task mid-call', async () => {
    api.enqueue({ kind: 'hang' });
    const controller = new AbortController();
    const running = thinker().runTask(
      { taskId: 'task-1', prompt: 'dig', identity: 'You are Vigil.' },
      controller.signal,
    );
    await api.waitForRequests(1);
    controller.abort(new Error('hard stop'));
    const err = await rejection(running);
    expect(isVigilError(err, 'THINK_ABORTED')).toBe(true);
    expect(err.data.partial).toMatchObject({ text: '', costMicroUsd: 0 });
  });
});

describe('AnthropicThinker options', () => {
  it('rejects an iteration guard below 1 as CONFIG_INVALID', () => {
    expect(() => thinker({ maxToolIterations: 0 })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });

  it('rejects a negative price as CONFIG_INVALID', () => {
    const price = { ...PRICE, inputPerMTok: -1 };
    expect(() => thinker({ price })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });
});
