/**
 * Where a think's trace meets the OpenTelemetry export. `startThinkTelemetry` loads the SDK only when an OTLP
 * endpoint is configured; `exportThinkSpans` is the one seam a stored think trace goes through to become spans.
 */
import type { VigilConfig } from '../config.js';
import type { ThinkTrace } from '../protocol/think-trace.schema.js';
import type { VigilLogger } from '../shared/logger.js';
import { VIGIL_VERSION } from '../shared/version.js';
import type { VigilMetrics } from '../subsystems/metrics/vigil-metrics.js';
import type { ThinkTelemetry } from '../subsystems/telemetry/otel-tracing.js';
import { otlpTracesUrl } from '../subsystems/telemetry/otlp-settings.js';

export type { ThinkTelemetry };

/** `gen_ai.agent.name` of every think. */
export const AGENT_NAME = 'vigil';

/** The thinkers whose provider the GenAI conventions name (`gen_ai.provider.name`, formerly `gen_ai.system`). */
const WELL_KNOWN_PROVIDERS: ReadonlySet<string> = new Set(['anthropic', 'openai']);

/**
 * `gen_ai.provider.name` for a thinker: the conventions' `anthropic` or `openai`, else a `vigil.`-prefixed name of
 * our own. An OpenAI-compatible server (Ollama, vLLM, OpenRouter) is named `openai`, the API it is spoken to through.
 */
export function providerNameOf(thinkerKind: string): string {
  return WELL_KNOWN_PROVIDERS.has(thinkerKind) ? thinkerKind : `vigil.${thinkerKind}`;
}

/**
 * The span export the configuration asks for, or null without an OTLP endpoint (then no OpenTelemetry SDK module is
 * loaded at all: start-up pays nothing).
 */
export async function startThinkTelemetry(
  config: VigilConfig,
  deps: { metrics: VigilMetrics; log: VigilLogger; thinkerKind: string },
): Promise<ThinkTelemetry | null> {
  const url = otlpTracesUrl(config.otlpEndpoint, config.otlpTracesEndpoint);
  if (url === null) return null;
  const { startOtelTracing } = await import('../subsystems/telemetry/otel-tracing.js');
  return startOtelTracing(
    {
      url,
      protocol: config.otlpTracesProtocol ?? config.otlpProtocol,
      ...(config.otelServiceName === undefined ? {} : { serviceName: config.otelServiceName }),
      serviceVersion: VIGIL_VERSION,
      batch: {
        scheduledDelayMillis: config.otelBspScheduleDelayMs,
        maxQueueSize: config.otelBspMaxQueueSize,
        maxExportBatchSize: config.otelBspMaxExportBatchSize,
        exportTimeoutMillis: config.otelBspExportTimeoutMs,
      },
    },
    {
      counts: {
        exported: (count) => deps.metrics.otelSpansExported(count),
        dropped: (reason, count) => deps.metrics.otelSpansDropped(reason, count),
      },
      log: deps.log,
      spans: { providerName: providerNameOf(deps.thinkerKind), agentName: AGENT_NAME },
    },
  );
}

/** A finished think's trace, as spans: queued at once, exported in the background, never in the think's way. */
export function exportThinkSpans(telemetry: ThinkTelemetry, trace: ThinkTrace): void {
  telemetry.exportThink(trace);
}
