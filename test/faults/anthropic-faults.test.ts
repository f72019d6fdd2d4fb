/**
 * Anthropic API faults at the runtime level: the real SDK inside the Anthropic thinker, talking to the fake Messages
 * API, under a heartbeat in simulated time. Each fault must end in a bounded number of requests, a `think.failed`
 * event (also logged), no money for the failed calls, and a heartbeat that goes on and answers once the API is back.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  apiError,
  message,
  startFakeMessagesApi,
  text,
  toolUse,
  type FakeMessagesApi,
  type FakeResponse,
} from '../fixtures/fake-messages-api.js';
import { answeredCostUsd, startAnthropicRuntime, type AnthropicHarness } from './anthropic-harness.js';
import { LEVELS } from './recording-logger.js';

let api: FakeMessagesApi;
let h: AnthropicHarness | undefined;
beforeEach(async () => {
  api = await startFakeMessagesApi();
});
afterEach(async () => {
  await h?.runtime.stop().catch(() => undefined);
  h = undefined;
  await api.close();
});

const reply = (turnId: string): FakeResponse =>
  message([toolUse('reply', { turnId, text: 'Back again.' })], { input_tokens: 1000, output_tokens: 100 });
const FAST = { 'retry-after-ms': '1' };
// Per-attempt timeout of the stall tests: short, yet long enough for a healthy answer (the recovery) on a busy machine.
const STALL_TIMEOUT_MS = 400;
// The whole body of a valid response, to cut short on the wire.
const VALID_BODY = JSON.stringify((message([text('fine')]) as { body: unknown }).body);

/** After a failed think: the API answers the reply, and the agent sends it on a later beat. */
async function expectRecovery(harness: AnthropicHarness, turnId: string): Promise<void> {
  const beats = harness.runtime.status().beatCount;
  api.enqueue(reply(turnId), message([text('ok')]));
  await harness.runFor(3000);
  expect(harness.ofType('agent.reply')).toMatchObject([{ turnId, text: 'Back again.' }]);
  expect(harness.runtime.status().beatCount).toBeGreaterThan(beats);
  expect(harness.runtime.budgetStatus().spentTodayUsd).toBeCloseTo(answeredCostUsd(api), 5);
}

/** The one think.failed so far, after checking it was also logged at warn. */
function theFailure(harness: AnthropicHarness): { reason: string; code: string } {
  const failures = harness.ofType('think.failed');
  expect(failures).toHaveLength(1);
  const logged = harness.records.filter((r) => r.msg === 'think.failed');
  expect(logged).toHaveLength(1);
  expect(logged[0]!.level).toBe(LEVELS.warn);
  expect(logged[0]).toMatchObject({ code: failures[0]!.code, reason: failures[0]!.reason });
  return failures[0]!;
}

describe('Anthropic faults: stalls and broken bodies', () => {
  it('times out a stalled API per attempt, retries it a bounded number of times, charges nothing, and answers later', async () => {
    h = await startAnthropicRuntime(api, { timeoutMs: STALL_TIMEOUT_MS, maxRetries: 1 });
    const { turnId } = await h.runtime.send({ text: 'still there?' });
    api.enqueue({ kind: 'hang' }, { kind: 'hang' });
    await h.runFor(1000);
    expect(api.requests).toHaveLength(2);
    expect(theFailure(h)).toMatchObject({ code: 'THINK_FAILED', reason: expect.stringMatching(/timed out/) });
    expect(h.runtime.budgetStatus().spentTodayUsd).toBe(0);
    expect(h.ofType('think.completed')).toHaveLength(0);
    await expectRecovery(h, turnId);
  });

  it('times out a response that sends its headers and then stalls mid-body, like a stall before them', async () => {
    h = await startAnthropicRuntime(api, { timeoutMs: STALL_TIMEOUT_MS, maxRetries: 1 });
    const { turnId } = await h.runtime.send({ text: 'hello?' });
    for (let i = 0; i < 2; i += 1) api.enqueue({ kind: 'stall-body', text: VALID_BODY, sentBytes: 25 });
    await h.runFor(1000);
    expect(api.requests).toHaveLength(2);
    expect(theFailure(h)).toMatchObject({ code: 'THINK_FAILED', reason: expect.stringMatching(/timed out/) });
    expect(h.runtime.budgetStatus().spentTodayUsd).toBe(0);
    await expectRecovery(h, turnId);
  });

  it('fails a think on malformed JSON with one request (nothing to retry within it), charges nothing, and answers on a later beat', async () => {
    h = await startAnthropicRuntime(api);
    const { turnId } = await h.runtime.send({ text: 'hi' });
    api.enqueue({ kind: 'raw', text: '{"id": "msg_1", "type": "message", "content": [' });
    await h.runFor(1000);
    expect(api.requests).toHaveLength(1);
    expect(theFailure(h)).toMatchObject({ code: 'THINK_FAILED', reason: expect.stringMatching(/malformed/) });
    expect(h.runtime.budgetStatus().spentTodayUsd).toBe(0);
    await expectRecovery(h, turnId);
  });

  it('retries a body cut off mid-response or a reset connection, and charges only the attempt that succeeded', async () => {
    h = await startAnthropicRuntime(api, { maxRetries: 2 });
    const { turnId } = await h.runtime.send({ text: 'hi' });
    api.enqueue(
      { kind: 'truncate', text: VALID_BODY, sentBytes: 30 },
      { kind: 'reset' },
      reply(turnId),
      message([text('ok')]),
    );
    await h.runFor(1000);
    expect(api.requests).toHaveLength(4);
    expect(h.ofType('think.failed')).toHaveLength(0);
    expect(h.ofType('agent.reply')).toMatchObject([{ turnId }]);
    expect(h.runtime.budgetStatus().spentTodayUsd).toBeCloseTo(answeredCostUsd(api), 5);
  });

  it('fails a think whose every attempt is cut off mid-body after maxRetries + 1 requests, charging nothing', async () => {
    h = await startAnthropicRuntime(api, { maxRetries: 2 });
    const { turnId } = await h.runtime.send({ text: 'hi' });
    for (let i = 0; i < 3; i += 1) api.enqueue({ kind: 'truncate', text: VALID_BODY, sentBytes: 30 });
    await h.runFor(1000);
    expect(api.requests).toHaveLength(3);
    expect(theFailure(h)).toMatchObject({
      code: 'THINK_FAILED',
      reason: expect.stringMatching(/could not reach the API/),
    });
    expect(h.runtime.budgetStatus().spentTodayUsd).toBe(0);
    await expectRecovery(h, turnId);
  });
});

describe('Anthropic faults: a bad key (401)', () => {
  it('emits think.failed with code THINK_AUTH_FAILED, logs it at warn without the key, and never retries within the think', async () => {
    h = await startAnthropicRuntime(api);
    await h.runtime.send({ text: 'hi' });
    api.enqueue(apiError(401, 'authentication_error'));
    await h.runFor(1000);
    expect(api.requests).toHaveLength(1);
    const failure = theFailure(h);
    expect(failure.code).toBe('THINK_AUTH_FAILED');
    expect(failure.reason).toMatch(/HTTP 401 authentication_error.*ANTHROPIC_API_KEY/);
    // The key went out (so the log below had a chance to leak it) and the log never carries it.
    expect(JSON.stringify(api.requests[0]!.headers)).toContain('sk-test');
    expect(JSON.stringify(h.records)).not.toContain('sk-test');
    expect(h.runtime.budgetStatus().spentTodayUsd).toBe(0);
  });

  it('with a message waiting, pauses thinking after a 401 instead of retrying, tries again after 1, 2, 4 min, and keeps the turn open', async () => {
    h = await startAnthropicRuntime(api);
    for (let i = 0; i < 300; i += 1) api.enqueue(apiError(401, 'authentication_error'));
    const { turnId } = await h.runtime.send({ text: 'hi' });
    await h.runFor(300_000);
    // At 0 s, then after pauses of 60, 120 and 240 s: three tries in 300 s, one request each.
    expect(api.requests).toHaveLength(3);
    expect(h.ofType('think.failed').every((e) => e.code === 'THINK_AUTH_FAILED')).toBe(true);
    expect(h.ofType('think.failed')).toHaveLength(api.requests.length);
    expect(h.ofType('thinker.paused').map((e) => e.code)).toEqual([
      'THINK_AUTH_FAILED',
      'THINK_AUTH_FAILED',
      'THINK_AUTH_FAILED',
    ]);
    // A bad key is not the message's fault: its turn waits, neither answered nor ended.
    expect(h.ofType('agent.unanswered')).toHaveLength(0);
    expect(h.runtime.status().pendingMessages).toBe(1);
    expect(h.ofType('heartbeat.circuit_open')).toHaveLength(0);
    expect(h.runtime.budgetStatus().spentTodayUsd).toBe(0);
    expect(h.runtime.status().phase).not.toBe('stopped');
    expect(turnId).toMatch(/^t-/);
  });

  it('resumes thinking once the key works again and answers the waiting turn', async () => {
    h = await startAnthropicRuntime(api);
    api.enqueue(apiError(401, 'authentication_error'), message([text('welcome back')]));
    const { turnId } = await h.runtime.send({ text: 'hi' });
    await h.runFor(61_000);
    expect(h.ofType('thinker.paused')).toHaveLength(1);
    expect(h.ofType('thinker.resumed')).toHaveLength(1);
    expect(h.ofType('agent.reply')).toMatchObject([{ turnId, text: 'welcome back' }]);
    expect(api.requests).toHaveLength(2);
  });

  // Idle beats between paced goal thinks once reset the circuit breaker, so a bad key cost a request every few beats
  // forever; the thinker pause after THINK_AUTH_FAILED bounds it whatever the beats do.
  it('with only goal work to do, still sends a bounded number of requests over 300 beats', async () => {
    h = await startAnthropicRuntime(api);
    for (let i = 0; i < 300; i += 1) api.enqueue(apiError(401, 'authentication_error'));
    h.runtime.addGoal({ title: 'Water the plants', priority: 6 });
    await h.runFor(300_000);
    expect(h.ofType('think.failed').length).toBeGreaterThan(0);
    expect(api.requests.length).toBeLessThanOrEqual(20);
  });
});

describe('Anthropic faults: a 429 storm', () => {
  it('makes at most maxRetries + 1 requests per think, backs the heartbeat off, charges nothing, and answers once it passes', async () => {
    h = await startAnthropicRuntime(api, { maxRetries: 2 });
    const thinksThatFail = 12;
    for (let i = 0; i < thinksThatFail * 3; i += 1) api.enqueue(apiError(429, 'rate_limit_error', FAST));
    const { turnId } = await h.runtime.send({ text: 'are you up?' });
    api.enqueue(reply(turnId), message([text('ok')]));
    await h.runFor(60_000);

    expect(h.ofType('think.failed')).toHaveLength(thinksThatFail);
    expect(h.ofType('think.failed').every((e) => e.code === 'THINK_FAILED' && /HTTP 429/.test(e.reason))).toBe(true);
    expect(api.requests).toHaveLength(thinksThatFail * 3 + 2);
    expect(h.ofType('heartbeat.circuit_open')).toHaveLength(1);
    expect(h.ofType('heartbeat.circuit_closed')).toHaveLength(1);
    // The failed beats' intervals: 1 s up to the 10th failure, then doubling.
    const intervals = h.ofType('heartbeat.beat').map((e) => e.intervalMs);
    expect(intervals.slice(8, 12)).toEqual([1000, 2000, 4000, 8000]);
    expect(h.ofType('agent.reply')).toMatchObject([{ turnId, text: 'Back again.' }]);
    expect(h.runtime.budgetStatus().spentTodayUsd).toBeCloseTo(answeredCostUsd(api), 5);
  });

  it('charges the completed call of a tool loop whose next call hits the storm, and nothing for the failed one', async () => {
    h = await startAnthropicRuntime(api, { maxRetries: 2 });
    const { turnId } = await h.runtime.send({ text: 'hi' });
    api.enqueue(
      message([toolUse('remember', { content: 'the user said hi', salience: 0.5 })], {
        input_tokens: 500,
        output_tokens: 50,
      }),
      apiError(429, 'rate_limit_error', FAST),
      apiError(429, 'rate_limit_error', FAST),
      apiError(429, 'rate_limit_error', FAST),
    );
    await h.runFor(1000);
    expect(api.requests).toHaveLength(4);
    expect(theFailure(h).code).toBe('THINK_FAILED');
    // The one answered call (500 in, 50 out, and the prefix it wrote); none of the failed think's actions applied.
    expect(api.requests.filter((r) => r.usage !== undefined)).toHaveLength(1);
    expect(h.runtime.budgetStatus().spentTodayUsd).toBeGreaterThan(0.0015);
    expect(h.runtime.budgetStatus().spentTodayUsd).toBeCloseTo(answeredCostUsd(api), 5);
    expect(h.runtime.listMemory().some((m) => m.content === 'the user said hi')).toBe(false);
    api.enqueue(reply(turnId), message([text('ok')]));
    await h.runFor(3000);
    expect(h.ofType('agent.reply')).toMatchObject([{ turnId }]);
  });
});
