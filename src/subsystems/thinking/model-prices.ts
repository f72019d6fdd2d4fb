/** The built-in table of Claude models' prices, so a configured model is priced without any setup. */
import type { ModelPrice, ModelPricing } from './model-price.schema.js';

// Prices in USD per million tokens, from Anthropic's pricing page
// https://platform.claude.com/docs/en/about-claude/pricing ("Model pricing") and the per-model overview pages
// under https://platform.claude.com/docs/en/models/, as published on 2026-11-24. Claude Fable 5.2 (released
// 2026-11-09) is newer than that copy of the page: its row (input $8, output $40, 5-minute cache write $10, cache
// read $0.20) is the list price as reported at its launch. `cacheWritePerMTok` is the 5-minute cache write (1.25x input): Vigil
// only writes 5-minute entries (`cache_control: {type: 'ephemeral'}` without `ttl`). Cache reads are 0.1x input,
// except where the page lists a cut (Fable 5.1 0.025x, Opus 5.5 and Sonnet 5.5 0.05x since 2026-10-07).
// Batch, fast-mode, data-residency and long-context (1M beta) rates do not apply: Vigil uses none of them.

/** One price row from its input, output and cache-read rates; the 5-minute cache write is 1.25x input everywhere. */
function row(inputPerMTok: number, outputPerMTok: number, cacheReadPerMTok: number): ModelPrice {
  return { inputPerMTok, outputPerMTok, cacheWritePerMTok: inputPerMTok * 1.25, cacheReadPerMTok };
}

const FABLE_5_2 = row(8, 40, 0.2);
const FABLE_5_1 = row(10, 50, 0.25);
const FABLE_5 = row(10, 50, 1);
const OPUS_5_5 = row(4, 20, 0.2);
const OPUS_4_5_TO_5 = row(5, 25, 0.5);
const OPUS_4_AND_4_1 = row(15, 75, 1.5);
const SONNET_5_5 = row(2, 10, 0.1);
const SONNET_5 = row(2, 10, 0.2);
const SONNET_3_7_TO_4_6 = row(3, 15, 0.3);
const HAIKU_4_5 = row(1, 5, 0.1);
const HAIKU_3_5 = row(0.8, 4, 0.08);
const HAIKU_3 = { inputPerMTok: 0.25, outputPerMTok: 1.25, cacheWritePerMTok: 0.3, cacheReadPerMTok: 0.03 };

/** Haiku 5.5 bills a whole request (output included) at 5x once its prompt passes 100,000 tokens. */
const HAIKU_5_5: ModelPricing = {
  ...row(0.1, 0.5, 0.01),
  longPrompt: { overTokens: 100_000, price: row(0.5, 2.5, 0.05) },
};

/** Prices by model id; dated snapshots (`<id>-YYYYMMDD`) and `-latest` aliases resolve to these ids. */
export const MODEL_PRICES: Readonly<Record<string, ModelPricing>> = {
  'claude-fable-5-2': FABLE_5_2,
  'claude-fable-5-1': FABLE_5_1,
  'claude-mythos-5-1': FABLE_5_1,
  'claude-fable-5': FABLE_5,
  'claude-mythos-5': FABLE_5,
  'claude-opus-5-5': OPUS_5_5,
  'claude-opus-5': OPUS_4_5_TO_5,
  'claude-opus-4-8': OPUS_4_5_TO_5,
  'claude-opus-4-7': OPUS_4_5_TO_5,
  'claude-opus-4-6': OPUS_4_5_TO_5,
  'claude-opus-4-5': OPUS_4_5_TO_5,
  'claude-opus-4-1': OPUS_4_AND_4_1,
  'claude-opus-4': OPUS_4_AND_4_1,
  'claude-opus-4-0': OPUS_4_AND_4_1,
  'claude-sonnet-5-5': SONNET_5_5,
  'claude-sonnet-5': SONNET_5,
  'claude-sonnet-4-6': SONNET_3_7_TO_4_6,
  'claude-sonnet-4-5': SONNET_3_7_TO_4_6,
  'claude-sonnet-4': SONNET_3_7_TO_4_6,
  'claude-sonnet-4-0': SONNET_3_7_TO_4_6,
  'claude-3-7-sonnet': SONNET_3_7_TO_4_6,
  'claude-haiku-5-5': HAIKU_5_5,
  'claude-haiku-4-5': HAIKU_4_5,
  'claude-3-5-haiku': HAIKU_3_5,
  'claude-3-haiku': HAIKU_3,
};
