/** The options of an MCP hub and the shapes it answers with: sign-ins needed, servers down and call bounds. */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { EventBus } from '../../events/event-bus.js';
import type { McpServerEntry } from '../../protocol/mcp-config.schema.js';
import type { Clock } from '../../shared/clock.js';
import type { VigilLogger } from '../../shared/logger.js';
import type { ServerTransport, TransportAuth } from './mcp-transport.js';
import type { CallbackUrl } from './oauth/callback-url.js';
import type { OAuthStore } from './oauth/oauth-store.js';
import type { ConnectionTiming } from './server-connection.js';

/** What a hub needs. */
export interface McpHubOptions {
  /** The configured servers by name (`mcpServers` of `VIGIL_MCP_CONFIG`). */
  servers: Readonly<Record<string, McpServerEntry>>;
  bus: EventBus;
  clock: Clock;
  log: VigilLogger;
  /** The version Vigil gives in the MCP handshake. */
  clientVersion: string;
  timing?: Partial<ConnectionTiming>;
  /** Builds each server's transport; tests may substitute one. */
  createTransport?: (entry: McpServerEntry, auth?: TransportAuth) => ServerTransport;
  /** Signs in to Streamable HTTP servers that answer 401 (OAuth); without it they are only ever down. */
  oauth?: {
    store: OAuthStore;
    callbackUrl: CallbackUrl;
    /** The fetch of every OAuth-capable server's requests (tests); default the global fetch. */
    fetch?: FetchLike;
  };
}

/** A server that waits for the operator to sign in, as `tools.list` shows it. */
export interface SignInNeeded {
  server: string;
  authorizationUrl: string;
  /** Epoch ms: when the authorization URL stops working (`tools.login` makes a new one). */
  expiresAt: number;
}

/** A server that is not connected, as `tools.list` shows it: why its last attempt failed, and when the next one is. */
export interface ServerDown {
  server: string;
  /** The reason `mcp.server_down` gave: how it failed (an error's class and code, how a process ended), never the server's words. */
  error: string;
  /** Epoch ms: when the next attempt to connect starts (or started: an attempt under way keeps the server down until it succeeds). */
  nextRetryAt: number;
}

/** How a call may be bounded by its caller. */
export interface ToolCallOptions {
  signal?: AbortSignal;
  /** Overrides the entry's `timeoutMs` for this call. */
  timeoutMs?: number;
}
