/**
 * The settings every model-backed thinker checks at construction: the tool-loop guard and the model's price. The
 * configuration validates both already; a program that embeds a thinker directly gets the same named errors.
 */
import { VigilError } from '../../errors.js';
import { ModelPricingSchema, type ModelPricing } from './pricing.js';

/** The options every model-backed thinker takes (each provider's options add their own). */
export interface ModelThinkerOptions {
  /** Model id for every call; also the `model` reported in results. */
  model: string;
  /** The model's price (`resolvePrice(model, overrides)`; 0 for a local model), which turns usage into micro-dollars. */
  price: ModelPricing;
  /** Iteration guard: the most model calls one think may make. */
  maxToolIterations: number;
  /** Retries the SDK makes on 408/409/429/5xx (and Anthropic's 529) and timeouts, with backoff honouring retry-after (default 4). */
  maxRetries?: number;
  /** Timeout of one HTTP attempt in ms, the response body included, and the longest silence in a stream (default 120000). */
  timeoutMs?: number;
  /** Output token cap of one call (default 4096), which also caps what one call can cost. */
  maxTokens?: number;
  /** Epoch ms for the trace's timestamps (default `Date.now`); the runtime passes its clock. */
  now?: () => number;
}

/** What a thinker is constructed with, of the checked settings. */
export interface ThinkerSettingsInput {
  model: string;
  maxToolIterations: number;
  price: unknown;
}

/** The checked settings; CONFIG_INVALID naming VIGIL_MAX_TOOL_ITERATIONS or VIGIL_PRICING_JSON when one is not valid. */
export function checkedThinkerSettings(input: ThinkerSettingsInput): {
  maxToolIterations: number;
  price: ModelPricing;
} {
  const guard = input.maxToolIterations;
  if (!Number.isSafeInteger(guard) || guard < 1) {
    throw new VigilError(
      'CONFIG_INVALID',
      `VIGIL_MAX_TOOL_ITERATIONS=${guard} is invalid: expected a positive integer.`,
      {
        data: { variable: 'VIGIL_MAX_TOOL_ITERATIONS', value: guard, allowed: 'a positive integer' },
      },
    );
  }
  const price = ModelPricingSchema.safeParse(input.price);
  if (!price.success) {
    throw new VigilError('CONFIG_INVALID', `The price of ${input.model} is invalid: ${price.error.message}`, {
      data: {
        variable: 'VIGIL_PRICING_JSON',
        value: input.price,
        allowed: 'prices in USD per million tokens, 0 or more',
      },
    });
  }
  return { maxToolIterations: guard, price: price.data };
}
