/** Prompt-cache health of the whole runtime (real SDK, truthful fake Messages API): the boot check and the cache share. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventBus } from '../../src/events/event-bus.js';
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import { createSimulatedClock } from '../../src/shared/clock.js';
import { LEVELS, recordingLogger } from '../faults/recording-logger.js';
import { message, startFakeMessagesApi, text, type FakeMessagesApi } from '../fixtures/fake-messages-api.js';
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

/** A runtime on `model` whose events are recorded from before the boot, so boot-time events are seen too. */
async function boot(model: string, identity?: string) {
  const clock = createSimulatedClock(Date.parse('2026-03-01T10:00:00Z'));
  const bus = new EventBus({ clock, currentBeat: () => 0 });
  const events: VigilEvent[] = [];
  bus.events$.subscribe((e) => events.push(e));
  const { log, records } = recordingLogger();
  h = await startRuntime({
    clock,
    bus,
    logger: log,
    ...(identity === undefined ? {} : { identity }),
    config: { thinker: 'anthropic', anthropicApiKey: 'sk-test', anthropicBaseUrl: api.url, model, dailyBudgetUsd: 5 },
  });
  return { events, records, harness: h };
}

describe('cache health at boot', () => {
  it("warns in the log naming both numbers, and emits think.cache_prefix_short, for a prefix under the model's minimum", async () => {
    const { events, records } = await boot('claude-haiku-4-5');
    const short = events.filter((e) => e.type === 'think.cache_prefix_short');
    expect(short).toMatchObject([
      { model: 'claude-haiku-4-5', prefix: 'think', minimumTokens: 4096, source: 'estimate' },
    ]);
    const { prefixTokens } = short[0] as Extract<VigilEvent, { type: 'think.cache_prefix_short' }>;
    expect(prefixTokens).toBeGreaterThan(1000);
    expect(prefixTokens).toBeLessThan(4096);
    const warning = records.find((r) => r.msg === 'think.cache_prefix_short');
    expect(warning).toMatchObject({ level: LEVELS.warn, prefixTokens, minimumTokens: 4096, model: 'claude-haiku-4-5' });
  });

  it("says nothing for a prefix above the model's minimum", async () => {
    const { events, records } = await boot('claude-sonnet-4-5');
    expect(events.filter((e) => e.type === 'think.cache_prefix_short')).toEqual([]);
    expect(records.filter((r) => r.level >= LEVELS.warn)).toEqual([]);
  });
});

describe('the cache share', () => {
  it("reads each think's prefix and the conversation so far from the cache, as the truthful fake counts it, and reports the share", async () => {
    const { harness } = await boot('claude-sonnet-4-5');
    const thinks = 12;
    for (let i = 1; i <= thinks; i += 1) {
      await harness.runtime.send({
        text: `Question ${i}: ${'what about the garden, the roof and the boiler? '.repeat(4)}`,
      });
      api.enqueue(
        message([text(`Answer ${i}: ${'the garden is fine, the roof holds, the boiler was serviced. '.repeat(4)}`)]),
      );
      await harness.advance(1000);
      await vi.waitFor(
        async () => {
          await harness.settle();
          expect(harness.ofType('think.completed')).toHaveLength(i);
        },
        { timeout: 10_000, interval: 5 },
      );
    }
    const completed = harness.ofType('think.completed');
    const prompt = (e: (typeof completed)[number]) => e.inputTokens + e.cacheReadTokens + e.cacheWriteTokens;
    // From the third think on (the second is the first with a conversation to cache), each reads all the one before
    // it had cached (its prefix and the conversation up to its newest entry) and writes only the two new entries.
    for (let i = 2; i < completed.length; i += 1) {
      const [before, think] = [completed[i - 1]!, completed[i]!];
      expect(think.cacheReadTokens).toBe(before.cacheReadTokens + before.cacheWriteTokens);
      expect(think.cacheWriteTokens).toBeGreaterThan(0);
      expect(think.cacheWriteTokens).toBeLessThan(think.cacheReadTokens / 5);
    }
    const steady = completed.slice(2);
    const steadyShare =
      steady.reduce((sum, e) => sum + e.cacheReadTokens, 0) / steady.reduce((sum, e) => sum + prompt(e), 0);
    expect(steadyShare).toBeGreaterThanOrEqual(0.85);
    expect(harness.ofType('think.cache_miss')).toEqual([]);

    // The day's share, the first write included, in budget.status and /metrics.
    const share =
      completed.reduce((sum, e) => sum + e.cacheReadTokens, 0) / completed.reduce((sum, e) => sum + prompt(e), 0);
    const reported = harness.runtime.budgetStatus().cacheReadShareToday;
    expect(reported).toBeCloseTo(share, 4);
    expect(reported).toBeGreaterThan(0.75);
    expect(await harness.metrics.text()).toContain(`vigil_cache_read_today_ratio ${reported}`);
  });
});
