/**
 * agent.reply_delta end to end: the runtime with the OpenAI-compatible thinker (the real openai SDK against the fake
 * Chat Completions API) behind the gateway; a WebSocket subscriber naming the type gets the reply's text in pieces
 * before the agent.reply, whose text is their concatenation, and a subscriber to agent.* gets only the reply.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  completion,
  startFakeChatCompletions,
  toolCall,
  type FakeChatCompletions,
} from '../fixtures/fake-chat-completions.js';
import { startGatewayHarness, type GatewayHarness, type RawClient } from './gateway.fixture.js';

const MODEL = 'gpt-fake-1';
const PRICE = { inputPerMTok: 2, outputPerMTok: 10, cacheWritePerMTok: 0, cacheReadPerMTok: 0.2 };
const TEXT = 'High water at Brest is at 06:12 and 18:40 today; the range is 6.1 m, a spring tide. Bring a coat.';

let api: FakeChatCompletions;
let h: GatewayHarness | undefined;
beforeEach(async () => {
  api = await startFakeChatCompletions();
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  await api.close();
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

describe('agent.reply_delta from a streamed model reply', () => {
  it('reaches a WebSocket subscriber naming it in pieces before the agent.reply, whose text is their concatenation; agent.* gets only the reply', async () => {
    h = await startGatewayHarness({
      runtime: {
        config: { thinker: 'openai', openaiBaseUrl: api.url, model: MODEL, pricingOverrides: { [MODEL]: PRICE } },
      },
    });
    const client = await h.connect();
    const named = await subscribe(client, ['agent.reply_delta', 'agent.reply']);
    const prefixed = await subscribe(client, ['agent.*']);
    const sent = await h.runtime.send({ text: 'When is high water?' });
    api.enqueue(completion(null, [toolCall('reply', { turnId: sent.turnId, text: TEXT })]), completion('done'));
    await h.advance(1000);
    await client.waitFor(
      () =>
        feedOf(client, named).some((e) => e['type'] === 'agent.reply') &&
        feedOf(client, prefixed).some((e) => e['type'] === 'agent.reply'),
      'the reply on both feeds',
    );

    expect(api.requests[0]!.body?.stream).toBe(true);
    const got = feedOf(client, named);
    const deltas = got.slice(0, -1);
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.every((e) => e['type'] === 'agent.reply_delta' && e['turnId'] === sent.turnId)).toBe(true);
    expect(deltas.every((e) => !('seq' in e))).toBe(true);
    expect(got.at(-1)).toMatchObject({ type: 'agent.reply', turnId: sent.turnId, text: TEXT });
    expect(deltas.map((e) => e['text']).join('')).toBe(TEXT);
    expect(feedOf(client, prefixed).map((e) => e['type'])).not.toContain('agent.reply_delta');
  });

  it('asks the model for a whole reply while no feed names agent.reply_delta', async () => {
    h = await startGatewayHarness({
      runtime: {
        config: { thinker: 'openai', openaiBaseUrl: api.url, model: MODEL, pricingOverrides: { [MODEL]: PRICE } },
      },
    });
    const client = await h.connect();
    const prefixed = await subscribe(client, ['agent.*']);
    const sent = await h.runtime.send({ text: 'When is high water?' });
    api.enqueue(completion(null, [toolCall('reply', { turnId: sent.turnId, text: TEXT })]), completion('done'));
    await h.advance(1000);
    await client.waitFor(() => feedOf(client, prefixed).some((e) => e['type'] === 'agent.reply'), 'the reply');
    expect(api.requests.map((r) => r.body?.stream === true)).toEqual([false, false]);
  });
});
