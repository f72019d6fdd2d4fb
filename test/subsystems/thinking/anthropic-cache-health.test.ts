/** The Anthropic thinker's cache health against the truthful fake Messages API: misses, lifetimes and their price. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventBus } from '../../../src/events/event-bus.js';
import type { VigilEvent } from '../../../src/protocol/events.schema.js';
import { createSimulatedClock } from '../../../src/shared/clock.js';
import { AnthropicThinker } from '../../../src/subsystems/thinking/anthropic-thinker.js';
import { resolvePrice, totalCostMicroUsd } from '../../../src/subsystems/thinking/pricing.js';
import {
  message,
  startFakeMessagesApi,
  text,
  tokenUsageOf,
  type FakeMessagesApi,
} from '../../fixtures/fake-messages-api.js';
import { userMessageInput } from '../../fixtures/think-input.fixture.js';

const MODEL = 'claude-sonnet-4-5';
const START = Date.parse('2026-03-01T08:00:00Z');
const live = () => new AbortController().signal;

let api: FakeMessagesApi;
let fakeNow: number;
let clock: ReturnType<typeof createSimulatedClock>;
let events: VigilEvent[];
let bus: EventBus;
beforeEach(async () => {
  fakeNow = START;
  api = await startFakeMessagesApi({ now: () => fakeNow });
  clock = createSimulatedClock(START);
  bus = new EventBus({ clock, currentBeat: () => 0 });
  events = [];
  bus.events$.subscribe((e) => events.push(e));
});
afterEach(async () => {
  bus.close();
  await api.close();
});

function thinker(model = MODEL, cacheTtl: '5m' | '1h' = '5m', identity = 'You are Vigil.'): AnthropicThinker {
  const t = new AnthropicThinker({
    apiKey: 'sk-test',
    baseURL: api.url,
    model,
    price: resolvePrice(model),
    maxToolIterations: 2,
    maxRetries: 0,
    timeoutMs: 5000,
    cacheTtl,
  });
  t.useCacheHealth({ bus, clock }, identity);
  return t;
}

/** One single-call think for `identity` after `ms` of both clocks (the runtime's and the fake API's). */
async function thinkAfter(t: AnthropicThinker, ms: number, identity = 'You are Vigil.') {
  clock.increment(ms);
  fakeNow += ms;
  api.enqueue(message([text('Noted.')]));
  return t.think({ ...userMessageInput('Hello?', clock.now()), identity }, live());
}

const ofType = <T extends VigilEvent['type']>(type: T) =>
  events.filter((e) => e.type === type) as Extract<VigilEvent, { type: T }>[];

describe('AnthropicThinker cache health', () => {
  it('reports a changed prefix as a miss: expected what was cached, got what was read', async () => {
    const t = thinker();
    const first = await thinkAfter(t, 0);
    const cached = first.usage.cacheWriteTokens;
    expect(cached).toBeGreaterThanOrEqual(1024);
    await thinkAfter(t, 60_000);
    expect(ofType('think.cache_miss')).toEqual([]);

    const changed = await thinkAfter(t, 60_000, 'You are Vigil, now with another persona.');
    const [miss] = ofType('think.cache_miss');
    expect(ofType('think.cache_miss')).toHaveLength(1);
    expect(miss).toMatchObject({
      model: MODEL,
      prefix: 'think',
      expected: cached,
      got: changed.usage.cacheReadTokens,
      reason: 'prefix_changed',
    });
    expect(miss!.got).toBeLessThan(miss!.expected);
  });

  it('reports not_read when the API read nothing of a prefix cached a minute ago (the fake lost it)', async () => {
    const t = thinker();
    const first = await thinkAfter(t, 0);
    fakeNow += 6 * 60_000; // Only the API's cache ages: Vigil's clock says a minute, the fake's entry has expired.
    await thinkAfter(t, 60_000);
    expect(ofType('think.cache_miss')).toMatchObject([
      { expected: first.usage.cacheWriteTokens, got: 0, reason: 'not_read' },
    ]);
  });

  it('expects no read after the 5-minute lifetime, and with VIGIL_CACHE_TTL=1h reads after 30 minutes, its writes priced at 2x input', async () => {
    const fiveMinutes = thinker();
    await thinkAfter(fiveMinutes, 0);
    const late = await thinkAfter(fiveMinutes, 30 * 60_000);
    expect(late.usage).toMatchObject({ cacheReadTokens: 0 });
    expect(late.usage.cacheWriteTokens).toBeGreaterThan(0);
    expect(ofType('think.cache_miss')).toEqual([]);

    const oneHour = thinker(MODEL, '1h', 'You are Vigil, keeping its cache an hour.');
    const written = await thinkAfter(oneHour, 0, 'You are Vigil, keeping its cache an hour.');
    // The tools come first and are the same bytes for every identity: the 1-hour think reads the tools prefix the
    // 5-minute think cached a moment ago (refreshing it for an hour) and writes only its own system blocks.
    expect(written.usage.cacheReadTokens).toBeGreaterThan(0);
    expect(written.usage.cacheReadTokens).toBeLessThan(late.usage.cacheWriteTokens);
    expect(written.usage.cacheWriteTokens).toBeGreaterThan(0);
    expect(written.usage).toEqual(tokenUsageOf(api.requests.at(-1)!.usage!));
    const body = api.requests.at(-1)!.body;
    expect(body.system.at(-1).cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
    expect(body.tools.at(-1).cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
    // Sonnet 4.5: $3 input, so a 1-hour write is $6 per million tokens (a 5-minute one $3.75).
    const price = { ...resolvePrice(MODEL), cacheWritePerMTok: 6 };
    expect(written.costMicroUsd).toBe(totalCostMicroUsd([written.usage], price));
    const read = await thinkAfter(oneHour, 30 * 60_000, 'You are Vigil, keeping its cache an hour.');
    // After 30 minutes the whole prefix is read: what that think read and what it wrote, nothing written again.
    expect(read.usage).toMatchObject({
      cacheReadTokens: written.usage.cacheReadTokens + written.usage.cacheWriteTokens,
      cacheWriteTokens: 0,
    });
    expect(ofType('think.cache_miss')).toEqual([]);
  });

  it('reports a prefix under the minimum at once from the estimate, and never a miss for what was never cached', async () => {
    const haiku = thinker('claude-haiku-4-5', '5m', 'You are Vigil on Haiku.');
    const [short] = ofType('think.cache_prefix_short');
    expect(ofType('think.cache_prefix_short')).toHaveLength(1);
    expect(short).toMatchObject({
      model: 'claude-haiku-4-5',
      prefix: 'think',
      minimumTokens: 4096,
      source: 'estimate',
    });
    expect(short!.prefixTokens).toBeLessThan(4096);
    const first = await thinkAfter(haiku, 0, 'You are Vigil on Haiku.');
    await thinkAfter(haiku, 1000, 'You are Vigil on Haiku.');
    // A sub-agent task sends the same prefix: not reported again.
    api.enqueue(message([text('Found it.')]));
    await haiku.runTask({ taskId: 'task-1', prompt: 'Dig.', identity: 'You are Vigil on Haiku.' }, live());
    // Under the minimum the fake neither writes nor reads: no second report, and no miss.
    expect(first.usage).toMatchObject({ cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(ofType('think.cache_prefix_short')).toHaveLength(1);
    expect(ofType('think.cache_miss')).toEqual([]);
  });
});

describe('AnthropicThinker cache health, a model whose minimum Vigil does not know', () => {
  it("tells from the API's zero counts that the prefix is not cached, once, with the minimum as null", async () => {
    await api.close();
    api = await startFakeMessagesApi({ now: () => fakeNow, minimumTokens: () => 8192 });
    const t = thinker('claude-sonnet-5-5');
    expect(ofType('think.cache_prefix_short')).toEqual([]);
    await thinkAfter(t, 0);
    await thinkAfter(t, 1000);
    const [short] = ofType('think.cache_prefix_short');
    expect(ofType('think.cache_prefix_short')).toHaveLength(1);
    expect(short).toMatchObject({ model: 'claude-sonnet-5-5', prefix: 'think', minimumTokens: null, source: 'api' });
    expect(short!.prefixTokens).toBeGreaterThan(0);
  });
});
