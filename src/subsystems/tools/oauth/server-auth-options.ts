/** What one MCP server's sign-in (`server-auth.ts`) is built from, and what it hands back. */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { EventBus } from '../../../events/event-bus.js';
import type { McpHttpServer } from '../../../protocol/mcp-config.schema.js';
import type { Clock } from '../../../shared/clock.js';
import type { VigilLogger } from '../../../shared/logger.js';
import type { CallbackUrl } from './callback-url.js';
import type { OAuthStore } from './oauth-store.js';

/** What the server's connection does for its sign-in. */
export interface AuthConnection {
  /** Stop and stay stopped until signed in (its tools unavailable). */
  hold(): void;
  /** Connect again now. */
  reconnect(): void;
}

/** What a sign-in needs. */
export interface ServerAuthOptions {
  server: string;
  entry: McpHttpServer;
  store: OAuthStore;
  callbackUrl: CallbackUrl;
  bus: EventBus;
  clock: Clock;
  log: VigilLogger;
  /** The fetch every request of this server goes through (tests may substitute one); default the global fetch. */
  fetch?: FetchLike;
}

/** What `login` hands the operator. */
export interface SignInStart {
  authorizationUrl: string;
  /** Epoch ms. */
  expiresAt: number;
}

/** How a callback went. */
export type SignInOutcome =
  | { ok: true }
  | { ok: false; error: string }
  /** No live sign-in had this state (never made, used already, or expired): nothing was done. */
  | { ok: false; unknown: true };
