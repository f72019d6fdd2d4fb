import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/shared/logger.js';
import { VigilMetrics } from '../../../src/subsystems/metrics/vigil-metrics.js';
import { startOtelTracing, TRACER_NAME, type ThinkTelemetry } from '../../../src/subsystems/telemetry/otel-tracing.js';
import {
  otlpTracesUrl,
  type OtlpProtocol,
  type OtlpTraceSettings,
} from '../../../src/subsystems/telemetry/otlp-settings.js';
import { startOtlpCollector, type CollectedSpan, type OtlpCollector } from '../../fixtures/otlp/otlp-collector.js';
import { sampleTrace, T0 } from './think-trace.fixture.js';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function settings(
  url: string,
  protocol: OtlpProtocol,
  batch: Partial<OtlpTraceSettings['batch']> = {},
): OtlpTraceSettings {
  return {
    url,
    protocol,
    serviceVersion: '9.9.9',
    batch: {
      scheduledDelayMillis: 60_000,
      maxQueueSize: 2048,
      maxExportBatchSize: 512,
      exportTimeoutMillis: 30_000,
      ...batch,
    },
  };
}

async function start(
  s: OtlpTraceSettings,
  metrics = new VigilMetrics({ defaultMetrics: false }),
): Promise<{ telemetry: ThinkTelemetry; metrics: VigilMetrics }> {
  const telemetry = await startOtelTracing(s, {
    counts: {
      exported: (n) => metrics.otelSpansExported(n),
      dropped: (reason, n) => metrics.otelSpansDropped(reason, n),
    },
    log: silentLogger,
    spans: { providerName: 'anthropic', agentName: 'vigil' },
  });
  cleanup.push(() => telemetry.shutdown());
  return { telemetry, metrics };
}

async function collector(options: { hang?: boolean } = {}): Promise<OtlpCollector> {
  const c = await startOtlpCollector(options);
  cleanup.push(() => c.close());
  return c;
}

/** The exporter reads OTEL_EXPORTER_OTLP_TIMEOUT itself: a hanging or refusing collector gives up after 300 ms. */
function shortExportTimeout(): void {
  process.env['OTEL_EXPORTER_OTLP_TIMEOUT'] = '300';
  cleanup.unshift(async () => {
    delete process.env['OTEL_EXPORTER_OTLP_TIMEOUT'];
  });
}

const byName = (spans: CollectedSpan[], name: string) => spans.filter((s) => s.name === name);
const ns = (ms: number) => BigInt(ms) * 1_000_000n;

/** A metric's value from the Prometheus text, 0 when the series is absent. */
async function metricValue(metrics: VigilMetrics, series: string): Promise<number> {
  const line = (await metrics.text()).split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.split(' ')[1]);
}

describe('startOtelTracing', () => {
  it.each<OtlpProtocol>(['http/json', 'http/protobuf'])(
    'exports a think as nested spans over OTLP %s, with the GenAI attribute names and the recorded times',
    async (protocol) => {
      const c = await collector();
      const { telemetry, metrics } = await start(settings(otlpTracesUrl(c.url, undefined)!, protocol));
      telemetry.exportThink(sampleTrace());
      await telemetry.flush();
      const spans = await c.waitForSpans(5);
      expect(spans.every((s) => s.encoding === (protocol === 'http/json' ? 'json' : 'protobuf'))).toBe(true);

      const [think] = byName(spans, 'invoke_agent vigil');
      const chats = byName(spans, 'chat claude-sonnet-5-5').sort((a, b) =>
        Number(a.startTimeUnixNano - b.startTimeUnixNano),
      );
      const [read] = byName(spans, 'execute_tool mcp__files__read');
      const [recall] = byName(spans, 'execute_tool recall');
      // One trace: think → chat → execute_tool.
      expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
      expect(think!.parentSpanId).toBe('');
      expect(chats.map((s) => s.parentSpanId)).toEqual([think!.spanId, think!.spanId]);
      expect([read!.parentSpanId, recall!.parentSpanId]).toEqual([chats[0]!.spanId, chats[0]!.spanId]);
      // Kinds: the agent and its tools are internal (1), the model calls are client calls (3).
      expect([think!.kind, chats[0]!.kind, read!.kind]).toEqual([1, 3, 1]);
      expect([think!.startTimeUnixNano, think!.endTimeUnixNano]).toEqual([ns(T0), ns(T0 + 1000)]);
      expect([read!.startTimeUnixNano, read!.endTimeUnixNano]).toEqual([ns(T0 + 405), ns(T0 + 500)]);

      expect(think!.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.agent.name': 'vigil',
        'gen_ai.conversation.id': 'turn-7',
        'gen_ai.request.model': 'claude-sonnet-5-5',
        'gen_ai.usage.input_tokens': 2650,
        'gen_ai.usage.output_tokens': 80,
        'gen_ai.usage.cache_read.input_tokens': 2000,
        'gen_ai.usage.cache_creation.input_tokens': 400,
        'gen_ai.response.finish_reasons': ['end_turn'],
      });
      expect(chats[0]!.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.request.model': 'claude-sonnet-5-5',
        'gen_ai.response.model': 'claude-sonnet-5-5',
        'gen_ai.response.finish_reasons': ['tool_use'],
        'gen_ai.usage.input_tokens': 1300,
        'gen_ai.usage.output_tokens': 40,
        'gen_ai.usage.cache_read.input_tokens': 1000,
        'gen_ai.usage.cache_creation.input_tokens': 200,
      });
      expect(read!.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'mcp__files__read',
        'gen_ai.tool.call.id': 'toolu_a',
      });
      expect(read!.status.code).toBe(0);
      expect(recall!.status).toEqual({ code: 2, message: 'The tool recall returned an error.' });
      expect(recall!.attributes['error.type']).toBe('tool_error');

      expect(think!.scope).toBe(TRACER_NAME);
      expect(think!.resource).toMatchObject({ 'service.name': 'vigil', 'service.version': '9.9.9' });
      expect(await metricValue(metrics, 'vigil_otel_spans_exported_total')).toBe(5);
    },
  );

  it('names the service from the settings over the default', async () => {
    const c = await collector();
    const { telemetry } = await start({ ...settings(`${c.url}/v1/traces`, 'http/json'), serviceName: 'vigil-prod' });
    telemetry.exportThink(sampleTrace({ calls: [], toolCalls: [] }));
    await telemetry.flush();
    const [think] = await c.waitForSpans(1);
    expect(think!.resource['service.name']).toBe('vigil-prod');
  });

  it('sends what is queued when shut down, and nothing after', async () => {
    const c = await collector();
    const { telemetry } = await start(settings(`${c.url}/v1/traces`, 'http/protobuf'));
    telemetry.exportThink(sampleTrace());
    expect(c.requests).toBe(0); // the schedule delay is a minute: only the shutdown sends them
    await telemetry.shutdown();
    expect(c.spans).toHaveLength(5);
    telemetry.exportThink(sampleTrace({ id: 'think-2' }));
    await telemetry.flush();
    expect(c.spans).toHaveLength(5);
  });

  it('keeps at most OTEL_BSP_MAX_QUEUE_SIZE spans for a collector that never answers, counting the rest as dropped', async () => {
    const c = await collector({ hang: true });
    shortExportTimeout();
    const { telemetry, metrics } = await start(
      settings(`${c.url}/v1/traces`, 'http/json', { maxQueueSize: 8, maxExportBatchSize: 4, scheduledDelayMillis: 1 }),
    );
    // 20 thinks of 5 spans each, handed over at once: exportThink never waits for the collector.
    for (let i = 0; i < 20; i += 1) telemetry.exportThink(sampleTrace({ id: `think-${i}` }));
    const dropped = await metricValue(metrics, 'vigil_otel_spans_dropped_total{reason="queue_full"}');
    // The first batch left the queue for the (hanging) collector; every span past the bound after that was dropped.
    expect(dropped).toBeGreaterThanOrEqual(100 - 8 - 4);
    expect(dropped).toBeLessThanOrEqual(100 - 8);
    expect(await metricValue(metrics, 'vigil_otel_spans_exported_total')).toBe(0);
  });

  it('counts the spans of a batch the collector did not take as export_failed', async () => {
    // A port that refuses connections: bound, then closed.
    const port = await new Promise<number>((resolve) => {
      const probe: Server = createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = probe.address() as { port: number };
        probe.close(() => resolve(p));
      });
    });
    shortExportTimeout();
    const { telemetry, metrics } = await start(settings(`http://127.0.0.1:${port}/v1/traces`, 'http/json'));
    telemetry.exportThink(sampleTrace());
    await telemetry.flush().catch(() => undefined);
    expect(await metricValue(metrics, 'vigil_otel_spans_dropped_total{reason="export_failed"}')).toBe(5);
  });
});
