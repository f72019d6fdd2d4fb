/** The wire shapes of the tools area (CONTRACT §8, §15): `tools.list` and its entries (tools, servers needing a sign-in, servers down), `tools.login`, `tools.logout`. */
import { z } from 'zod';
import { isoTime } from './iso-time.js';

/** Where a tool's server stands: connected, not connected (retried with back-off), or waiting for the operator to sign in. */
export const ServerStateSchema = z.enum(['up', 'down', 'needs_auth']);

/** One tool the agent may use, as `tools.list` shows it. */
export const ToolViewSchema = z.object({
  /** The name the model sees: `mcp__SERVER__TOOL`. */
  name: z.string(),
  /** The configured server it comes from. */
  server: z.string(),
  /** Its name on that server (differs from the part in `name` only where a character had to be replaced). */
  tool: z.string(),
  description: z.string(),
  /** A call waits for an operator's `tools.approve` before it runs. */
  requireApproval: z.boolean(),
  /** A call whose outcome a crash left unknown may be run again. */
  idempotent: z.boolean(),
  /** Its server is connected now; an unavailable tool keeps its place in the list (and in the model's prompt). */
  available: z.boolean(),
  /** Its server's state: `needs_auth` when the operator must sign in (`tools.login`). */
  state: ServerStateSchema,
});

/** One tool entry of `tools.list`. */
export type ToolView = z.infer<typeof ToolViewSchema>;

/**
 * A server that waits for the operator to sign in (OAuth): one entry per such server, after the tools, whether or
 * not its tools are known yet (a server that never got past its 401 has none listed). The link is only for an
 * `operate` token: its `state` is the sign-in's credential (whoever holds it may finish or void the sign-in).
 */
export const SignInViewSchema = z.object({
  server: z.string(),
  state: z.literal('needs_auth'),
  /** Operate only: open it in a browser to sign in; it works once, until `expiresAt` (`tools.login` makes a fresh one). */
  authorizationUrl: z.string().optional(),
  /** Operate only, with `authorizationUrl`. */
  expiresAt: isoTime.optional(),
});

/** A server entry of `tools.list`. */
export type SignInView = z.infer<typeof SignInViewSchema>;

/**
 * A server that is not connected: one entry per such server, after the tools, from its first failed attempt until one
 * succeeds (whether or not its tools are known: a server that was never reached has none listed). Every scope sees it:
 * `error` is what `mcp.server_down` says (how it failed, by an error's class and code or how its process ended), never
 * the server's own words, a header or a URL.
 */
export const ServerDownViewSchema = z.object({
  server: z.string(),
  state: z.literal('down'),
  /** Why the last attempt failed, e.g. `it could not be connected (TypeError ECONNREFUSED)`. */
  error: z.string(),
  /** When the next attempt starts (back-off: 1 s doubling to 1 minute); a time past means an attempt is under way. */
  nextRetryAt: isoTime,
});

/** A server entry of `tools.list` for a server that is down. */
export type ServerDownView = z.infer<typeof ServerDownViewSchema>;

/** One entry of `tools.list`: a tool (it has a `name`), or a server (it has none) waiting for a sign-in or down. */
export const ToolsListEntrySchema = z.union([ToolViewSchema, SignInViewSchema, ServerDownViewSchema]);

/** One entry of `tools.list`. */
export type ToolsListEntry = z.infer<typeof ToolsListEntrySchema>;

/** True for a server entry waiting for a sign-in (not a tool, not a server that is down). */
export function isSignInView(entry: ToolsListEntry): entry is SignInView {
  return !('name' in entry) && entry.state === 'needs_auth';
}

/** True for a server entry of a server that is down. */
export function isServerDownView(entry: ToolsListEntry): entry is ServerDownView {
  return !('name' in entry) && entry.state === 'down';
}

/** `tools.login` / `tools.logout`: the configured server's name. */
export const ToolsServerParamsSchema = z.strictObject({
  server: z.string().min(1, { error: 'expected the name of a configured MCP server' }),
});

/** `tools.login`'s result: the URL to open, and when it stops working. */
export const ToolsLoginResultSchema = z.object({
  authorizationUrl: z.string(),
  expiresAt: isoTime,
});

export type ToolsServerParams = z.infer<typeof ToolsServerParamsSchema>;
export type ToolsLoginResult = z.infer<typeof ToolsLoginResultSchema>;

/** The gateway path an authorization server sends the operator's browser back to (`VIGIL_PUBLIC_URL` + this). */
export const OAUTH_CALLBACK_PATH = '/oauth/callback';

/** How a sign-in's callback went. */
export type CallbackOutcome =
  | { kind: 'signed_in'; server: string }
  | { kind: 'failed'; server: string; error: string }
  /** No live sign-in has this state (never made, used already, or older than 10 minutes): nothing was done. */
  | { kind: 'unknown_state' };
