import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isVigilError } from '../../../src/errors.js';
import { MODEL_PRICES } from '../../../src/subsystems/thinking/model-prices.js';
import {
  ModelPricingSchema,
  canonicalModelId,
  costMicroUsd,
  microUsdToUsd,
  resolvePrice,
  totalCostMicroUsd,
  usdToMicroUsd,
} from '../../../src/subsystems/thinking/pricing.js';
import type { TokenUsage } from '../../../src/subsystems/thinking/thinker.schema.js';

const usage = (
  inputTokens: number,
  outputTokens: number,
  cacheWriteTokens: number,
  cacheReadTokens: number,
): TokenUsage => ({
  inputTokens,
  outputTokens,
  cacheWriteTokens,
  cacheReadTokens,
});

describe('pricing', () => {
  // Expected micro-dollars worked by hand: tokens x USD/MTok is micro-dollars, then rounded up once.
  it.each([
    ['claude-sonnet-4-5', usage(1000, 500, 2000, 10_000), 3000 + 7500 + 7500 + 3000],
    ['claude-sonnet-4-5-20250929', usage(1000, 500, 2000, 10_000), 21_000],
    ['claude-sonnet-4', usage(0, 0, 0, 1), 1], // 0.3 µ$ of cache reads still costs one micro-dollar
    ['claude-sonnet-4-6', usage(10, 10, 10, 10), 30 + 150 + 37.5 + 3], // 220.5 → 221
    ['claude-opus-4-1', usage(1000, 100, 0, 5000), 15_000 + 7500 + 7500],
    ['claude-opus-4', usage(1, 1, 1, 1), 15 + 75 + 18.75 + 1.5], // 110.25 → 111
    ['claude-opus-4-5', usage(3, 0, 0, 7), 15 + 3.5], // 18.5 → 19
    ['claude-opus-5-5', usage(100, 100, 100, 100), 400 + 2000 + 500 + 20],
    ['claude-haiku-4-5', usage(1234, 567, 890, 12_345), 1234 + 2835 + 1112.5 + 1234.5],
    ['claude-3-5-haiku-20241022', usage(1, 1, 1, 1), 0.8 + 4 + 1 + 0.08], // 5.88 → 6
    ['claude-3-5-haiku-latest', usage(1000, 1000, 1000, 1000), 800 + 4000 + 1000 + 80],
    ['claude-fable-5-1', usage(0, 0, 1000, 1000), 12_500 + 250],
    ['claude-sonnet-5-5', usage(0, 0, 0, 1000), 100],
    ['claude-haiku-5-5', usage(50_000, 1000, 0, 50_000), 5000 + 500 + 500], // prompt of 100,000: the base band
    ['claude-haiku-5-5', usage(50_001, 1000, 0, 50_000), 25_000.5 + 2500 + 2500], // over 100,000: every token at 5x
  ])('prices %s usage %o at %d micro-dollars, rounded up', (model, u, exact) => {
    const cost = costMicroUsd(u, resolvePrice(model));
    expect(Number.isSafeInteger(cost)).toBe(true);
    expect(cost).toBe(Math.ceil(exact));
  });

  it('never undercharges and never overcharges by a whole micro-dollar, for every model in the table', () => {
    const tokens = fc.integer({ min: 0, max: 2_000_000 });
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(MODEL_PRICES)),
        tokens,
        tokens,
        tokens,
        tokens,
        (model, i, o, w, r) => {
          const price = resolvePrice(model);
          const u = usage(i, o, w, r);
          const band = price.longPrompt && i + w + r > price.longPrompt.overTokens ? price.longPrompt.price : price;
          const exact =
            i * band.inputPerMTok + o * band.outputPerMTok + w * band.cacheWritePerMTok + r * band.cacheReadPerMTok;
          const cost = costMicroUsd(u, price);
          expect(Number.isSafeInteger(cost)).toBe(true);
          // Float noise in `exact` is far below 1e-3 µ$ at these sizes.
          expect(cost).toBeGreaterThanOrEqual(exact - 1e-3);
          expect(cost).toBeLessThan(exact + 1);
        },
      ),
    );
  });

  it('sums several requests exactly and rounds up once', () => {
    const oneRead = usage(0, 0, 0, 1); // 0.3 µ$ on Sonnet 4.5
    const price = resolvePrice('claude-sonnet-4-5');
    expect(totalCostMicroUsd([oneRead, oneRead], price)).toBe(1);
    expect(totalCostMicroUsd([oneRead, oneRead, oneRead, oneRead], price)).toBe(2);
    expect(totalCostMicroUsd([], price)).toBe(0);
  });

  it("picks the long-prompt band per request, not for the sum of a think's requests", () => {
    const price = resolvePrice('claude-haiku-5-5');
    const call = usage(60_000, 0, 0, 0);
    expect(totalCostMicroUsd([call, call], price)).toBe(12_000);
    expect(costMicroUsd(usage(120_000, 0, 0, 0), price)).toBe(60_000);
  });

  it('prices the 5-minute cache write at 1.25x input throughout the table', () => {
    for (const [model, price] of Object.entries(MODEL_PRICES)) {
      if (model === 'claude-3-haiku') continue; // its published write price ($0.30) predates the 1.25x rule
      expect(price.cacheWritePerMTok, model).toBeCloseTo(price.inputPerMTok * 1.25, 10);
      expect(ModelPricingSchema.safeParse(price).success, model).toBe(true);
    }
  });

  it('lets an override win over the table and price a model the table does not know', () => {
    const cheap = { inputPerMTok: 1, outputPerMTok: 2, cacheWritePerMTok: 1.25, cacheReadPerMTok: 0.1 };
    expect(resolvePrice('claude-sonnet-4-5', { 'claude-sonnet-4-5': cheap })).toEqual(cheap);
    expect(resolvePrice('claude-sonnet-4-5-20250929', { 'claude-sonnet-4-5': cheap })).toEqual(cheap);
    expect(resolvePrice('claude-next-7', { 'claude-next-7': cheap })).toEqual(cheap);
    expect(costMicroUsd(usage(1000, 1000, 0, 0), resolvePrice('claude-next-7', { 'claude-next-7': cheap }))).toBe(3000);
  });

  it('rejects an unknown model without an override as CONFIG_INVALID naming VIGIL_MODEL', () => {
    let caught: unknown;
    try {
      resolvePrice('claude-next-7', {
        'claude-other': { inputPerMTok: 1, outputPerMTok: 1, cacheWritePerMTok: 1, cacheReadPerMTok: 1 },
      });
    } catch (err) {
      caught = err;
    }
    expect(isVigilError(caught, 'CONFIG_INVALID')).toBe(true);
    const err = caught as Error & { data: { variable: string; value: string; allowed: string } };
    expect(err.data.variable).toBe('VIGIL_MODEL');
    expect(err.data.value).toBe('claude-next-7');
    expect(err.data.allowed).toContain('claude-sonnet-4-5');
    expect(err.message).toContain('VIGIL_MODEL="claude-next-7" has no known price');
    expect(err.message).toContain('VIGIL_PRICING_JSON');
  });

  it('matches dated snapshots only, never a shorter id that happens to be a prefix', () => {
    expect(canonicalModelId('claude-opus-4-1-20250805')).toBe('claude-opus-4-1');
    expect(resolvePrice('claude-opus-4-5-20251101')).toEqual(resolvePrice('claude-opus-4-5'));
    expect(resolvePrice('claude-opus-4-20250514')).toEqual(resolvePrice('claude-opus-4'));
    // claude-opus-4 ($15) must not price claude-opus-4-5 ($5) or an unknown claude-opus-4-2.
    expect(resolvePrice('claude-opus-4-5').inputPerMTok).toBe(5);
    expect(() => resolvePrice('claude-opus-4-2')).toThrow(/has no known price/);
    expect(() => resolvePrice('toString')).toThrow(/has no known price/);
  });

  it('converts between dollars and integer micro-dollars', () => {
    expect(usdToMicroUsd(5)).toBe(5_000_000);
    expect(usdToMicroUsd(0.1 + 0.2)).toBe(300_000);
    expect(usdToMicroUsd(1.005)).toBe(1_005_000);
    expect(microUsdToUsd(21_000)).toBe(0.021);
    expect(() => usdToMicroUsd(Number.NaN)).toThrow();
  });
});
