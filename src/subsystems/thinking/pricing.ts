/** Prices and costs: which price a model has, and what a request's tokens cost in integer micro-dollars. */
import { ModelPricingSchema, type ModelPrice, type ModelPricing } from './model-price.schema.js';
import { VigilError } from '../../errors.js';
import { MODEL_PRICES } from './model-prices.js';
import type { TokenUsage } from './thinker.schema.js';

export { ModelPricingSchema, type ModelPricing };

const MICRO_PER_USD = 1_000_000;
// Costs are summed exactly in pico-dollars (1e-6 micro-dollars) and rounded up once, at the end.
const PICO_PER_MICRO = 1_000_000n;
const DATED_OR_LATEST = /-(?:\d{8}|latest)$/;

/** The model id without a dated snapshot or `-latest` suffix (`claude-sonnet-4-5-20250929` → `claude-sonnet-4-5`). */
export function canonicalModelId(model: string): string {
  return model.replace(DATED_OR_LATEST, '');
}

/** The model ids the built-in table prices. */
export function knownModels(): string[] {
  return Object.keys(MODEL_PRICES);
}

/**
 * The price of `model`: an override (by exact id, then by canonical id) wins over the built-in table; a model with
 * neither throws CONFIG_INVALID naming VIGIL_MODEL, so an unpriced model fails at start instead of costing a silent zero.
 */
export function resolvePrice(model: string, overrides: Readonly<Record<string, ModelPrice>> = {}): ModelPricing {
  const canonical = canonicalModelId(model);
  const own = (table: Readonly<Record<string, ModelPricing>>, key: string) =>
    Object.hasOwn(table, key) ? table[key] : undefined;
  const price =
    own(overrides, model) ?? own(overrides, canonical) ?? own(MODEL_PRICES, model) ?? own(MODEL_PRICES, canonical);
  if (price !== undefined) return price;
  const example = JSON.stringify({
    [model]: { inputPerMTok: 3, outputPerMTok: 15, cacheWritePerMTok: 3.75, cacheReadPerMTok: 0.3 },
  });
  const allowed = `a model with a known price (${knownModels().join(', ')}) or one priced in VIGIL_PRICING_JSON`;
  throw new VigilError(
    'CONFIG_INVALID',
    `VIGIL_MODEL=${JSON.stringify(model)} has no known price: set VIGIL_PRICING_JSON with its prices in USD per million ` +
      `tokens, e.g. ${example}, or pick ${allowed}.`,
    {
      data: {
        variable: 'VIGIL_MODEL',
        value: model,
        allowed,
        problems: [{ variable: 'VIGIL_MODEL', value: model, allowed }],
      },
    },
  );
}

/** USD per million tokens is micro-dollars per token; this is pico-dollars per token, rounded up past 6 decimals. */
function picoPerToken(usdPerMTok: number): bigint {
  const scaled = usdPerMTok * 1e6;
  const nearest = Math.round(scaled);
  // Binary floats turn 0.3 into 299999.99999999994 pico: snap such noise, round anything real upwards.
  return BigInt(Math.abs(scaled - nearest) < 1e-6 ? nearest : Math.ceil(scaled));
}

/** The tokens of one request's prompt: fresh input plus cache reads and writes. */
function promptTokens(usage: TokenUsage): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}

/** The exact cost of one API request in pico-dollars, in the band its prompt size selects. */
export function requestCostPicoUsd(usage: TokenUsage, price: ModelPricing): bigint {
  const band: ModelPrice =
    price.longPrompt && promptTokens(usage) > price.longPrompt.overTokens ? price.longPrompt.price : price;
  return (
    BigInt(usage.inputTokens) * picoPerToken(band.inputPerMTok) +
    BigInt(usage.outputTokens) * picoPerToken(band.outputPerMTok) +
    BigInt(usage.cacheWriteTokens) * picoPerToken(band.cacheWritePerMTok) +
    BigInt(usage.cacheReadTokens) * picoPerToken(band.cacheReadPerMTok)
  );
}

/** Pico-dollars to whole micro-dollars, rounded up so Vigil never charges less than was spent. */
function ceilToMicro(pico: bigint): number {
  return Number((pico + PICO_PER_MICRO - 1n) / PICO_PER_MICRO);
}

/** What one request's tokens cost, in integer micro-dollars, rounded up. */
export function costMicroUsd(usage: TokenUsage, price: ModelPricing): number {
  return ceilToMicro(requestCostPicoUsd(usage, price));
}

/** What several requests cost together: each priced in its own band, summed exactly, rounded up once. */
export function totalCostMicroUsd(requests: readonly TokenUsage[], price: ModelPricing): number {
  return ceilToMicro(requests.reduce((sum, usage) => sum + requestCostPicoUsd(usage, price), 0n));
}

/** Micro-dollars as dollars, for events and display. */
export function microUsdToUsd(microUsd: number): number {
  return microUsd / MICRO_PER_USD;
}

/** Dollars (a cap, a top-up) as the nearest whole number of micro-dollars. */
export function usdToMicroUsd(usd: number): number {
  if (!Number.isFinite(usd))
    throw new VigilError('INTERNAL', `usdToMicroUsd got ${usd}: expected a finite number of US dollars.`);
  return Math.round(usd * MICRO_PER_USD);
}
