/**
 * The OpenTelemetry SDK behind the think export, loaded only when an OTLP endpoint is configured (the runtime imports
 * this module dynamically): a TracerProvider of its own (never the global one, which an embedding program may own),
 * the OTLP/HTTP exporter for the configured protocol, and a BatchSpanProcessor behind a bounded, counted queue.
 */
import { diag, DiagLogLevel, type DiagLogger } from '@opentelemetry/api';
import { setGlobalErrorHandler } from '@opentelemetry/core';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import type { ThinkTrace } from '../../protocol/think-trace.schema.js';
import { describeError } from '../../errors.js';
import type { VigilLogger } from '../../shared/logger.js';
import { BoundedSpanProcessor, CountingSpanExporter, SpanQueueGauge, type SpanCounts } from './bounded-span-queue.js';
import type { OtlpProtocol, OtlpTraceSettings } from './otlp-settings.js';
import { writeSpans } from './span-writer.js';
import { thinkSpans, type ThinkSpanOptions } from './think-spans.js';

/** The instrumentation scope the spans carry. */
export const TRACER_NAME = 'vigil';

/** The longest a stop waits for the last spans to reach the collector (less when OTEL_BSP_EXPORT_TIMEOUT is shorter). */
export const SHUTDOWN_LIMIT_MS = 5000;

/** A running export: hand it a think's trace; flush or shut it down on the way out. */
export interface ThinkTelemetry {
  /** Turns `trace` into spans and queues them; returns at once, never throws. */
  exportThink(trace: ThinkTrace): void;
  /** Exports what is queued. */
  flush(): Promise<void>;
  /** Exports what is queued, then stops; later thinks are not exported. */
  shutdown(): Promise<void>;
}

/** What the export reports into and how it names the spans. */
export interface OtelTracingDeps {
  counts: SpanCounts;
  log: VigilLogger;
  spans: ThinkSpanOptions;
}

/** The OTLP exporter for `protocol`; only that one package is loaded. */
async function createOtlpExporter(protocol: OtlpProtocol, url: string): Promise<SpanExporter> {
  // Headers, timeout and compression come from the standard OTEL_EXPORTER_OTLP_* variables, read by the exporter.
  if (protocol === 'http/json') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter({ url });
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter({ url });
}

/** The SDK's own diagnostics (a malformed OTEL_* variable, say) as Vigil log lines. */
function diagLogger(log: VigilLogger): DiagLogger {
  const warn = (message: string, ...args: unknown[]) =>
    log.warn({ otel: args.length === 0 ? undefined : args }, `opentelemetry: ${message}`);
  const debug = (message: string, ...args: unknown[]) =>
    log.debug({ otel: args.length === 0 ? undefined : args }, `opentelemetry: ${message}`);
  return { error: warn, warn, info: debug, debug, verbose: debug };
}

/** Starts the SDK and the exporter for `settings`. */
export async function startOtelTracing(settings: OtlpTraceSettings, deps: OtelTracingDeps): Promise<ThinkTelemetry> {
  const { counts, log } = deps;
  diag.setLogger(diagLogger(log), { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  // Failed exports are reported once per outage by the exporter wrapper below, not once per batch.
  setGlobalErrorHandler((err) => log.debug({ err: describeError(err) }, 'opentelemetry: export error'));
  const queue = new SpanQueueGauge();
  const exporter = new CountingSpanExporter(await createOtlpExporter(settings.protocol, settings.url), queue, counts, {
    failed: (error, spans) =>
      log.warn(
        { url: settings.url, spans, err: error === undefined ? undefined : describeError(error) },
        'spans could not be exported to the OpenTelemetry collector; they are dropped (vigil_otel_spans_dropped_total) until it takes them again',
      ),
    recovered: () => log.info({ url: settings.url }, 'spans are exported to the OpenTelemetry collector again'),
  });
  const batch = new BatchSpanProcessor({ exporter, ...settings.batch });
  const resource = resourceFromAttributes({ 'service.name': 'vigil', 'service.version': settings.serviceVersion })
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(
      settings.serviceName === undefined ? null : resourceFromAttributes({ 'service.name': settings.serviceName }),
    );
  const provider = new TracerProvider({
    resource,
    spanProcessors: [new BoundedSpanProcessor(batch, queue, settings.batch.maxQueueSize, counts)],
  });
  const tracer = provider.getTracer(TRACER_NAME, settings.serviceVersion);
  let stopped = false;
  let brokenOnce = false;
  log.info({ url: settings.url, protocol: settings.protocol }, 'exporting thinks as OpenTelemetry spans');
  return {
    exportThink(trace) {
      if (stopped) return;
      try {
        writeSpans(tracer, thinkSpans(trace, deps.spans));
      } catch (err) {
        // A trace the mapping cannot read must never fail the think it describes.
        if (!brokenOnce)
          log.warn({ err: describeError(err), thinkId: trace.id }, 'a think could not be written as spans');
        brokenOnce = true;
      }
    },
    flush: () => provider.forceFlush(),
    async shutdown() {
      if (stopped) return;
      stopped = true;
      // A stop waits for the collector, but not for long: a hung one would otherwise hold the exit for the
      // exporter's whole timeout.
      const limitMs = Math.min(SHUTDOWN_LIMIT_MS, settings.batch.exportTimeoutMillis);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), limitMs);
        timer.unref();
      });
      const done = provider.shutdown().then(
        () => 'done' as const,
        (err: unknown) => {
          log.warn({ err: describeError(err) }, 'the last spans could not be exported');
          return 'done' as const;
        },
      );
      const outcome = await Promise.race([done, late]);
      clearTimeout(timer);
      if (outcome === 'late')
        log.warn(
          { url: settings.url, limitMs },
          'the OpenTelemetry collector did not take the last spans in time; stopping without them',
        );
    },
  };
}
