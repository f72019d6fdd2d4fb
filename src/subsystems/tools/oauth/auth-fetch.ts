/**
 * The fetch a signed-in MCP server's transport goes through: refresh grants one at a time (`refresh-grants.ts`), what
 * a 401 or 403 of the server asks for noted for the sign-in, a 403 `insufficient_scope` turned into a step-up, and a
 * 401 to a tool call kept from being re-sent by the SDK (whether the tool ran is unknown).
 */
import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { describeError } from '../../../errors.js';
import type { VigilLogger } from '../../../shared/logger.js';
import { presentedRefreshToken, type RefreshGrants } from './refresh-grants.js';

/** A request answered 403 `insufficient_scope`: the server refused it (it did not run), and a larger sign-in is needed. */
export class InsufficientScopeError extends Error {
  constructor() {
    super(
      'the server answered 403 insufficient_scope: the sign-in does not cover this request; the operator signs in again with the larger scope',
    );
    this.name = 'InsufficientScopeError';
  }
}

/** A tool call answered 401: the request was sent, so whether the tool ran is unknown (never re-sent blindly). */
export class ToolCallUnauthorizedError extends Error {
  constructor() {
    super(
      'the server answered 401 (it refused the access token) to a request that was sent: whether the tool ran is unknown, so it is not sent again',
    );
    this.name = 'ToolCallUnauthorizedError';
  }
}

/** The JSON-RPC messages of a request body (one, or a batch); none when it is no JSON. */
function messagesOf(body: unknown): unknown[] {
  if (typeof body !== 'string') return [];
  try {
    const message = JSON.parse(body) as unknown;
    return Array.isArray(message) ? message : [message];
  } catch {
    return [];
  }
}

/** True when `body` is a JSON-RPC `tools/call` request (the one request whose 401 must not be re-sent by the SDK). */
function isToolCall(body: unknown): boolean {
  if (typeof body !== 'string' || !body.includes('tools/call')) return false;
  return messagesOf(body).some((m) => (m as { method?: unknown } | null)?.method === 'tools/call');
}

/** True when `body` holds a request beyond the handshake (not `initialize`, not a notification): its success shows a token's scope suffices. */
function isBeyondHandshake(body: unknown): boolean {
  return messagesOf(body).some((m) => {
    const method = (m as { method?: unknown } | null)?.method;
    return typeof method === 'string' && method !== 'initialize' && !method.startsWith('notifications/');
  });
}

/** What the fetch tells the sign-in, and asks of it. */
export interface AuthFetchHost {
  server: string;
  /** The server's own URL: only its answers are read for challenges. */
  serverUrl: string;
  /** The fetch underneath (tests may substitute one). */
  send: FetchLike;
  grants: RefreshGrants;
  log: VigilLogger;
  holdsRefreshToken(): boolean;
  /** A request beyond the handshake got through: the scope held suffices. */
  scopeSufficed(): void;
  /** A 401 or 403 of the server: what it asks for, for later sign-ins. */
  noteChallenge(response: Response): void;
  /** A 403 `insufficient_scope` while a refresh token is held: the operator is asked to sign in with more scope. */
  stepUp(response: Response): Promise<void>;
  /** A tool call met a 401: the access token was refused mid-life. */
  toolCallRefused(): void;
}

/** The transport's fetch for one server. */
export function createAuthFetch(host: AuthFetchHost): FetchLike {
  const serverUrl = new URL(host.serverUrl).href;
  const { send } = host;
  return async (url, init) => {
    const refreshToken = presentedRefreshToken(init);
    if (refreshToken !== undefined) return host.grants.send(send, url, init!, refreshToken);
    const response = await send(url, init);
    if (response.ok && isBeyondHandshake(init?.body) && new URL(String(url)).href === serverUrl) host.scopeSufficed();
    if ((response.status === 401 || response.status === 403) && new URL(String(url)).href === serverUrl) {
      if (
        response.status === 403 &&
        extractWWWAuthenticateParams(response).error === 'insufficient_scope' &&
        host.holdsRefreshToken()
      ) {
        await response.body?.cancel().catch(() => undefined);
        await host
          .stepUp(response)
          .catch((err: unknown) =>
            host.log.warn(
              { server: host.server, err: describeError(err) },
              'a sign-in with a larger scope could not be started',
            ),
          );
        throw new InsufficientScopeError();
      }
      host.noteChallenge(response);
      if (response.status === 401 && isToolCall(init?.body)) {
        await response.body?.cancel().catch(() => undefined);
        host.toolCallRefused();
        throw new ToolCallUnauthorizedError();
      }
    }
    return response;
  };
}
