/**
 * Bench 8: the OpenTelemetry export. Boot time of `vigil run` with OTEL_EXPORTER_OTLP_ENDPOINT against without it
 * (the SDK is loaded only with it), and the cost of turning one think into spans and queuing them, with a healthy
 * collector and with one that never answers (which must cost the heartbeat nothing more).
 */
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '../src/shared/logger.js';
import { VigilMetrics } from '../src/subsystems/metrics/vigil-metrics.js';
import { startOtelTracing, type ThinkTelemetry } from '../src/subsystems/telemetry/otel-tracing.js';
import { startOtlpCollector, type OtlpCollector } from '../test/fixtures/otlp/otlp-collector.js';
import { sampleTrace } from '../test/subsystems/telemetry/think-trace.fixture.js';
import { median, percentile, withTempDir } from './bench-utils.js';
import { timeToLine, type TimedLine } from './child-timing.js';
import { ratioCheck, ratioInfo, sanity, type BenchOutcome, type Measure } from './report.js';

/** How many of each. */
export interface OtelBenchOptions {
  boots: number;
  thinks: number;
}

export const DEFAULT_OTEL_OPTIONS: OtelBenchOptions = { boots: 9, thinks: 2000 };

/** The shortest beat interval Vigil allows by default (VIGIL_BEAT_MIN_MS), the yardstick for per-think work. */
const BEAT_MIN_MS = 100;

const BIN = fileURLToPath(new URL('../bin/vigil.js', import.meta.url));
const isListening = (line: Record<string, unknown>): boolean => line['msg'] === 'gateway listening';

async function boot(root: string, env: Record<string, string>): Promise<TimedLine> {
  const dataDir = await mkdtemp(join(root, 'boot-'));
  return timeToLine([BIN, 'run', '--data-dir', dataDir, '--port', '0'], isListening, env);
}

async function stop(daemon: TimedLine): Promise<number | null> {
  daemon.child.kill('SIGTERM');
  return daemon.exited;
}

/** Microseconds per think to export `thinks` thinks (5 spans each) into `collector`, and the telemetry used. */
async function exportCost(
  collector: OtlpCollector,
  thinks: number,
  maxQueueSize: number,
  exportTimeoutMillis: number,
): Promise<{ usPerThink: number[]; metrics: VigilMetrics; telemetry: ThinkTelemetry }> {
  const metrics = new VigilMetrics({ defaultMetrics: false });
  const telemetry = await startOtelTracing(
    {
      url: `${collector.url}/v1/traces`,
      protocol: 'http/protobuf',
      serviceVersion: 'bench',
      batch: { scheduledDelayMillis: 5000, maxQueueSize, maxExportBatchSize: 512, exportTimeoutMillis },
    },
    {
      counts: {
        exported: (n) => metrics.otelSpansExported(n),
        dropped: (reason, n) => metrics.otelSpansDropped(reason, n),
      },
      log: silentLogger,
      spans: { providerName: 'anthropic', agentName: 'vigil' },
    },
  );
  const traces = Array.from({ length: thinks }, (_, i) => sampleTrace({ id: `think-${i}` }));
  // Warm-up, not counted: the first spans compile the SDK's paths.
  for (let i = 0; i < 200; i += 1) telemetry.exportThink(sampleTrace({ id: `warm-${i}` }));
  const usPerThink: number[] = [];
  // In rounds of 100, so one slow round (a GC) shows as an outlier rather than in the median.
  for (let round = 0; round < thinks; round += 100) {
    const started = performance.now();
    for (let i = round; i < Math.min(thinks, round + 100); i += 1) telemetry.exportThink(traces[i]!);
    usPerThink.push(((performance.now() - started) * 1000) / Math.min(100, thinks - round));
  }
  return { usPerThink, metrics, telemetry };
}

async function counter(metrics: VigilMetrics, series: string): Promise<number> {
  const line = (await metrics.text()).split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.split(' ')[1]);
}

/** Runs bench 8. */
export async function otelBench(options: OtelBenchOptions = DEFAULT_OTEL_OPTIONS): Promise<BenchOutcome> {
  const collector = await startOtlpCollector();
  const hanging = await startOtlpCollector({ hang: true });
  try {
    const boots = await withTempDir('otel', async (root) => {
      const withEnv = { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url };
      const plainMs: number[] = [];
      const otelMs: number[] = [];
      const codes: Array<number | null> = [];
      codes.push(await stop(await boot(root, {})), await stop(await boot(root, withEnv)));
      // Alternating, so drift in the machine's speed reaches both alike.
      for (let i = 0; i < options.boots; i += 1) {
        const plain = await boot(root, {});
        plainMs.push(plain.ms);
        codes.push(await stop(plain));
        const otel = await boot(root, withEnv);
        otelMs.push(otel.ms);
        codes.push(await stop(otel));
      }
      return { plainMs, otelMs, codes };
    });

    // A queue that holds every span: the healthy run measures creating and queuing, never dropping.
    const healthy = await exportCost(collector, options.thinks, 1_000_000, 30_000);
    const healthySpans = 5 * (options.thinks + 200);
    await healthy.telemetry.flush();
    await healthy.telemetry.shutdown();
    const exported = await counter(healthy.metrics, 'vigil_otel_spans_exported_total');
    // The hanging collector: the default queue bound (2048) fills, then every span is dropped and counted.
    // Its exports give up after a second (OTEL_EXPORTER_OTLP_TIMEOUT, read by the exporter), as does the stop.
    process.env['OTEL_EXPORTER_OTLP_TIMEOUT'] = '1000';
    const stuck = await exportCost(hanging, options.thinks, 2048, 1000);
    const droppedStuck = await counter(stuck.metrics, 'vigil_otel_spans_dropped_total{reason="queue_full"}');
    await stuck.telemetry.shutdown();

    // What a trace store does with the same trace anyway: serialise it once.
    const trace = sampleTrace();
    const jsonRounds: number[] = [];
    for (let round = 0; round < 20; round += 1) {
      const started = performance.now();
      for (let i = 0; i < 100; i += 1) JSON.parse(JSON.stringify(trace));
      jsonRounds.push(((performance.now() - started) * 1000) / 100);
    }

    const ms = (value: number, what: string): Measure => ({ value, unit: 'ms', what });
    const us = (value: number, what: string): Measure => ({ value, unit: 'µs', what });
    const plain50 = median(boots.plainMs);
    const otel50 = median(boots.otelMs);
    const healthy50 = median(healthy.usPerThink);
    const stuck50 = median(stuck.usPerThink);
    return {
      id: 'otel',
      title: `9. OpenTelemetry export (${options.boots} boots each way, ${options.thinks} thinks of 5 spans)`,
      checks: [
        ratioCheck(
          'otel.boot',
          'vigil run → "gateway listening" with OTEL_EXPORTER_OTLP_ENDPOINT / without',
          ms(otel50, 'with'),
          ms(plain50, 'without'),
          '<=',
          1.5,
        ),
        ratioCheck(
          'otel.think-cost',
          'spans of one think, created and queued / 1 % of the shortest beat',
          us(healthy50, 'per think'),
          us(BEAT_MIN_MS * 10, '1 % of VIGIL_BEAT_MIN_MS'),
          '<=',
          1,
        ),
        ratioCheck(
          'otel.hung-collector',
          'per-think cost with a collector that never answers / with a healthy one',
          us(stuck50, 'hung'),
          us(healthy50, 'healthy'),
          '<=',
          1.5,
        ),
        ratioInfo(
          'otel.think-vs-json',
          'spans of one think / JSON round trip of its trace',
          us(healthy50, 'spans'),
          us(median(jsonRounds), 'JSON'),
        ),
      ],
      details: [
        { label: 'boot without the endpoint, median', value: plain50, unit: 'ms' },
        { label: 'boot with the endpoint, median', value: otel50, unit: 'ms' },
        { label: 'boot with the endpoint, p90', value: percentile(boots.otelMs, 90), unit: 'ms' },
        { label: 'one think → 5 spans queued, median', value: healthy50, unit: 'µs' },
        { label: 'one think → 5 spans queued, p90 of rounds', value: percentile(healthy.usPerThink, 90), unit: 'µs' },
        { label: 'the same with a hung collector (dropping), median', value: stuck50, unit: 'µs' },
        { label: 'spans dropped for the hung collector', value: droppedStuck, unit: '' },
      ],
      sanity: [
        sanity(
          'every daemon stopped cleanly on SIGTERM',
          boots.codes.every((code) => code === 0),
          `exit codes ${[...new Set(boots.codes)].join(', ')}`,
        ),
        sanity(
          'the healthy collector got every span',
          exported === healthySpans && collector.spans.length >= healthySpans,
          `${exported} of ${healthySpans}`,
        ),
        sanity(
          'the hung collector’s spans past the queue bound were dropped and counted',
          droppedStuck > 0,
          `${droppedStuck} dropped`,
        ),
      ],
      notes: [
        'Boots: wall time from spawn to "gateway listening" of the compiled daemon (offline thinker), alternating with and without the endpoint.',
        'Per-think cost: exportThink() of a think with 2 model calls and 2 tool calls (5 spans), in rounds of 100, BatchSpanProcessor behind the bounded queue.',
      ],
    };
  } finally {
    delete process.env['OTEL_EXPORTER_OTLP_TIMEOUT'];
    await collector.close();
    await hanging.close();
  }
}

// `node --import tsx bench/otel.bench.ts` runs it alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const outcome = await otelBench();
  console.log(JSON.stringify(outcome, null, 2));
}
