/**
 * The parts of one server's stored OAuth record the sign-in reads and changes besides the provider's: the pending
 * sign-ins taken out by a callback, the challenge a 401 or 403 named, and the scope a step-up asks for. Store-backed
 * functions and pure reads; the sign-in (`server-auth.ts`) calls them under its queue.
 */
import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { McpHttpServer } from '../../../protocol/mcp-config.schema.js';
import type { McpOAuthRecord, PendingSignIn } from '../../../protocol/mcp-oauth.schema.js';
import type { VigilLogger } from '../../../shared/logger.js';
import { runDetached } from '../../../shared/run-detached.js';
import { errorClass } from '../down-reason.js';
import type { OAuthStore } from './oauth-store.js';

/** The scopes of `a` and `b` (space-separated), each once, in order of first appearance. */
export function scopeUnion(a: string | undefined, b: string | undefined): string {
  const scopes = `${a ?? ''} ${b ?? ''}`.split(' ').filter((scope) => scope !== '');
  return [...new Set(scopes)].join(' ');
}

/** An authorization server's error code, as far as it is a code (never its description, which is its own text). */
export function oauthErrorCode(text: string | null | undefined): string {
  return text !== null && text !== undefined && /^[\w.-]{1,64}$/.test(text) ? text : 'an unnamed error';
}

/** A failure as events may say it: the OAuth error code, or the error's class; never a message that could carry a token. */
export function failureText(err: unknown): string {
  if (err instanceof OAuthError) return `the authorization server answered ${oauthErrorCode(err.errorCode)}`;
  return `the sign-in failed (${errorClass(err)})`;
}

/** The scope the stored tokens were most likely asked with when the authorization server did not say: as `auth()` picks it. */
export function signedInScope(record: McpOAuthRecord, entry: McpHttpServer): string | undefined {
  const { challenge, discovery } = record;
  if (challenge?.scope !== undefined && challenge.scope !== '') return challenge.scope;
  const supported = (discovery?.['resourceMetadata'] as { scopes_supported?: unknown } | undefined)?.scopes_supported;
  if (Array.isArray(supported) && supported.length > 0) return supported.join(' ');
  return entry.oauth?.scopes?.join(' ');
}

/** The challenge a 401 or 403 of the server itself named (scope, resource metadata); undefined when it named none. */
function challengeOf(response: Response): McpOAuthRecord['challenge'] {
  const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
  if (resourceMetadataUrl === undefined && scope === undefined) return undefined;
  return {
    ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl: resourceMetadataUrl.href }),
    ...(scope === undefined ? {} : { scope }),
  };
}

/** Records what a 401 or 403 of the server itself asked for (scope, resource metadata), for later sign-ins. */
export function recordChallenge(store: OAuthStore, server: string, response: Response, log: VigilLogger): void {
  const challenge = challengeOf(response);
  if (challenge === undefined) return;
  runDetached(
    store.update(server, (record) => ({ ...record, challenge })),
    log,
    `recording the authorization challenge of MCP server ${server}`,
  );
}

/**
 * Stores the challenge of a step-up: `scope` asked for, with the resource metadata the 403 named (or the one stored
 * before, when it named none).
 */
export function saveStepUpChallenge(
  store: OAuthStore,
  server: string,
  resourceMetadataUrl: URL | undefined,
  scope: string,
): Promise<unknown> {
  return store.update(server, (current) => ({
    ...current,
    challenge: {
      ...(resourceMetadataUrl === undefined
        ? current.challenge?.resourceMetadataUrl === undefined
          ? {}
          : { resourceMetadataUrl: current.challenge.resourceMetadataUrl }
        : { resourceMetadataUrl: resourceMetadataUrl.href }),
      scope,
    },
  }));
}

/** Removes the pending sign-in `state` from the store and returns it, unless it was gone already or has expired at `now`. */
export async function takeSignIn(
  store: OAuthStore,
  server: string,
  state: string,
  now: () => number,
): Promise<PendingSignIn | undefined> {
  let taken: PendingSignIn | undefined;
  await store.update(server, (record) => {
    taken = record.signIns.find((pending) => pending.state === state);
    return { ...record, signIns: record.signIns.filter((pending) => pending.state !== state) };
  });
  return taken !== undefined && taken.expiresAt > now() ? taken : undefined;
}

/** Removes the pending sign-in `state` from the store. */
export async function dropSignIn(store: OAuthStore, server: string, state: string): Promise<void> {
  await store.update(server, (record) => ({
    ...record,
    signIns: record.signIns.filter((pending) => pending.state !== state),
  }));
}
