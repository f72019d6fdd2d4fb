/** A runtime with the real Anthropic thinker pointed at the fake Messages API, in simulated time, for the API fault tests. */
import { AnthropicThinker } from '../../src/subsystems/thinking/anthropic-thinker.js';
import { costMicroUsd, resolvePrice } from '../../src/subsystems/thinking/pricing.js';
import { tokenUsageOf, type FakeMessagesApi } from '../fixtures/fake-messages-api.js';
import { startRuntime, type RuntimeHarness } from '../fixtures/runtime.fixture.js';
import type { createSimulatedClock } from '../../src/shared/clock.js';
import type { VigilDb } from '../../src/subsystems/store/vigil-db.js';
import { recordingLogger, type LogRecord } from './recording-logger.js';

/** The model every fault test uses, and its price. */
export const MODEL = 'claude-sonnet-5-5';
const PRICE = resolvePrice(MODEL);

/**
 * What the calls the fake answered in full cost, in USD: what the ledger must hold when failed attempts cost nothing.
 * Priced per request, so it may differ from the ledger's once-per-think rounding by a micro-dollar per think.
 */
export function answeredCostUsd(api: FakeMessagesApi): number {
  return (
    api.requests.reduce((sum, r) => sum + (r.usage === undefined ? 0 : costMicroUsd(tokenUsageOf(r.usage), PRICE)), 0) /
    1_000_000
  );
}

/** A runtime harness plus its thinker settings and every log record. */
export interface AnthropicHarness extends RuntimeHarness {
  records: LogRecord[];
  /** Advances simulated time by `ms` in 100 ms steps; whenever a think is in flight (real HTTP), waits for it first. */
  runFor(ms: number): Promise<void>;
}

/**
 * Starts a runtime whose thinker talks to `api` with a short per-attempt timeout and few retries, so a fault
 * test spends at most the SDK's own small retry waits in real time.
 */
export async function startAnthropicRuntime(
  api: FakeMessagesApi,
  options: {
    timeoutMs?: number;
    maxRetries?: number;
    config?: Record<string, unknown>;
    goalWorkEveryBeats?: number;
    /** Restart on the database and clock of an earlier (crashed) runtime. */
    db?: VigilDb;
    clock?: ReturnType<typeof createSimulatedClock>;
  } = {},
): Promise<AnthropicHarness> {
  const { log, records } = recordingLogger();
  const thinker = new AnthropicThinker({
    apiKey: 'sk-test',
    baseURL: api.url,
    model: MODEL,
    price: PRICE,
    maxToolIterations: 4,
    maxRetries: options.maxRetries ?? 2,
    // Generous by default: on a loaded CI machine a healthy answer must never time out. Stall tests pass a short one.
    timeoutMs: options.timeoutMs ?? 5000,
  });
  const h = await startRuntime({
    thinker,
    logger: log,
    config: { dailyBudgetUsd: 1, ...options.config },
    ...(options.goalWorkEveryBeats === undefined ? {} : { goalWorkEveryBeats: options.goalWorkEveryBeats }),
    ...(options.db === undefined ? {} : { db: options.db }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  return {
    ...h,
    records,
    async runFor(ms) {
      for (let elapsed = 0; elapsed < ms; elapsed += 100) {
        await h.advance(100, 100);
        const deadline = Date.now() + 10_000;
        // A think runs on real I/O: simulated time must not run ahead of it, or beats would be skipped.
        while (h.runtime.status().phase === 'think') {
          if (Date.now() > deadline) throw new Error('a think was still in flight after 10 s of real time');
          await new Promise((resolve) => setTimeout(resolve, 2));
          await h.settle();
        }
      }
    },
  };
}
