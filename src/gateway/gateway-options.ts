/** What `startGateway` takes and returns: its options, extra routes, live counters and the listening gateway. */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Runtime } from '../runtime/runtime.js';
import type { VigilLogger } from '../shared/logger.js';
import type { SubscriberStats } from './event-subscriber.js';
import type { RateLimit } from './token-bucket.js';
import type { ConnectionStats } from './rpc-connection.js';
import type { TokenScope } from '../protocol/token-scopes.js';
import type { Caller } from '../runtime/facade/tokens.facade.js';
import type { McpToolName } from '../protocol/mcp-tool-names.js';

/** An extra authenticated GET route; `caller` is null for a dashboard file opened by its session cookie. */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse, url: URL, caller: Caller | null) => void;

/** How to start the gateway. Limits default to the configuration's defaults. */
export interface GatewayOptions {
  host: string;
  port: number;
  runtime: Runtime;
  /** The token every path but `/healthz` requires. */
  token: string;
  log?: VigilLogger;
  /** Event subscriptions per WebSocket connection (`VIGIL_MAX_SUBSCRIPTIONS`). */
  maxSubscriptions?: number;
  /** Events buffered per slow subscriber (`VIGIL_SUBSCRIBER_BUFFER`). */
  subscriberBuffer?: number;
  /** Unsent bytes on a socket above which the feed waits (default 256 KiB). */
  highWaterBytes?: number;
  /** Events dropped in one stretch before a subscriber is disconnected (default 100 × the buffer). */
  maxDropped?: number;
  /** Authenticated GET routes by path. */
  routes?: Record<string, RouteHandler>;
  /** The scope each extra route needs (default `read`, as every built-in path: `/events`, `/metrics`, the dashboard). */
  routeScopes?: Record<string, TokenScope>;
  /** JSON-RPC requests per second per connection (`VIGIL_RPC_RATE_LIMIT`; 0 = no limit). */
  rpcRateLimit?: number;
  /** Requests one connection may send at once (`VIGIL_RPC_RATE_BURST`). */
  rpcRateBurst?: number;
  /** The tools `/mcp` offers (`VIGIL_MCP_SERVER_TOOLS`; default `DEFAULT_MCP_TOOLS`). */
  mcpTools?: readonly McpToolName[];
  /** Further `Host` names accepted (`VIGIL_ALLOWED_HOSTS`): a reverse proxy's. */
  allowedHosts?: readonly string[];
  /** Further `Origin`s accepted (`VIGIL_ALLOWED_ORIGINS`): a reverse proxy's. */
  allowedOrigins?: readonly string[];
  /** The gateway as a browser reaches it (`VIGIL_PUBLIC_URL`): its host and origin are accepted like the allowed ones. */
  publicUrl?: string;
  /** How long a dashboard's browser session lasts, in hours (`VIGIL_SESSION_HOURS`, default 12). */
  sessionHours?: number;
  /** WebSockets, SSE streams and /mcp exchanges open at once, half of them for one token at most (`VIGIL_MAX_CONNECTIONS`). */
  maxConnections?: number;
  /** Wrong tokens one address may send before it is answered 429 (default `DEFAULT_FAILED_AUTH_LIMIT`; rate 0 = off). */
  failedAuthLimit?: RateLimit;
}

/** Counters of every live connection and stream. */
export interface GatewayStats {
  connections: ConnectionStats[];
  streams: SubscriberStats[];
  /** MCP sessions open on `/mcp`. */
  mcpSessions: number;
}

/** A listening gateway. */
export interface Gateway {
  /** `http://host:port` as actually bound (port 0 resolved). */
  url: string;
  server: Server;
  stats(): GatewayStats;
  /** Closes every connection (1001 for WebSockets) and stops listening. */
  close(): Promise<void>;
}
