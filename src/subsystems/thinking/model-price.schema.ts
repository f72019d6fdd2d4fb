/** A model's price as configuration and the price table write it: USD per million tokens of each kind. */
import { z } from 'zod';

/** What a price override may look like, in the words a configuration error shows. */
export const ALLOWED_PRICE =
  'expected a JSON object like {"<model>": {"inputPerMTok": 3, "outputPerMTok": 15, "cacheWritePerMTok": 3.75, "cacheReadPerMTok": 0.3}} with prices in USD per million tokens, 0 or more';

const price = z.number({ error: ALLOWED_PRICE }).nonnegative({ error: ALLOWED_PRICE });

/** Per-model prices in USD per million tokens, overriding the built-in table. */
export const ModelPriceSchema = z.strictObject(
  { inputPerMTok: price, outputPerMTok: price, cacheWritePerMTok: price, cacheReadPerMTok: price },
  { error: ALLOWED_PRICE },
);
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

/** A model's price in USD per million tokens, with an optional dearer band for requests whose prompt passes `overTokens`. */
export const ModelPricingSchema = ModelPriceSchema.extend({
  /** The band that prices a whole request (output included) once input + cache reads + cache writes exceed `overTokens`. */
  longPrompt: z.object({ overTokens: z.number().int().positive(), price: ModelPriceSchema }).optional(),
});
export type ModelPricing = z.infer<typeof ModelPricingSchema>;
