import { afterEach, describe, expect, it } from 'vitest';
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import { startGatewayHarness, type Frame, type GatewayHarness, type RawClient } from './gateway.fixture.js';

let h: GatewayHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const eventsOf = (client: RawClient, subscription?: unknown): VigilEvent[] =>
  client
    .notifications('events.event')
    .filter((p) => subscription === undefined || p['subscription'] === subscription)
    .map((p) => p['event'] as VigilEvent);

async function subscribe(
  client: RawClient,
  params: Record<string, unknown> = {},
): Promise<{ subscription: string; after: number }> {
  const response = await client.request('events.subscribe', params);
  return response.result as { subscription: string; after: number };
}

describe('event feed over WebSocket', () => {
  it('sends matching events as events.event notifications, never before the subscribe answer', async () => {
    h = await startGatewayHarness();
    const client = await h.connect();
    const { subscription } = await subscribe(client, { types: ['heartbeat.*'] });
    await h.advance(3000);
    await client.waitFor(() => eventsOf(client).filter((e) => e.type === 'heartbeat.beat').length === 3, 'three beats');
    const responseIndex = client.frames.findIndex((f) => (f as Frame).result !== undefined);
    const firstEventIndex = client.frames.findIndex((f) => (f as Frame).method === 'events.event');
    expect(responseIndex).toBeLessThan(firstEventIndex);
    const events = eventsOf(client, subscription);
    expect(events.every((e) => e.type.startsWith('heartbeat.'))).toBe(true);
    expect(
      events.filter((e) => e.type === 'heartbeat.beat').map((e) => (e as { beatCount: number }).beatCount),
    ).toEqual([1, 2, 3]);
    expect(client.notifications('events.event')[0]).toEqual({ subscription, event: events[0] });
  });

  it('stops sending after events.unsubscribe', async () => {
    h = await startGatewayHarness();
    const client = await h.connect();
    const { subscription } = await subscribe(client, { types: ['heartbeat.beat'] });
    await h.advance(2000);
    await client.waitFor(() => eventsOf(client).length === 2, 'two beats');
    await client.request('events.unsubscribe', { subscription });
    await h.advance(3000);
    await client.request('heartbeat.status');
    expect(eventsOf(client)).toHaveLength(2);
  });

  it('replays after a seq from the journal, then goes live: no gap, no repeat', async () => {
    h = await startGatewayHarness();
    await h.advance(5000);
    const beats = h.ofType('heartbeat.beat');
    const client = await h.connect();
    const { after } = await subscribe(client, { types: ['heartbeat.beat'], after: beats[1]!.seq });
    expect(after).toBe(beats[1]!.seq);
    const replay = h.until(client.waitFor(() => eventsOf(client).length >= 6, 'replay then live'));
    await replay;
    const got = eventsOf(client).map((e) => (e as { beatCount: number }).beatCount);
    expect(got.slice(0, 6)).toEqual([3, 4, 5, 6, 7, 8].slice(0, 6));
    expect(new Set(eventsOf(client).map((e) => e.seq)).size).toBe(eventsOf(client).length);
  });

  it('gives a client that reconnects with after: lastSeq exactly the events it missed', async () => {
    h = await startGatewayHarness();
    const first = await h.connect();
    await subscribe(first, {});
    await h.advance(3000);
    await first.waitFor(
      () => eventsOf(first).some((e) => e.type === 'heartbeat.beat' && (e as { beatCount: number }).beatCount === 3),
      'beat 3',
    );
    const seen = eventsOf(first);
    const lastSeq = seen.at(-1)!.seq;
    await first.close();
    await h.advance(4000);
    const emittedSinceSeen = h.events.filter((e) => e.seq > lastSeq).map((e) => e.seq);
    expect(emittedSinceSeen.length).toBeGreaterThan(3);
    const second = await h.connect();
    await subscribe(second, { after: lastSeq });
    await second.waitFor(() => eventsOf(second).length >= emittedSinceSeen.length, 'the missed events');
    expect(eventsOf(second).map((e) => e.seq)).toEqual(emittedSinceSeen);
  });

  it('keeps a stalled subscriber bounded during 10,000 events while another receives every one', async () => {
    const subscriberBuffer = 100;
    const highWaterBytes = 64 * 1024;
    h = await startGatewayHarness({ gateway: { subscriberBuffer, highWaterBytes, maxDropped: 1_000_000 } });
    const healthy = await h.connect();
    const stalled = await h.connect();
    await subscribe(healthy, { types: ['agent.message'] });
    const { subscription: stalledSub } = await subscribe(stalled, { types: ['agent.message'] });
    stalled.ws.pause(); // never reads: the kernel buffers fill, then the gateway's
    const { bus } = h;
    const text = 'x'.repeat(2000);
    let maxQueued = 0;
    let maxBuffered = 0;
    for (let batch = 0; batch < 200; batch += 1) {
      for (let i = 0; i < 50; i += 1) bus.emit('agent.message', { turnId: `t-${batch}-${i}`, text, from: 'load' });
      const target = (batch + 1) * 50;
      // Frames so far: the subscribe answer plus one per event (a cheap count: this runs on every frame).
      await healthy.waitFor(() => healthy.frames.length >= target + 1, `event ${target}`);
      const stats = h.gateway.stats().connections.find((c) => c.subscriptions[stalledSub] !== undefined)!;
      maxQueued = Math.max(maxQueued, stats.subscriptions[stalledSub]!.queued);
      maxBuffered = Math.max(maxBuffered, stats.bufferedAmount);
    }
    const healthySeqs = eventsOf(healthy).map((e) => e.seq);
    expect(healthySeqs).toHaveLength(10_000);
    expect(healthySeqs.every((seq, i) => i === 0 || seq > healthySeqs[i - 1]!)).toBe(true);

    const stalledStats = h.gateway.stats().connections.find((c) => c.subscriptions[stalledSub] !== undefined)!;
    const subStats = stalledStats.subscriptions[stalledSub]!;
    expect(maxQueued).toBeLessThanOrEqual(subscriberBuffer);
    // Never more than the high-water mark plus the one frame that crossed it.
    expect(maxBuffered).toBeLessThan(highWaterBytes + 3000);
    // The kernel's socket buffers absorb a few MB before the gateway sees the stall; the rest is dropped.
    expect(subStats.droppedTotal).toBeGreaterThan(1000);
    expect(subStats.delivered + subStats.queued + subStats.droppedTotal).toBe(10_000);

    // Once it reads again it gets what was buffered, then one events.dropped naming the gap.
    stalled.ws.resume();
    const notice = (await stalled.waitFor((f) => f.method === 'events.dropped', 'events.dropped')).params!;
    const got = eventsOf(stalled).map((e) => e.seq);
    expect(notice).toEqual({
      subscription: stalledSub,
      count: subStats.droppedTotal,
      firstSeq: got.at(-1)! + 1,
      lastSeq: healthySeqs.at(-1)!,
    });
    expect(got).toEqual(healthySeqs.slice(0, got.length));
    expect(got.length + (notice['count'] as number)).toBe(10_000);
    expect(stalled.notifications('events.dropped')).toHaveLength(1);
  });

  it('disconnects a subscriber with 1008 once it dropped more than the second bound', async () => {
    h = await startGatewayHarness({ gateway: { subscriberBuffer: 10, highWaterBytes: 16 * 1024, maxDropped: 50 } });
    const stalled = await h.connect();
    await subscribe(stalled, { types: ['agent.message'] });
    stalled.ws.pause();
    const text = 'z'.repeat(4000);
    const subscriptions = () => Object.keys(h!.gateway.stats().connections[0]?.subscriptions ?? {}).length;
    for (let i = 0; i < 5000 && subscriptions() > 0; i += 1) {
      h.bus.emit('agent.message', { turnId: `t-${i}`, text, from: 'load' });
      if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
    }
    expect(subscriptions()).toBe(0);
    stalled.ws.resume();
    expect((await stalled.closed).code).toBe(1008);
  });
});
