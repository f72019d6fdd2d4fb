/** Live-only events (CONTRACT §13) on the feeds: only to subscribers naming the type exactly, without seq, never in the journal. */
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/vigil-client.js';
import type { FeedEvent } from '../../src/client/client-core.js';
import { startGatewayHarness, TEST_TOKEN, type GatewayHarness, type RawClient } from './gateway.fixture.js';
import { openSse } from './sse-client.js';

let h: GatewayHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const feedOf = (client: RawClient, subscription: unknown) =>
  client
    .notifications('events.event')
    .filter((p) => p['subscription'] === subscription)
    .map((p) => p['event'] as Record<string, unknown>);

async function subscribe(client: RawClient, types?: string[]): Promise<string> {
  const response = await client.request('events.subscribe', types === undefined ? {} : { types });
  return (response.result as { subscription: string }).subscription;
}

/** A reply streamed in two pieces, then the reply itself, as the runtime emits them. */
function streamReply(harness: GatewayHarness): void {
  harness.bus.emitLive('agent.reply_delta', { turnId: 't-1', text: 'Hel' });
  harness.bus.emitLive('agent.reply_delta', { turnId: 't-1', text: 'lo.' });
  harness.bus.emit('agent.reply', { turnId: 't-1', text: 'Hello.' });
}

describe('agent.reply_delta on the event feeds', () => {
  it('reaches a WebSocket subscription naming it, before the reply and without seq; agent.* and everything do not get it, nor does the journal', async () => {
    h = await startGatewayHarness();
    const client = await h.connect();
    const named = await subscribe(client, ['agent.reply_delta', 'agent.reply']);
    const prefixed = await subscribe(client, ['agent.*']);
    const all = await subscribe(client);
    streamReply(h);
    await client.waitFor(
      () => feedOf(client, named).length === 3 && feedOf(client, prefixed).some((e) => e['type'] === 'agent.reply'),
      'the reply on both feeds',
    );

    const got = feedOf(client, named);
    expect(got.map((e) => [e['type'], e['text']])).toEqual([
      ['agent.reply_delta', 'Hel'],
      ['agent.reply_delta', 'lo.'],
      ['agent.reply', 'Hello.'],
    ]);
    expect(got[0]).not.toHaveProperty('seq');
    expect(got[0]).toMatchObject({ turnId: 't-1', at: expect.any(String), beat: expect.any(Number) });
    expect(typeof got[2]!['seq']).toBe('number');
    expect(feedOf(client, prefixed).map((e) => e['type'])).not.toContain('agent.reply_delta');
    await client.waitFor(
      () => feedOf(client, all).some((e) => e['type'] === 'agent.reply'),
      'the reply on the unfiltered feed',
    );
    expect(feedOf(client, all).map((e) => e['type'])).not.toContain('agent.reply_delta');
    const history = await client.request('events.history', { types: ['agent.reply_delta', 'agent.reply'] });
    expect((history.result as { type: string }[]).map((e) => e.type)).toEqual(['agent.reply']);
  });

  it('reaches an SSE stream naming it as data without an id:, so Last-Event-ID never moves to it', async () => {
    h = await startGatewayHarness();
    const stream = await openSse(`${h.gateway.url}/events?types=agent.reply_delta,agent.reply&token=${TEST_TOKEN}`);
    try {
      await stream.waitFor(() => stream.raw().includes(': vigil event feed'), 'the stream to open');
      streamReply(h);
      await stream.waitFor((m) => m.length === 3, 'deltas and reply');
      expect(stream.messages.map((m) => [m.id, (JSON.parse(m.data) as { type: string }).type])).toEqual([
        [undefined, 'agent.reply_delta'],
        [undefined, 'agent.reply_delta'],
        [expect.stringMatching(/^\d+$/), 'agent.reply'],
      ]);
    } finally {
      stream.close();
    }
  });

  it('reaches the client through subscribeFeed in place, and never through subscribe, whose cursor it does not move', async () => {
    h = await startGatewayHarness();
    const client = await connect({ url: h.gateway.url, token: TEST_TOKEN, reconnect: false });
    try {
      const withLive: FeedEvent[] = [];
      const plain: FeedEvent[] = [];
      const a = client.subscribeFeed(['agent.reply_delta', 'agent.reply']).subscribe((e) => withLive.push(e));
      const b = client.subscribe(['agent.reply_delta', 'agent.reply']).subscribe((e) => plain.push(e));
      // Both subscriptions are open once a later request has been answered (requests are answered in order).
      await client.heartbeat.status();
      streamReply(h);
      await h.until(
        new Promise<void>((resolve) => {
          const check = setInterval(() => {
            if (withLive.length === 3 && plain.length === 1) {
              clearInterval(check);
              resolve();
            }
          }, 5);
        }),
      );
      expect(withLive.map((e) => e.type)).toEqual(['agent.reply_delta', 'agent.reply_delta', 'agent.reply']);
      expect(plain.map((e) => e.type)).toEqual(['agent.reply']);
      a.unsubscribe();
      b.unsubscribe();
    } finally {
      await client.close();
    }
  });
});
