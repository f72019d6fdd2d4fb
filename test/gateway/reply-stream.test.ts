/**
 * agent.reply_delta end to end, for each provider that streams: the runtime with the OpenAI-compatible thinker (the
 * real openai SDK against the fake Chat Completions API) or the Anthropic thinker (the real Anthropic SDK against the
 * fake Messages API) behind the gateway; a WebSocket subscriber naming the type gets the reply's text in pieces before
 * the agent.reply, whose text is their concatenation (whether the model wrote it in the reply tool or as plain text),
 * and a subscriber to agent.* gets only the reply.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { VigilConfig } from '../../src/config.js';
import { completion, startFakeChatCompletions, toolCall } from '../fixtures/fake-chat-completions.js';
import { message, startFakeMessagesApi, text, toolUse } from '../fixtures/fake-messages-api.js';
import { startGatewayHarness, type GatewayHarness, type RawClient } from './gateway.fixture.js';

const TEXT = 'High water at Brest is at 06:12 and 18:40 today; the range is 6.1 m, a spring tide. Bring a coat.';

/** A provider's fake, as these tests drive it: the config that points a runtime at it, and a scripted reply. */
interface Provider {
  config: Partial<VigilConfig>;
  /** Answers the next think with one reply call to `turnId`, then ends it. */
  replyWith(turnId: string, said: string): void;
  /** Answers the next think in plain text, calling no tool (as many local models do). */
  answerInText(said: string): void;
  /** Whether each request asked for a stream. */
  streamed(): boolean[];
  close(): Promise<void>;
}

const PROVIDERS: Record<string, () => Promise<Provider>> = {
  openai: async () => {
    const api = await startFakeChatCompletions();
    const model = 'gpt-fake-1';
    const price = { inputPerMTok: 2, outputPerMTok: 10, cacheWritePerMTok: 0, cacheReadPerMTok: 0.2 };
    return {
      config: { thinker: 'openai', openaiBaseUrl: api.url, model, pricingOverrides: { [model]: price } },
      replyWith: (turnId, said) =>
        api.enqueue(completion(null, [toolCall('reply', { turnId, text: said })]), completion('done')),
      answerInText: (said) => api.enqueue(completion(said)),
      streamed: () => api.requests.map((r) => r.body?.stream === true),
      close: () => api.close(),
    };
  },
  anthropic: async () => {
    const api = await startFakeMessagesApi();
    return {
      config: { thinker: 'anthropic', anthropicApiKey: 'sk-test', anthropicBaseUrl: api.url },
      replyWith: (turnId, said) =>
        api.enqueue(message([toolUse('reply', { turnId, text: said })]), message([text('done')])),
      answerInText: (said) => api.enqueue(message([text(said)])),
      streamed: () => api.requests.map((r) => r.body?.stream === true),
      close: () => api.close(),
    };
  },
};

let h: GatewayHarness | undefined;
let provider: Provider | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  await provider?.close();
  provider = undefined;
});

const feedOf = (client: RawClient, subscription: unknown) =>
  client
    .notifications('events.event')
    .filter((p) => p['subscription'] === subscription)
    .map((p) => p['event'] as Record<string, unknown>);

async function subscribe(client: RawClient, types: string[]): Promise<string> {
  const response = await client.request('events.subscribe', { types });
  return (response.result as { subscription: string }).subscription;
}

describe.each(Object.keys(PROVIDERS))('agent.reply_delta from a streamed %s reply', (name) => {
  it('reaches a WebSocket subscriber naming it in pieces before the agent.reply, whose text is their concatenation; agent.* gets only the reply', async () => {
    provider = await PROVIDERS[name]!();
    h = await startGatewayHarness({ runtime: { config: provider.config } });
    const client = await h.connect();
    const named = await subscribe(client, ['agent.reply_delta', 'agent.reply']);
    const prefixed = await subscribe(client, ['agent.*']);
    const sent = await h.runtime.send({ text: 'When is high water?' });
    provider.replyWith(sent.turnId, TEXT);
    await h.advance(1000);
    await client.waitFor(
      () =>
        feedOf(client, named).some((e) => e['type'] === 'agent.reply') &&
        feedOf(client, prefixed).some((e) => e['type'] === 'agent.reply'),
      'the reply on both feeds',
    );

    expect(provider.streamed()[0]).toBe(true);
    const got = feedOf(client, named);
    const deltas = got.slice(0, -1);
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.every((e) => e['type'] === 'agent.reply_delta' && e['turnId'] === sent.turnId)).toBe(true);
    expect(deltas.every((e) => !('seq' in e))).toBe(true);
    expect(got.at(-1)).toMatchObject({ type: 'agent.reply', turnId: sent.turnId, text: TEXT });
    expect(deltas.map((e) => e['text']).join('')).toBe(TEXT);
    expect(feedOf(client, prefixed).map((e) => e['type'])).not.toContain('agent.reply_delta');
  });

  it('streams an answer the model writes in plain text the same way: pieces before the agent.reply, their concatenation its text', async () => {
    provider = await PROVIDERS[name]!();
    h = await startGatewayHarness({ runtime: { config: provider.config } });
    const client = await h.connect();
    const named = await subscribe(client, ['agent.reply_delta', 'agent.reply']);
    const sent = await h.runtime.send({ text: 'When is high water?' });
    provider.answerInText(`${TEXT}\n`);
    await h.advance(1000);
    await client.waitFor(() => feedOf(client, named).some((e) => e['type'] === 'agent.reply'), 'the reply');

    expect(provider.streamed()).toEqual([true]);
    const got = feedOf(client, named);
    const deltas = got.slice(0, -1);
    expect(deltas.length).toBeGreaterThanOrEqual(2);
    expect(deltas.every((e) => e['type'] === 'agent.reply_delta' && e['turnId'] === sent.turnId)).toBe(true);
    expect(got.at(-1)).toMatchObject({ type: 'agent.reply', turnId: sent.turnId, text: TEXT });
    expect(deltas.map((e) => e['text']).join('')).toBe(TEXT);
  });

  it('asks the model for a whole reply while no feed names agent.reply_delta', async () => {
    provider = await PROVIDERS[name]!();
    h = await startGatewayHarness({ runtime: { config: provider.config } });
    const client = await h.connect();
    const prefixed = await subscribe(client, ['agent.*']);
    const sent = await h.runtime.send({ text: 'When is high water?' });
    provider.replyWith(sent.turnId, TEXT);
    await h.advance(1000);
    await client.waitFor(() => feedOf(client, prefixed).some((e) => e['type'] === 'agent.reply'), 'the reply');
    expect(provider.streamed()).toEqual([false, false]);
  });
});
