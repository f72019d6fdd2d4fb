/** What the OpenTelemetry export needs to start: where the collector is, how to speak to it, and the batch limits. */

/** The OTLP protocols Vigil exports with (both over HTTP; gRPC would need a native HTTP/2 client it does not ship). */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
/** One of `OTLP_PROTOCOLS`. */
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** The resolved settings of the trace export. */
export interface OtlpTraceSettings {
  /** Where spans are POSTed: the traces endpoint as given, or the base endpoint plus `v1/traces`. */
  url: string;
  protocol: OtlpProtocol;
  /** `service.name`; unset: `service.name` from OTEL_RESOURCE_ATTRIBUTES, else `vigil`. */
  serviceName?: string;
  serviceVersion: string;
  /** The BatchSpanProcessor's settings (OTEL_BSP_*). */
  batch: {
    scheduledDelayMillis: number;
    maxQueueSize: number;
    maxExportBatchSize: number;
    exportTimeoutMillis: number;
  };
}

/**
 * The URL spans go to, by the OTLP exporter specification: a signal-specific endpoint is used as it is; the base
 * endpoint gets `v1/traces` appended. Null when neither is set (no export).
 */
export function otlpTracesUrl(endpoint: string | undefined, tracesEndpoint: string | undefined): string | null {
  if (tracesEndpoint !== undefined) return tracesEndpoint;
  if (endpoint === undefined) return null;
  return `${endpoint.endsWith('/') ? endpoint : `${endpoint}/`}v1/traces`;
}
