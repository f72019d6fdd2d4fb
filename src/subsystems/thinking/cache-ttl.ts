/** The prompt cache's lifetime (`VIGIL_CACHE_TTL`): the breakpoint it asks for, how long it lasts, what its writes cost. */
import type { ModelPrice, ModelPricing } from './model-price.schema.js';

/** The lifetimes the Messages API offers for `cache_control: {type: "ephemeral", ttl}`. */
export const CACHE_TTLS = ['5m', '1h'] as const;
export type CacheTtl = (typeof CACHE_TTLS)[number];

const TTL_MS: Readonly<Record<CacheTtl, number>> = { '5m': 5 * 60_000, '1h': 60 * 60_000 };

/** How long an entry lives after its last write or read. */
export function cacheTtlMs(ttl: CacheTtl): number {
  return TTL_MS[ttl];
}

/** A breakpoint with this lifetime; 5 minutes is the API's default, so it is sent without `ttl` (the same bytes as ever). */
export function cacheBreakpoint(ttl: CacheTtl): { type: 'ephemeral'; ttl?: '1h' } {
  return ttl === '5m' ? { type: 'ephemeral' } : { type: 'ephemeral', ttl: '1h' };
}

/** The blocks with every existing breakpoint set to `ttl`; the very same array when the lifetime is the default. */
export function withCacheTtl<T extends { cache_control?: unknown }>(blocks: readonly T[], ttl: CacheTtl): readonly T[] {
  if (ttl === '5m') return blocks;
  return blocks.map((block) =>
    block.cache_control === undefined || block.cache_control === null
      ? block
      : { ...block, cache_control: cacheBreakpoint(ttl) },
  );
}

// Anthropic's pricing: a 5-minute cache write costs 1.25x base input, a 1-hour write 2x (platform.claude.com pricing,
// "Prompt caching"; e.g. Opus 5: $6.25 and $10 per MTok against $5 input).
const ONE_HOUR_WRITE_FACTOR = 2;

function oneHour(price: ModelPrice): ModelPrice {
  return { ...price, cacheWritePerMTok: price.inputPerMTok * ONE_HOUR_WRITE_FACTOR };
}

/** The price of a model whose cache writes have lifetime `ttl`: 1-hour writes at twice base input, in every band. */
export function priceForCacheTtl(price: ModelPricing, ttl: CacheTtl): ModelPricing {
  if (ttl === '5m') return price;
  const { longPrompt, ...base } = price;
  return longPrompt === undefined
    ? oneHour(base)
    : { ...oneHour(base), longPrompt: { overTokens: longPrompt.overTokens, price: oneHour(longPrompt.price) } };
}
