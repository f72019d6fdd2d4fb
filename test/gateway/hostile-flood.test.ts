/**
 * A client flooding requests: the per-connection token bucket (VIGIL_RPC_RATE_LIMIT requests per second, bursts of
 * VIGIL_RPC_RATE_BURST) answers the excess with -32029 and runs none of it; the connection stays open, other
 * connections are untouched, the refusals are logged once per stretch, and the heartbeat keeps beating.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RATE_LIMIT_LOG_EVERY_MS } from '../../src/gateway/rpc-connection.js';
import { DEFAULT_RATE_LIMIT, TokenBucket } from '../../src/gateway/token-bucket.js';
import { recordingLogger, LEVELS, type LogRecord } from '../faults/recording-logger.js';
import { startGatewayHarness, type Frame, type GatewayHarness, type RawClient } from './gateway.fixture.js';

let h: GatewayHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const { perSecond, burst } = DEFAULT_RATE_LIMIT;

/** Sends `count` heartbeat.status requests at once and resolves with their responses, in order. */
async function flood(client: RawClient, count: number, prefix: string): Promise<Frame[]> {
  const answers: Array<Promise<Frame>> = [];
  for (let i = 0; i < count; i += 1) {
    const id = `${prefix}${i}`;
    client.send({ jsonrpc: '2.0', method: 'heartbeat.status', id });
    answers.push(client.waitFor((frame) => frame.id === id, id));
  }
  return Promise.all(answers);
}

const limited = (frames: Frame[]) =>
  frames.filter((f) => (f['error'] as { code?: number } | undefined)?.code === -32029);
const served = (frames: Frame[]) => frames.filter((f) => 'result' in f);

async function start(): Promise<{ harness: GatewayHarness; records: LogRecord[] }> {
  const { log, records } = recordingLogger();
  h = await startGatewayHarness({ gateway: { log } });
  return { harness: h, records };
}

describe('the gateway under a request flood', () => {
  it('serves a burst, answers the rest with -32029, stays connected, and serves again as the bucket refills', async () => {
    const { harness, records } = await start();
    const client = await harness.connect();
    // Simulated time stands still during the flood: exactly the burst gets through.
    const first = await flood(client, burst + 500, 'a');
    expect(served(first)).toHaveLength(burst);
    expect(limited(first)).toHaveLength(500);
    expect(limited(first)[0]).toEqual({
      jsonrpc: '2.0',
      id: `a${burst}`,
      error: {
        code: -32029,
        message: expect.stringMatching(/^Rate limited: .*200 requests per second.*1000.*VIGIL_RPC_RATE_LIMIT/),
        data: { vigilCode: 'RPC_RATE_LIMITED', limitPerSecond: perSecond, burst, retryAfterMs: 1000 / perSecond },
      },
    });
    expect(client.ws.readyState).toBe(client.ws.OPEN);

    // One second later, one second's worth of tokens.
    const beats = harness.runtime.status().beatCount;
    await harness.advance(1000);
    expect(harness.runtime.status().beatCount).toBeGreaterThan(beats);
    const second = await flood(client, perSecond + 50, 'b');
    expect(served(second)).toHaveLength(perSecond);
    expect(limited(second)).toHaveLength(50);

    // 550 refusals, one warn line (the flood is one stretch) naming the address and never a request.
    const lines = records.filter((r) => String(r.msg).includes('rate limit'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: LEVELS.warn,
      remoteAddress: expect.stringMatching(/127\.0\.0\.1$/),
      refused: 1,
      limitPerSecond: perSecond,
      burst,
    });
    expect(harness.gateway.stats().connections[0]!.rateLimited).toBe(550);
  });

  it('counts every request of a batch, runs no refused request (notifications included), and limits each connection alone', async () => {
    const { harness } = await start();
    const flooder = await harness.connect();
    // Notifications get no answer either way: a refused one must simply not run.
    for (let i = 0; i < burst + 100; i += 1)
      flooder.send({ jsonrpc: '2.0', method: 'goals.add', params: { title: `g${i}` } });
    const batch = (await flooder.exchange(
      Array.from({ length: 10 }, (_, i) => ({ jsonrpc: '2.0', method: 'heartbeat.status', id: `batch${i}` })),
    )) as Frame[];
    expect(batch).toHaveLength(10);
    expect(limited(batch)).toHaveLength(10);
    const other = await harness.connect();
    const goals = await other.request('goals.list');
    expect(goals['result']).toHaveLength(burst);
    expect(flooder.ws.readyState).toBe(flooder.ws.OPEN);
  });

  it('logs a long flood once per interval with the count refused since, not once per request', async () => {
    const { harness, records } = await start();
    const client = await harness.connect();
    await flood(client, burst, 'warm');
    let refused = 0;
    for (let round = 0; round < 3; round += 1) {
      refused += limited(await flood(client, 300, `r${round}-`)).length;
      await harness.advance(RATE_LIMIT_LOG_EVERY_MS / 2);
      // Drain what the pause refilled, so the next round is refused again.
      await flood(client, (RATE_LIMIT_LOG_EVERY_MS / 2 / 1000) * perSecond, `d${round}-`);
    }
    const lines = records.filter((r) => String(r.msg).includes('rate limit'));
    expect(refused).toBe(900);
    // Rounds at 0 s, 5 s and 10 s: a line at the first refusal and one at 10 s carrying the 600 refused since.
    expect(lines.map((l) => l['refused'])).toEqual([1, 600]);
    await client.close();
    // The server forgets a connection only after its own close handler (which logs) has run.
    await vi.waitFor(() => expect(harness.gateway.stats().connections).toHaveLength(0), { timeout: 5000, interval: 5 });
    // Closing says what was refused since the last line (the last round's other 299).
    const closing = records.filter((r) => String(r.msg).includes('rate limit closed'));
    expect(closing).toMatchObject([{ refused: 299, refusedInAll: 900 }]);
  });
});

describe('TokenBucket', () => {
  it('starts full, refills at its rate up to the burst, and never refills for a clock that moved back', () => {
    let now = 1_000_000;
    const bucket = new TokenBucket({ perSecond: 10, burst: 3 }, () => now);
    expect([bucket.take(), bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, true, false]);
    expect(bucket.retryAfterMs()).toBe(100);
    now += 250;
    expect([bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, false]);
    now += 60_000;
    expect([bucket.take(), bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, true, false]);
    now -= 3_600_000;
    expect(bucket.take()).toBe(false);
    now += 100;
    expect(bucket.take()).toBe(true);
  });

  it('is off with a rate of 0', () => {
    const bucket = new TokenBucket({ perSecond: 0, burst: 1 }, () => 0);
    for (let i = 0; i < 10_000; i += 1) expect(bucket.take()).toBe(true);
    expect(bucket.retryAfterMs()).toBe(0);
  });
});
