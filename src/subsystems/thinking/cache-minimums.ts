/** Each Claude model's minimum cacheable prompt length: a cached prefix shorter than this is silently never cached. */
import { canonicalModelId } from './pricing.js';

// Tokens, from Anthropic's prompt caching page (platform.claude.com/docs/en/build-with-claude/prompt-caching, "Cache
// limitations") as quoted by its mirrors and gateways in 2026: 4,096 for Opus 4.5, 4.6, 4.7 and Haiku 4.5; 2,048 for
// Haiku 3.5 and 3; 1,024 for Opus 4.8, Opus 4.1 and 4, Sonnet 5, Sonnet 4.6, 4.5, 4 and 3.7; 512 for Opus 5, Fable 5
// and Mythos 5. The 5.5 models, Fable 5.1/5.2 and Mythos 5.1 have no published number that sources agree on: they are
// left out rather than guessed, and their cache health is judged from the API's own counts alone.
const OPUS_4_5_TO_4_7 = 4096;
const HAIKU_4_5 = 4096;
const HAIKU_3_AND_3_5 = 2048;
const MOST = 1024;
const GEN_5 = 512;

/** Minimum cacheable prompt length in tokens, by canonical model id. */
export const CACHE_MINIMUM_TOKENS: Readonly<Record<string, number>> = {
  'claude-fable-5': GEN_5,
  'claude-mythos-5': GEN_5,
  'claude-opus-5': GEN_5,
  'claude-opus-4-8': MOST,
  'claude-opus-4-7': OPUS_4_5_TO_4_7,
  'claude-opus-4-6': OPUS_4_5_TO_4_7,
  'claude-opus-4-5': OPUS_4_5_TO_4_7,
  'claude-opus-4-1': MOST,
  'claude-opus-4': MOST,
  'claude-opus-4-0': MOST,
  'claude-sonnet-5': MOST,
  'claude-sonnet-4-6': MOST,
  'claude-sonnet-4-5': MOST,
  'claude-sonnet-4': MOST,
  'claude-sonnet-4-0': MOST,
  'claude-3-7-sonnet': MOST,
  'claude-haiku-4-5': HAIKU_4_5,
  'claude-3-5-haiku': HAIKU_3_AND_3_5,
  'claude-3-haiku': HAIKU_3_AND_3_5,
};

/** The model's minimum cacheable prompt length in tokens (dated snapshots and `-latest` resolve); undefined when unknown. */
export function minimumCacheableTokens(model: string): number | undefined {
  const canonical = canonicalModelId(model);
  if (Object.hasOwn(CACHE_MINIMUM_TOKENS, model)) return CACHE_MINIMUM_TOKENS[model];
  return Object.hasOwn(CACHE_MINIMUM_TOKENS, canonical) ? CACHE_MINIMUM_TOKENS[canonical] : undefined;
}
