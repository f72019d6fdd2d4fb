import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import { startGatewayHarness, TEST_TOKEN, type GatewayHarness } from './gateway.fixture.js';
import { openSse, type SseStream } from './sse-client.js';

let h: GatewayHarness;
const streams: SseStream[] = [];
beforeEach(async () => {
  h = await startGatewayHarness();
});
afterEach(async () => {
  for (const stream of streams.splice(0)) stream.close();
  await h.close();
});

async function open(path: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const stream = await openSse(`${h.gateway.url}${path}`, headers);
  streams.push(stream);
  return stream;
}

const parsed = (stream: SseStream): VigilEvent[] =>
  stream.messages.filter((m) => m.event === undefined).map((m) => JSON.parse(m.data) as VigilEvent);

describe('GET /events (Server-Sent Events)', () => {
  it('streams checkpoint events with the token in the query, id: lines carrying the seq (what curl -N prints)', async () => {
    const stream = await open(`/events?types=checkpoint.*&token=${TEST_TOKEN}`);
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    const saved = await h.until(h.runtime.createCheckpoint());
    await stream.waitFor((m) => m.length >= 1, 'checkpoint.created');
    const [message] = stream.messages;
    const event = JSON.parse(message!.data) as VigilEvent;
    expect(event).toMatchObject({ type: 'checkpoint.created', checkpointId: saved.id, beatCount: saved.beatCount });
    expect(message!.id).toBe(String(event.seq));
    expect(stream.raw()).toContain(`id: ${event.seq}\ndata: {"seq":${event.seq},"type":"checkpoint.created"`);
  });

  it('accepts the Bearer header and filters by exact type', async () => {
    const stream = await open('/events?types=heartbeat.beat', { authorization: `Bearer ${TEST_TOKEN}` });
    await h.advance(3000);
    await stream.waitFor((m) => m.length >= 3, 'three beats');
    expect(parsed(stream).map((e) => [e.type, (e as { beatCount: number }).beatCount])).toEqual([
      ['heartbeat.beat', 1],
      ['heartbeat.beat', 2],
      ['heartbeat.beat', 3],
    ]);
  });

  it('resumes with Last-Event-ID: a reconnecting client receives exactly the events it missed, then live ones', async () => {
    const first = await open(`/events?token=${TEST_TOKEN}`);
    await h.advance(3000);
    await first.waitFor(
      () => parsed(first).some((e) => e.type === 'heartbeat.beat' && (e as { beatCount: number }).beatCount === 3),
      'beat 3',
    );
    const lastId = first.messages.at(-1)!.id!;
    first.close();
    await h.advance(3000);
    const missed = h.events.filter((e) => e.seq > Number(lastId)).map((e) => e.seq);
    expect(missed.length).toBeGreaterThan(2);
    const second = await open(`/events?token=${TEST_TOKEN}`, { 'last-event-id': lastId });
    await second.waitFor((m) => m.length >= missed.length, 'the missed events');
    expect(parsed(second).map((e) => e.seq)).toEqual(missed);
    await h.advance(1000);
    await second.waitFor((m) => m.length > missed.length, 'a live event');
    const all = parsed(second).map((e) => e.seq);
    expect(new Set(all).size).toBe(all.length);
    expect(all).toEqual([...all].sort((a, b) => a - b));
  });

  it('answers 400 for a Last-Event-ID that is not a seq', async () => {
    const stream = await open(`/events?token=${TEST_TOKEN}`, { 'last-event-id': 'yesterday' });
    expect(stream.status).toBe(400);
  });

  it('forgets a stream (and its buffer) once its client goes away', async () => {
    const stream = await open(`/events?token=${TEST_TOKEN}`);
    expect(h.gateway.stats().streams).toHaveLength(1);
    stream.close();
    // Event-loop turns, not time: the server sees the socket close within a few.
    for (let turn = 0; turn < 1000 && h.gateway.stats().streams.length > 0; turn += 1)
      await new Promise((resolve) => setImmediate(resolve));
    expect(h.gateway.stats().streams).toHaveLength(0);
  });
});
