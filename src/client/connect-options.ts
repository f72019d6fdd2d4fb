/** How a typed client connects: its options, its states, the `/rpc` URL for a daemon URL, and the reconnection backoff. */

/** Where a client stands: opening, open, waiting to reconnect, or closed for good. */
export type ClientState = 'connecting' | 'open' | 'reconnecting' | 'closed';

/** Backoff between reconnection attempts: doubling from `initialDelayMs` up to `maxDelayMs`, with jitter. */
export interface ReconnectOptions {
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Attempts in a row before giving up (default: unlimited). */
  maxAttempts?: number;
}

/** How to connect. */
export interface ConnectOptions {
  /** `ws://host:port/rpc`, or the daemon's `http://host:port` (the `/rpc` path is added). */
  url: string;
  token?: string | undefined;
  /** A call without an answer after this long fails with CLIENT_TIMEOUT (default 30 s). */
  requestTimeoutMs?: number;
  /** Reconnect after a lost connection (default on); false to fail instead. */
  reconnect?: boolean | ReconnectOptions;
  /** Check every result against its schema (default on). */
  validateResults?: boolean;
}

/** The WebSocket URL for a daemon URL: http(s) becomes ws(s) and an empty path becomes `/rpc`. */
export function rpcUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol === 'http:') parsed.protocol = 'ws:';
  if (parsed.protocol === 'https:') parsed.protocol = 'wss:';
  if (parsed.pathname === '' || parsed.pathname === '/') parsed.pathname = '/rpc';
  return parsed.toString();
}

/** The backoff `reconnect` asks for, its defaults filled in; null when reconnection is off. */
export function reconnectBackoff(reconnect: boolean | ReconnectOptions): Required<ReconnectOptions> | null {
  if (reconnect === false) return null;
  return {
    initialDelayMs: 100,
    maxDelayMs: 10_000,
    maxAttempts: Number.POSITIVE_INFINITY,
    ...(reconnect === true ? {} : reconnect),
  };
}

/** The wait before reconnection attempt `attempt` (0 first): doubling up to the cap, with ±25% jitter. */
export function backoffDelayMs({ initialDelayMs, maxDelayMs }: Required<ReconnectOptions>, attempt: number): number {
  return Math.min(maxDelayMs, initialDelayMs * 2 ** attempt) * (0.75 + Math.random() * 0.5);
}
