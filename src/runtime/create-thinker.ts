/** The thinker a configuration asks for: offline, Claude through the Anthropic SDK, or any OpenAI-compatible endpoint (each SDK imported only then). */
import type { VigilConfig } from '../config.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { OfflineThinker } from '../subsystems/thinking/offline-thinker.js';
import { resolvePrice, usdToMicroUsd } from '../subsystems/thinking/pricing.js';
import type { Thinker } from '../subsystems/thinking/thinker.js';

/** The thinker the configuration asks for; a model SDK is loaded only for its own thinker. `clock` times its traces. */
export async function createThinker(config: VigilConfig, clock: Clock = systemClock): Promise<Thinker> {
  if (config.thinker === 'offline') {
    return new OfflineThinker({ model: 'offline', costPerThinkMicroUsd: usdToMicroUsd(config.offlineCostUsd) });
  }
  // The config schema already refused a thinker without its key; an unknown model's price is refused here, at start.
  const price = resolvePrice(config.model, config.pricingOverrides);
  if (config.thinker === 'openai') {
    const { OpenAiThinker } = await import('../subsystems/thinking/openai-thinker.js');
    return new OpenAiThinker({
      ...(config.openaiApiKey === undefined ? {} : { apiKey: config.openaiApiKey }),
      ...(config.openaiBaseUrl === undefined ? {} : { baseURL: config.openaiBaseUrl }),
      model: config.model,
      price,
      maxToolIterations: config.maxToolIterations,
      timeoutMs: config.openaiTimeoutMs,
      now: () => clock.now(),
    });
  }
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
