/**
 * Gateway benchmark: JSON-RPC requests per second and p50/p99 latency over 50 connections against the real gateway,
 * beside a bare `ws` server answering the same frames in the same run (the ratio is the gateway's overhead), and
 * event fan-out to 100 subscribers against a bare broadcast of the same frames.
 */
import type { AddressInfo } from 'node:net';
import { MemoryLevel } from 'memory-level';
import WebSocket, { WebSocketServer } from 'ws';
import { startGateway } from '../src/gateway/http-server.js';
import { createRuntime } from '../src/runtime/create-runtime.js';
import type { Runtime } from '../src/runtime/runtime.js';
import { createSimulatedClock } from '../src/shared/clock.js';
import type { VigilDb } from '../src/subsystems/store/vigil-db.js';
import { internalsOf, percentile } from './bench-utils.js';
import { ratioCheck, ratioInfo, sanity, type BenchOutcome, type Check, type Detail, type Sanity } from './report.js';

/** How hard to push. */
export interface GatewayBenchOptions {
  connections: number;
  requestsPerConnection: number;
  subscribers: number;
  events: number;
  /** Repetitions of each measurement; the median one counts. */
  reps: number;
}

/** The load `npm run bench` uses. */
export const DEFAULT_GATEWAY_BENCH_OPTIONS: GatewayBenchOptions = {
  connections: 50,
  requestsPerConnection: 400,
  subscribers: 100,
  events: 2_000,
  reps: 3,
};

const TOKEN = 'bench-token-0123456789abcdef';

/** Throughput and latency of one load run. */
interface LoadResult {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  answered: number;
}

/** Fan-out of one run: deliveries per second and delay from emit to receipt. */
interface FanOutResult {
  deliveriesPerSec: number;
  p50Ms: number;
  p99Ms: number;
  delivered: number;
}

function open(url: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  const ws = new WebSocket(url, { headers, perMessageDeflate: false });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** A bare ws server answering `heartbeat.status` frames with the runtime's status, as a floor for the gateway. */
async function startBareServer(runtime: Runtime): Promise<{ url: string; wss: WebSocketServer }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false, maxPayload: 1024 * 1024 });
  await new Promise((resolve) => wss.once('listening', resolve));
  wss.on('connection', (ws) => {
    ws.on('message', (data) => {
      const request = JSON.parse((data as Buffer).toString()) as { id: unknown; method: string };
      const result = request.method === 'heartbeat.status' ? runtime.status() : null;
      ws.send(JSON.stringify({ jsonrpc: '2.0', result, id: request.id }));
    });
  });
  return { url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/rpc`, wss };
}

/** `connections` clients, each with one request in flight at a time, `perConnection` requests each. */
async function load(url: string, connections: number, perConnection: number): Promise<LoadResult> {
  const sockets = await Promise.all(
    Array.from({ length: connections }, () => open(url, { authorization: `Bearer ${TOKEN}` })),
  );
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    sockets.map(
      (ws, c) =>
        new Promise<void>((resolve) => {
          let sent = 0;
          let sentAt = 0;
          const next = (): void => {
            if (sent === perConnection) {
              resolve();
              return;
            }
            sent += 1;
            sentAt = performance.now();
            ws.send(`{"jsonrpc":"2.0","method":"heartbeat.status","id":"${c}-${sent}"}`);
          };
          ws.on('message', () => {
            latencies.push(performance.now() - sentAt);
            next();
          });
          next();
        }),
    ),
  );
  const elapsed = performance.now() - started;
  for (const ws of sockets) ws.terminate();
  return {
    rps: (latencies.length / elapsed) * 1000,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    answered: latencies.length,
  };
}

/** `subscribers` clients receive `events` frames; `emit(i)` sends event i (returns when it is handed over). */
async function fanOut(
  sockets: WebSocket[],
  events: number,
  emit: (i: number) => void,
  eventIndex: (frame: string) => number | undefined,
): Promise<FanOutResult> {
  const emittedAt = new Float64Array(events);
  const delays: number[] = [];
  let delivered = 0;
  const done = new Promise<void>((resolve) => {
    for (const ws of sockets) {
      ws.on('message', (data) => {
        const i = eventIndex((data as Buffer).toString());
        if (i === undefined) return;
        delays.push(performance.now() - emittedAt[i]!);
        delivered += 1;
        if (delivered === events * sockets.length) resolve();
      });
    }
  });
  const started = performance.now();
  // Emit in slices with a turn of the event loop between, as a beating runtime would.
  for (let i = 0; i < events; i += 1) {
    emittedAt[i] = performance.now();
    emit(i);
    if (i % 50 === 49) await new Promise((resolve) => setImmediate(resolve));
  }
  await done;
  const elapsed = performance.now() - started;
  return {
    deliveriesPerSec: (delivered / elapsed) * 1000,
    p50Ms: percentile(delays, 50),
    p99Ms: percentile(delays, 99),
    delivered,
  };
}

function medianBy<T>(runs: T[], key: (run: T) => number): T {
  return [...runs].sort((a, b) => key(a) - key(b))[Math.floor(runs.length / 2)]!;
}

/** Runs the gateway benchmark. */
export async function runGatewayBench(
  options: GatewayBenchOptions = DEFAULT_GATEWAY_BENCH_OPTIONS,
): Promise<BenchOutcome> {
  const clock = createSimulatedClock(Date.parse('2026-03-01T10:00:00Z'));
  const runtime = await createRuntime({
    db: new MemoryLevel() as unknown as VigilDb,
    clock,
    config: { checkpointEnabled: false },
  });
  runtime.start();
  const gateway = await startGateway({
    host: '127.0.0.1',
    port: 0,
    runtime,
    token: TOKEN,
    subscriberBuffer: options.events + 100,
  });
  const bare = await startBareServer(runtime);
  const gatewayUrl = `${gateway.url.replace('http', 'ws')}/rpc`;
  const checks: Check[] = [];
  const details: Detail[] = [];
  const sanityChecks: Sanity[] = [];
  try {
    // Requests: warm both up once, then alternate so drift hits both alike.
    await load(bare.url, options.connections, 50);
    await load(gatewayUrl, options.connections, 50);
    const bareRuns: LoadResult[] = [];
    const gatewayRuns: LoadResult[] = [];
    for (let rep = 0; rep < options.reps; rep += 1) {
      bareRuns.push(await load(bare.url, options.connections, options.requestsPerConnection));
      gatewayRuns.push(await load(gatewayUrl, options.connections, options.requestsPerConnection));
    }
    const b = medianBy(bareRuns, (r) => r.rps);
    const g = medianBy(gatewayRuns, (r) => r.rps);
    const expected = options.connections * options.requestsPerConnection;
    sanityChecks.push(
      sanity(
        'every request was answered',
        g.answered === expected && b.answered === expected,
        `${g.answered} and ${b.answered} of ${expected}`,
      ),
    );
    checks.push(
      ratioInfo(
        'gateway-rps',
        `requests per second, ${options.connections} connections (bare / gateway)`,
        { value: b.rps, unit: 'req/s', what: 'bare ws' },
        { value: g.rps, unit: 'req/s', what: 'gateway' },
      ),
      ratioCheck(
        'gateway-p50',
        'p50 latency, gateway / bare ws',
        { value: g.p50Ms, unit: 'ms', what: 'gateway p50' },
        { value: b.p50Ms, unit: 'ms', what: 'bare ws p50' },
        '<=',
        3,
      ),
      ratioCheck(
        'gateway-p99',
        'p99 latency, gateway / bare ws',
        { value: g.p99Ms, unit: 'ms', what: 'gateway p99' },
        { value: b.p99Ms, unit: 'ms', what: 'bare ws p99' },
        '<=',
        4,
      ),
    );
    details.push(
      { label: 'gateway requests per second', value: g.rps, unit: 'req/s' },
      { label: 'bare ws requests per second', value: b.rps, unit: 'req/s' },
      { label: 'gateway p50 latency', value: g.p50Ms, unit: 'ms' },
      { label: 'gateway p99 latency', value: g.p99Ms, unit: 'ms' },
    );

    // Fan-out: the same notification frames, once through the gateway's subscribers, once broadcast bare.
    const subscribers = await Promise.all(
      Array.from({ length: options.subscribers }, () => open(gatewayUrl, { authorization: `Bearer ${TOKEN}` })),
    );
    await Promise.all(
      subscribers.map(
        (ws, i) =>
          new Promise<void>((resolve) => {
            ws.once('message', () => resolve());
            ws.send(
              JSON.stringify({
                jsonrpc: '2.0',
                method: 'events.subscribe',
                params: { types: ['agent.message'] },
                id: i,
              }),
            );
          }),
      ),
    );
    const bareSubscribers = await Promise.all(Array.from({ length: options.subscribers }, () => open(bare.url)));
    const { bus } = internalsOf(runtime).parts;
    const turnIndex = (frame: string): number | undefined => {
      const match = /"turnId":"b-(\d+)"/.exec(frame);
      return match === null ? undefined : Number(match[1]);
    };
    const gatewayFan = await fanOut(
      subscribers,
      options.events,
      (i) => void bus.emit('agent.message', { turnId: `b-${i}`, text: 'fan-out', from: 'bench' }),
      turnIndex,
    );
    const sample = JSON.stringify({
      jsonrpc: '2.0',
      method: 'events.event',
      params: {
        subscription: 'sub-1',
        event: {
          seq: 1,
          type: 'agent.message',
          at: new Date().toISOString(),
          beat: 0,
          turnId: 'b-0',
          text: 'fan-out',
          from: 'bench',
        },
      },
    });
    const bareFan = await fanOut(
      bareSubscribers,
      options.events,
      (i) => {
        const frame = sample.replace('"b-0"', `"b-${i}"`);
        for (const ws of bare.wss.clients) ws.send(frame);
      },
      turnIndex,
    );
    for (const ws of [...subscribers, ...bareSubscribers]) ws.terminate();
    const expectedDeliveries = options.events * options.subscribers;
    sanityChecks.push(
      sanity(
        'every subscriber received every event',
        gatewayFan.delivered === expectedDeliveries,
        `${gatewayFan.delivered} of ${expectedDeliveries}`,
      ),
    );
    checks.push(
      ratioInfo(
        'fanout-rate',
        `event deliveries per second to ${options.subscribers} subscribers (bare / gateway)`,
        { value: bareFan.deliveriesPerSec, unit: 'deliveries/s', what: 'bare broadcast' },
        { value: gatewayFan.deliveriesPerSec, unit: 'deliveries/s', what: 'gateway' },
      ),
      ratioCheck(
        'fanout-p99',
        'p99 emit-to-receipt delay, gateway / bare broadcast',
        { value: gatewayFan.p99Ms, unit: 'ms', what: 'gateway p99' },
        { value: bareFan.p99Ms, unit: 'ms', what: 'bare p99' },
        '<=',
        4,
      ),
    );
    details.push(
      { label: 'gateway fan-out deliveries per second', value: gatewayFan.deliveriesPerSec, unit: 'deliveries/s' },
      { label: 'gateway fan-out p50 delay', value: gatewayFan.p50Ms, unit: 'ms' },
    );
  } finally {
    for (const ws of bare.wss.clients) ws.terminate();
    bare.wss.close();
    await gateway.close();
    await runtime.stop();
  }
  return {
    id: 'gateway',
    title: 'Gateway throughput, latency and fan-out',
    checks,
    details,
    sanity: sanityChecks,
    notes: [
      'Both servers answer heartbeat.status with runtime.status(); the gateway adds auth, JSON-RPC validation, zod params and dispatch.',
      'Fan-out: the gateway serialises each event once and frames it per subscription; the bare server sends one prepared frame to every client.',
    ],
  };
}

// `node --import tsx bench/gateway.bench.ts` runs it alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const outcome = await runGatewayBench();
  console.log(JSON.stringify(outcome, null, 2));
}
