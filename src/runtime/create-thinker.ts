/** The thinker a configuration asks for: offline, or Claude through the Anthropic SDK (imported only then). */
import type { VigilConfig } from '../config.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { OfflineThinker } from '../subsystems/thinking/offline-thinker.js';
import { resolvePrice, usdToMicroUsd } from '../subsystems/thinking/pricing.js';
import type { Thinker } from '../subsystems/thinking/thinker.js';

/** The thinker the configuration asks for; the Anthropic SDK is loaded only for the Anthropic thinker. `clock` times its traces. */
export async function createThinker(config: VigilConfig, clock: Clock = systemClock): Promise<Thinker> {
  if (config.thinker === 'offline') {
    return new OfflineThinker({ model: 'offline', costPerThinkMicroUsd: usdToMicroUsd(config.offlineCostUsd) });
  }
  // The config schema already refused "anthropic" without a key; an unknown model's price is refused here, at start.
  const price = resolvePrice(config.model, config.pricingOverrides);
  const { AnthropicThinker } = await import('../subsystems/thinking/anthropic-thinker.js');
  return new AnthropicThinker({
    apiKey: config.anthropicApiKey ?? '',
    ...(config.anthropicBaseUrl === undefined ? {} : { baseURL: config.anthropicBaseUrl }),
    model: config.model,
    price,
    maxToolIterations: config.maxToolIterations,
    timeoutMs: config.anthropicTimeoutMs,
    now: () => clock.now(),
    cacheTtl: config.cacheTtl,
  });
}
