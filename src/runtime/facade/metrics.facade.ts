/** The facade's metrics area: what the gateway reports into `/metrics` and how it reads the text back. */

/** The gateway's view of the metrics registry: its own counters, and the exposition text. */
export interface MetricsFacade {
  /** The Prometheus text exposition of every metric. */
  text(): Promise<string>;
  /** The exposition's content type. */
  readonly contentType: string;
  /** A client connection (WebSocket or SSE) opened (+1) or closed (-1). */
  connectionDelta(delta: 1 | -1): void;
  /** One JSON-RPC request answered, by method and JSON-RPC code (0 for a result). */
  requestHandled(method: string, code: number): void;
  /** Events a slow subscriber did not get. */
  eventsDropped(count: number): void;
  /** A WebSocket, SSE or /mcp connection refused at a connection cap (`VIGIL_MAX_CONNECTIONS`). */
  connectionRefused(reason: 'gateway_full' | 'token_full'): void;
  /** A request or upgrade refused (429) because its address sent too many wrong tokens. */
  authThrottled(): void;
}
