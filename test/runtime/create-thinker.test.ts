/** createThinker: the thinker VIGIL_THINKER names, priced at start, and the provider its spans name. */
import { describe, expect, it } from 'vitest';
import { configFromDefaults } from '../../src/config.js';
import { createThinker } from '../../src/runtime/create-thinker.js';
import { providerNameOf } from '../../src/runtime/think-span-export.js';
import { OpenAiThinker } from '../../src/subsystems/thinking/openai-thinker.js';

const FREE = { inputPerMTok: 0, outputPerMTok: 0, cacheWritePerMTok: 0, cacheReadPerMTok: 0 };

describe('createThinker', () => {
  it('makes the OpenAI-compatible thinker for VIGIL_THINKER=openai, a local model priced 0 explicitly', async () => {
    const config = configFromDefaults({
      thinker: 'openai',
      model: 'llama3.2',
      openaiBaseUrl: 'http://localhost:11434/v1',
      pricingOverrides: { 'llama3.2': FREE },
    });
    const thinker = await createThinker(config);
    expect(thinker).toBeInstanceOf(OpenAiThinker);
    expect(thinker.kind).toBe('openai');
    expect((thinker as OpenAiThinker).price).toEqual(FREE);
    expect((thinker as OpenAiThinker).outputCapField).toBe('max_tokens');
  });

  it('refuses at start, naming VIGIL_MODEL, a model with no known price', async () => {
    const config = configFromDefaults({
      thinker: 'openai',
      model: 'llama3.2',
      openaiBaseUrl: 'http://localhost:11434/v1',
    });
    await expect(createThinker(config)).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      data: { variable: 'VIGIL_MODEL', value: 'llama3.2' },
    });
  });

  it('names the provider of the spans as the GenAI conventions do', () => {
    expect(providerNameOf('openai')).toBe('openai');
    expect(providerNameOf('anthropic')).toBe('anthropic');
    expect(providerNameOf('offline')).toBe('vigil.offline');
  });
});
