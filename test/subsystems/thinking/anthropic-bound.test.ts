import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConversationMessage } from '../../../src/protocol/conversation.schema.js';
import { AnthropicThinker } from '../../../src/subsystems/thinking/anthropic-thinker.js';
import { resolvePrice } from '../../../src/subsystems/thinking/pricing.js';
import { estimateTokens } from '../../../src/subsystems/thinking/token-estimate.js';
import { WINDOW_THINKS } from '../../../src/subsystems/thinking/token-calibration.js';
import {
  firstUserText,
  message,
  startFakeMessagesApi,
  text,
  type FakeMessagesApi,
  type RecordedRequest,
} from '../../fixtures/fake-messages-api.js';
import { userMessageInput } from '../../fixtures/think-input.fixture.js';

const NOW = Date.parse('2026-03-01T10:00:00Z');
const BOUND = 10_000;
let api: FakeMessagesApi;
beforeEach(async () => {
  api = await startFakeMessagesApi();
});
afterEach(async () => {
  await api.close();
});

const recent: ConversationMessage[] = Array.from({ length: 500 }, (_, i) => ({
  seq: i + 1,
  turnId: `h-${i}`,
  role: i % 2 === 0 ? 'user' : 'assistant',
  text: `entry ${i} ${'some words here '.repeat(20)}`,
  at: NOW - (500 - i) * 1000,
}));

function thinker(): AnthropicThinker {
  return new AnthropicThinker({
    apiKey: 'sk-test',
    baseURL: api.url,
    model: 'claude-sonnet-5-5',
    price: resolvePrice('claude-sonnet-5-5'),
    maxToolIterations: 2,
    maxRetries: 0,
  });
}

const shownEntries = (request: RecordedRequest) => [...firstUserText(request).matchAll(/^- \[\d+\] turn h-/gm)].length;

describe('the Anthropic thinker under VIGIL_CONTEXT_TOKENS', () => {
  it('sends no request over the bound, traces each section, and shows less once the API reports more tokens than estimated', async () => {
    const claude = thinker();
    const input = {
      ...userMessageInput('What did we say?', NOW),
      contextTokens: BOUND,
      conversation: { summary: { text: 'Earlier: Ada chose tides.', throughSeq: 0 }, recent },
    };
    // The API counts half again what the estimate said: a text that tokenizes badly.
    api.enqueue({
      kind: 'respond',
      respond: (r) => message([text('ok')], { input_tokens: Math.ceil(estimateTokens(r.raw) * 1.5), output_tokens: 1 }),
    });
    const first = await claude.think(input, new AbortController().signal);
    api.enqueue({
      kind: 'respond',
      respond: (r) => message([text('ok')], { input_tokens: estimateTokens(r.raw), output_tokens: 1 }),
    });
    await claude.think(input, new AbortController().signal);

    const [a, b] = api.requests;
    for (const request of [a!, b!]) expect(estimateTokens(request.raw)).toBeLessThanOrEqual(BOUND);
    expect(claude.calibration.factor).toBeGreaterThan(1.5);
    expect(shownEntries(b!)).toBeLessThan(shownEntries(a!));
    expect(Math.ceil(estimateTokens(b!.raw) * 1.5)).toBeLessThanOrEqual(BOUND);
    expect(first.trace?.sections.map((s) => s.name)).toEqual([
      'tools',
      'identity',
      'instructions',
      'summary',
      'recent_conversation',
      'heartbeat',
      'affect',
      'working_memory',
      'goals',
      'focus_goal',
      'pending_messages',
      'swarm_results',
      'notices',
    ]);
    expect(first.trace?.sections.filter((s) => s.cached).map((s) => s.name)).toEqual([
      'tools',
      'identity',
      'instructions',
      'summary',
      'recent_conversation',
    ]);
    expect(first.trace?.stopReason).toBe('end_turn');
  });

  it('takes no calibration from a report of 1,000,000 input tokens: the next think shows as much as the first', async () => {
    const claude = thinker();
    const input = {
      ...userMessageInput('What did we say?', NOW),
      contextTokens: BOUND,
      conversation: { summary: null, recent },
    };
    api.enqueue(message([text('ok')], { input_tokens: 1_000_000, output_tokens: 1 }), message([text('ok')]));
    await claude.think(input, new AbortController().signal);
    await claude.think(input, new AbortController().signal);

    expect(claude.calibration.factor).toBe(1);
    const [a, b] = api.requests;
    expect(shownEntries(b!)).toBe(shownEntries(a!));
  });

  it('refuses as CONTEXT_TOO_SMALL, before any request, a think the plain estimate cannot fit', async () => {
    const claude = thinker();
    const think = claude.think(
      { ...userMessageInput('hello', NOW), contextTokens: 1000 },
      new AbortController().signal,
    );
    await expect(think).rejects.toMatchObject({
      code: 'CONTEXT_TOO_SMALL',
      message: expect.stringContaining('VIGIL_CONTEXT_TOKENS=1000'),
    });
    expect(api.requests).toHaveLength(0);
  });

  it('sends a think the calibrated count would refuse while its plain estimate fits', async () => {
    const claude = thinker();
    // Twice the estimate (and the prefix the call wrote to the cache on top): dense, but within what a tokenizer can do.
    api.enqueue({
      kind: 'respond',
      respond: (r) => message([text('ok')], { input_tokens: 2 * estimateTokens(r.raw), output_tokens: 1 }),
    });
    await claude.think({ ...userMessageInput('hello', NOW), contextTokens: BOUND }, new AbortController().signal);
    expect(claude.calibration.factor).toBeGreaterThan(2);

    api.enqueue(message([text('ok')]));
    const result = await claude.think(
      { ...userMessageInput('and again', NOW), contextTokens: 4096 },
      new AbortController().signal,
    );
    const sent = api.requests[1]!;
    expect(estimateTokens(sent.raw)).toBeLessThanOrEqual(4096);
    expect(estimateTokens(sent.raw) * claude.calibration.factor).toBeGreaterThan(4096);
    expect(firstUserText(sent)).toContain('and again');
    expect(result.trace?.stopReason).toBe('end_turn');
  });

  it(`ages a raised factor out over ${WINDOW_THINKS} thinks, though each is refused before any request`, async () => {
    const claude = thinker();
    api.enqueue({
      kind: 'respond',
      respond: (r) => message([text('ok')], { input_tokens: 2 * estimateTokens(r.raw), output_tokens: 1 }),
    });
    await claude.think({ ...userMessageInput('hello', NOW), contextTokens: BOUND }, new AbortController().signal);
    expect(claude.calibration.factor).toBeGreaterThan(2);
    for (let i = 1; i < WINDOW_THINKS; i++) {
      await expect(
        claude.think({ ...userMessageInput('hi', NOW), contextTokens: 1000 }, new AbortController().signal),
      ).rejects.toMatchObject({ code: 'CONTEXT_TOO_SMALL' });
    }
    expect(claude.calibration.factor).toBeGreaterThan(2);
    await expect(
      claude.think({ ...userMessageInput('hi', NOW), contextTokens: 1000 }, new AbortController().signal),
    ).rejects.toMatchObject({ code: 'CONTEXT_TOO_SMALL' });
    expect(claude.calibration.factor).toBe(1);
    expect(api.requests).toHaveLength(1);
  });
});
