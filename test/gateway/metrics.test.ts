/**
 * `GET /metrics`: token required, prom-client's text format parsed by parse-prometheus-text-format (a parser ported
 * from Prometheus' own Python client, which throws on any malformed line), and counters that move as beats, RPC
 * calls, connections and checkpoints happen.
 */
import { get, type ClientRequest } from 'node:http';
import parsePrometheusTextFormat, {
  type PromFamily,
  type PromHistogramSample,
  type PromSample,
} from 'parse-prometheus-text-format';
import { afterEach, describe, expect, it } from 'vitest';
import { countRequest } from '../../src/gateway/rpc-router.js';
import { startGatewayHarness, TEST_TOKEN, type GatewayHarness } from './gateway.fixture.js';
import { openSse } from './sse-client.js';

let h: GatewayHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Every metric issue 6 names, by its exported name. */
const ISSUE_METRICS = {
  vigil_beats_total: 'COUNTER',
  vigil_beat_duration_seconds: 'HISTOGRAM',
  vigil_beat_delay_seconds: 'HISTOGRAM',
  vigil_think_calls_total: 'COUNTER',
  vigil_think_tokens_total: 'COUNTER',
  vigil_budget_spent_today_usd: 'GAUGE',
  vigil_budget_daily_cap_usd: 'GAUGE',
  vigil_checkpoint_save_duration_seconds: 'HISTOGRAM',
  vigil_checkpoint_size_bytes: 'GAUGE',
  vigil_checkpoints_restored_total: 'COUNTER',
  vigil_checkpoints_corrupt_total: 'COUNTER',
  vigil_gateway_connections: 'GAUGE',
  vigil_gateway_requests_total: 'COUNTER',
  vigil_events_dropped_total: 'COUNTER',
  // CONTRACT §10 (issue 14): today's share of prompt tokens read from the prompt cache.
  vigil_cache_read_today_ratio: 'GAUGE',
  // Node's process metrics (prom-client's defaults, with the vigil_ prefix).
  vigil_process_cpu_user_seconds_total: 'COUNTER',
  vigil_process_resident_memory_bytes: 'GAUGE',
  vigil_nodejs_heap_size_used_bytes: 'GAUGE',
  vigil_nodejs_eventloop_lag_seconds: 'GAUGE',
} as const;

function metricsUrl(harness: GatewayHarness, query = ''): string {
  return `${harness.gateway.url}/metrics${query}`;
}

/** Scrapes with the token and parses; the parser throws on anything that is not valid text format. */
async function scrape(harness: GatewayHarness): Promise<Map<string, PromFamily>> {
  const response = await fetch(metricsUrl(harness), { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
  expect(response.status).toBe(200);
  return new Map(parsePrometheusTextFormat(await response.text()).map((family) => [family.name, family]));
}

/** The value of the sample of `name` whose labels are exactly `labels` (0 when that series does not exist yet). */
function value(families: Map<string, PromFamily>, name: string, labels: Record<string, string> = {}): number {
  const family = families.get(name);
  if (family === undefined) throw new Error(`no metric ${name}`);
  const sample = (family.metrics as PromSample[]).find(
    (m) => JSON.stringify(m.labels ?? {}) === JSON.stringify(labels),
  );
  return sample === undefined ? 0 : Number(sample.value);
}

/** Observations counted by histogram `name`. */
function observations(families: Map<string, PromFamily>, name: string): number {
  const [series] = families.get(name)!.metrics as PromHistogramSample[];
  return Number(series!.count);
}

describe('GET /metrics', () => {
  it('refuses without a valid token (401) and serves the text format with one, in header or query', async () => {
    h = await startGatewayHarness();
    const none = await fetch(metricsUrl(h));
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(await none.text()).not.toContain('vigil_');
    expect((await fetch(metricsUrl(h), { headers: { authorization: 'Bearer wrong-token' } })).status).toBe(401);
    expect((await fetch(metricsUrl(h, '?token=wrong'))).status).toBe(401);

    const viaQuery = await fetch(metricsUrl(h, `?token=${TEST_TOKEN}`));
    expect(viaQuery.status).toBe(200);
    const viaHeader = await fetch(metricsUrl(h), { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    expect(viaHeader.status).toBe(200);
    // prom-client's own content type (text format 0.0.4), never cached.
    expect(viaHeader.headers.get('content-type')).toBe(h.runtime.metrics.contentType);
    expect(viaHeader.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(viaHeader.headers.get('cache-control')).toBe('no-store');
    const head = await fetch(metricsUrl(h), { method: 'HEAD', headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');

    const families = new Map(parsePrometheusTextFormat(await viaHeader.text()).map((family) => [family.name, family]));
    for (const [name, type] of Object.entries(ISSUE_METRICS)) {
      expect(families.get(name)?.type, name).toBe(type);
    }
    // The parser read exactly what the registry holds: every family prom-client reports, no more, no less.
    const registered = (await h.metrics.registry.getMetricsAsJSON()).map((metric) => metric.name).sort();
    expect([...families.keys()].sort()).toEqual(registered);
  });

  it('counts beats, RPC calls by method and code, connections (WebSocket and SSE), checkpoints and restores', async () => {
    h = await startGatewayHarness();
    const harness = h;
    const before = await scrape(harness);
    expect(value(before, 'vigil_gateway_connections')).toBe(0);

    await harness.advance(5000);
    const beaten = await scrape(harness);
    expect(value(beaten, 'vigil_beats_total') - value(before, 'vigil_beats_total')).toBe(5);
    expect(
      observations(beaten, 'vigil_beat_duration_seconds') - observations(before, 'vigil_beat_duration_seconds'),
    ).toBe(5);
    expect(observations(beaten, 'vigil_beat_delay_seconds')).toBeGreaterThanOrEqual(4);
    // The budget's gauges hold what budget.status says.
    const budget = harness.runtime.budgetStatus();
    expect(value(beaten, 'vigil_budget_daily_cap_usd')).toBe(budget.dailyCapUsd);
    expect(value(beaten, 'vigil_budget_spent_today_usd')).toBe(budget.spentTodayUsd);
    expect(value(beaten, 'vigil_cache_read_today_ratio')).toBe(budget.cacheReadShareToday);

    const client = await harness.connect();
    const sse = await openSse(`${harness.gateway.url}/events?types=checkpoint.*&token=${TEST_TOKEN}`);
    await expect.poll(async () => value(await scrape(harness), 'vigil_gateway_connections')).toBe(2);

    for (let i = 0; i < 3; i += 1) expect((await client.request('heartbeat.status')).result).toBeDefined();
    expect((await client.request('goals.add', { title: '' })).error).toMatchObject({ code: -32602 });
    expect((await client.request('no.such.method')).error).toMatchObject({ code: -32601 });
    expect((await client.request('goals.complete', { id: 'g-missing' })).error).toMatchObject({ code: -32004 });
    const created = await harness.until(client.request('checkpoint.create'));
    const { id } = created.result as { id: string };
    expect((await client.request('checkpoint.restore', { id })).error).toMatchObject({ code: -32001 });
    const restored = await harness.until(client.request('checkpoint.restore', { id, confirm: true }));
    expect(restored.result).toMatchObject({ restored: id });

    const after = await scrape(harness);
    const requests = (method: string, code: number): number =>
      value(after, 'vigil_gateway_requests_total', { method, code: String(code) });
    expect(requests('heartbeat.status', 0)).toBe(3);
    expect(requests('goals.add', -32602)).toBe(1);
    // An unknown name is counted under one label, so no client can grow the metric without bound.
    expect(requests('(unknown)', -32601)).toBe(1);
    expect(value(after, 'vigil_gateway_requests_total', { method: 'no.such.method', code: '-32601' })).toBe(0);
    expect(requests('goals.complete', -32004)).toBe(1);
    expect(requests('checkpoint.create', 0)).toBe(1);
    expect(requests('checkpoint.restore', -32001)).toBe(1);
    expect(requests('checkpoint.restore', 0)).toBe(1);

    const createdTotal =
      value(after, 'vigil_checkpoints_created_total') - value(before, 'vigil_checkpoints_created_total');
    expect(createdTotal).toBeGreaterThanOrEqual(1);
    expect(
      observations(after, 'vigil_checkpoint_save_duration_seconds') -
        observations(before, 'vigil_checkpoint_save_duration_seconds'),
    ).toBe(createdTotal);
    expect(value(after, 'vigil_checkpoint_size_bytes')).toBeGreaterThan(0);
    expect(value(after, 'vigil_checkpoints_restored_total') - value(before, 'vigil_checkpoints_restored_total')).toBe(
      1,
    );

    sse.close();
    await client.close();
    await expect.poll(async () => value(await scrape(harness), 'vigil_gateway_connections')).toBe(0);
  });

  it('counts thinks and their tokens by kind', async () => {
    h = await startGatewayHarness();
    const harness = h;
    const before = await scrape(harness);
    const client = await harness.connect();
    // Counted before sending: the message wakes the heartbeat, so its think may complete before the answer arrives.
    const thinks = harness.ofType('think.completed').length;
    await client.request('agent.send', { text: 'remember that the plants need water' });
    for (let step = 0; step < 30 && harness.ofType('think.completed').length === thinks; step += 1)
      await harness.advance(1000);
    const completed = harness.ofType('think.completed').slice(thinks);
    expect(completed.length).toBeGreaterThan(0);
    const after = await scrape(harness);
    const thinkCalls =
      value(after, 'vigil_think_calls_total', { outcome: 'completed' }) -
      value(before, 'vigil_think_calls_total', { outcome: 'completed' });
    expect(thinkCalls).toBe(completed.length);
    const inputTokens = completed.reduce((sum, event) => sum + event.inputTokens, 0);
    expect(
      value(after, 'vigil_think_tokens_total', { kind: 'input' }) -
        value(before, 'vigil_think_tokens_total', { kind: 'input' }),
    ).toBe(inputTokens);
    for (const kind of ['input', 'output', 'cache_read', 'cache_write']) {
      expect(
        (after.get('vigil_think_tokens_total')!.metrics as PromSample[]).some((m) => m.labels?.['kind'] === kind),
        kind,
      ).toBe(true);
    }
    await client.close();
  });

  it('counts the events dropped for a stalled SSE subscriber, exactly as its own counters do', async () => {
    h = await startGatewayHarness({
      gateway: { subscriberBuffer: 10, highWaterBytes: 16 * 1024, maxDropped: 1_000_000 },
    });
    const harness = h;
    // A reader that never reads: the kernel's buffers fill, then the gateway's, then events are dropped.
    let stalled: ClientRequest | undefined;
    await new Promise<void>((resolve, reject) => {
      stalled = get(`${harness.gateway.url}/events?types=agent.message&token=${TEST_TOKEN}`, (res) => {
        res.pause();
        resolve();
      });
      stalled.once('error', reject);
    });
    const text = 'x'.repeat(4096);
    const stream = () => harness.gateway.stats().streams[0];
    for (let batch = 0; batch < 400 && (stream()?.droppedTotal ?? 0) === 0; batch += 1) {
      for (let i = 0; i < 50; i += 1)
        harness.bus.emit('agent.message', { turnId: `t-${batch}-${i}`, text, from: 'load' });
      await new Promise((resolve) => setImmediate(resolve));
    }
    const dropped = stream()!.droppedTotal;
    expect(dropped).toBeGreaterThan(0);
    expect(value(await scrape(harness), 'vigil_events_dropped_total')).toBe(dropped);
    stalled!.destroy();
    await expect.poll(async () => value(await scrape(harness), 'vigil_gateway_connections')).toBe(0);
  });

  it('labels requests outside the catalogue with two fixed names, so clients cannot grow the label set', async () => {
    h = await startGatewayHarness();
    countRequest(h.runtime, '', -32700);
    countRequest(h.runtime, 'made.up', -32029);
    countRequest(h.runtime, 'goals.list', -32029);
    const families = await scrape(h);
    expect(value(families, 'vigil_gateway_requests_total', { method: '(invalid)', code: '-32700' })).toBe(1);
    expect(value(families, 'vigil_gateway_requests_total', { method: '(unknown)', code: '-32029' })).toBe(1);
    expect(value(families, 'vigil_gateway_requests_total', { method: 'goals.list', code: '-32029' })).toBe(1);
  });

  it('counts frames refused before routing (-32700, -32600) and rate-limited requests (-32029)', async () => {
    h = await startGatewayHarness({ gateway: { rpcRateLimit: 1, rpcRateBurst: 2 } });
    const client = await h.connect();
    await client.exchange('{not json');
    await client.exchange('['.repeat(200) + ']'.repeat(200));
    await client.request('heartbeat.status');
    await client.request('heartbeat.status');
    const refused = await client.request('heartbeat.status');
    expect(refused).toMatchObject({ error: { code: -32029 } });
    const families = await scrape(h);
    expect(value(families, 'vigil_gateway_requests_total', { method: '(invalid)', code: '-32700' })).toBe(1);
    expect(value(families, 'vigil_gateway_requests_total', { method: '(invalid)', code: '-32600' })).toBe(1);
    expect(value(families, 'vigil_gateway_requests_total', { method: 'heartbeat.status', code: '0' })).toBe(2);
    expect(value(families, 'vigil_gateway_requests_total', { method: 'heartbeat.status', code: '-32029' })).toBe(1);
    await client.close();
  });
});
