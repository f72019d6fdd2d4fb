/**
 * One remote MCP server's sign-in, hosted: the pure state machine of `auth-state.ts` plus the I/O it asks for. The SDK
 * does the OAuth (discovery, registration, PKCE, the token requests, step-up) through `auth()`; this class is the
 * `OAuthClientProvider` it calls back (backed by the `OAuthStore`), the refresh timer on the injected clock, and the
 * operator's way in: `login`, `logout` and the callback's `finish`. No token ever leaves it but in an HTTP request to
 * the server or its authorization server: events say which server, never what was issued.
 */
import { randomBytes } from 'node:crypto';
import {
  auth,
  extractWWWAuthenticateParams,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { InvalidGrantError, OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { checkResourceAllowed, resourceUrlFromServerUrl } from '@modelcontextprotocol/sdk/shared/auth-utils.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { describeError } from '../../../errors.js';
import type { EventBus } from '../../../events/event-bus.js';
import type { McpHttpServer } from '../../../protocol/mcp-config.schema.js';
import type { McpOAuthRecord, PendingSignIn } from '../../../protocol/mcp-oauth.schema.js';
import type { Clock } from '../../../shared/clock.js';
import type { VigilLogger } from '../../../shared/logger.js';
import { runDetached } from '../../../shared/run-detached.js';
import { errorClass } from '../down-reason.js';
import { transition, type AuthEffect, type AuthEvent, type AuthPhase, type AuthState } from './auth-state.js';
import type { CallbackUrl } from './callback-url.js';
import type { OAuthStore } from './oauth-store.js';
import { presentedRefreshToken, RefreshGrants } from './refresh-grants.js';

/** How long a sign-in's authorization URL (its `state`) stays valid. */
export const SIGN_IN_TTL_MS = 10 * 60_000;

/**
 * Why a server whose protected resource metadata names another resource is not signed in to (RFC 9728 §3.3): a token
 * asked for that resource could be replayed there. Its own text only: the resource named is the server's words.
 */
const RESOURCE_MISMATCH =
  'the server’s protected resource metadata names a resource other than the server’s URL, so no sign-in is made (a token for another resource could be replayed there); check the server’s URL';

/** Pending sign-ins kept per server (the newest): an operator who asks again and again does not grow the record. */
const MAX_PENDING_SIGN_INS = 8;

/** A refresh that could not reach the authorization server is tried again after this, doubling up to the cap. */
const REFRESH_RETRY_MS = 30_000;
const REFRESH_RETRY_MAX_MS = 10 * 60_000;

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

/**
 * Which of our own calls of `auth()` is running; `transport` for the ones the SDK's transport makes on a 401;
 * `step_up` for the sign-in a 403 `insufficient_scope` needs while a refresh token is held.
 */
type Operation = 'transport' | 'login' | 'refresh' | 'finish' | 'step_up';

/** A request answered 403 `insufficient_scope`: the server refused it (it did not run), and a larger sign-in is needed. */
export class InsufficientScopeError extends Error {
  constructor() {
    super(
      'the server answered 403 insufficient_scope: the sign-in does not cover this request; the operator signs in again with the larger scope',
    );
    this.name = 'InsufficientScopeError';
  }
}

/** The scopes of `a` and `b` (space-separated), each once, in order of first appearance. */
export function scopeUnion(a: string | undefined, b: string | undefined): string {
  const scopes = `${a ?? ''} ${b ?? ''}`.split(' ').filter((scope) => scope !== '');
  return [...new Set(scopes)].join(' ');
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

/** True when `body` is a JSON-RPC `tools/call` request (the one request whose 401 must not be re-sent by the SDK). */
function isToolCall(body: unknown): boolean {
  if (typeof body !== 'string' || !body.includes('tools/call')) return false;
  try {
    const message = JSON.parse(body) as unknown;
    const messages = Array.isArray(message) ? message : [message];
    return messages.some((m) => (m as { method?: unknown } | null)?.method === 'tools/call');
  } catch {
    return false;
  }
}

/** True when `body` holds a request beyond the handshake (not `initialize`, not a notification): its success shows a token's scope suffices. */
function isBeyondHandshake(body: unknown): boolean {
  if (typeof body !== 'string') return false;
  try {
    const message = JSON.parse(body) as unknown;
    const messages = Array.isArray(message) ? message : [message];
    return messages.some((m) => {
      const method = (m as { method?: unknown } | null)?.method;
      return typeof method === 'string' && method !== 'initialize' && !method.startsWith('notifications/');
    });
  } catch {
    return false;
  }
}

/**
 * Sign-ins the server may ask for in a row with the same scope while no request beyond the handshake gets past it
 * (a 403 `insufficient_scope` that a new token never satisfies): the MCP specification asks for a bound on step-up
 * retries, and the conformance suite allows three authorization requests.
 */
const MAX_REPEATED_SIGN_INS = 3;

/** An authorization server's error code, as far as it is a code (never its description, which is its own text). */
function oauthErrorCode(text: string | null | undefined): string {
  return text !== null && text !== undefined && /^[\w.-]{1,64}$/.test(text) ? text : 'an unnamed error';
}

/** A failure as events may say it: the OAuth error code, or the error's class; never a message that could carry a token. */
function failureText(err: unknown): string {
  if (err instanceof OAuthError) return `the authorization server answered ${oauthErrorCode(err.errorCode)}`;
  return `the sign-in failed (${errorClass(err)})`;
}

/** One server's sign-in. */
export class ServerAuth {
  private stateValue: AuthState = { phase: 'unknown' };
  private connection: AuthConnection | undefined;
  private refreshTimer: unknown;
  private refreshFailures = 0;
  private operation: Operation = 'transport';
  private tokensInvalidated = false;
  private draft: { state: string; codeVerifier?: string } | undefined;
  private lastSignIn: PendingSignIn | undefined;
  private finishing: PendingSignIn | undefined;
  private hideTokens = false;
  private chain: Promise<unknown> = Promise.resolve();
  private stopped = false;
  /** The scope of the sign-ins the transport asked for in a row, how many, and whether the last was refused (see MAX_REPEATED_SIGN_INS). */
  private repeatedSignIns = { scope: '', count: 0, refused: false };
  /** Every refresh grant of this server, ours or the SDK's: one in flight, a refresh token sent at most once. */
  private readonly grants = new RefreshGrants();
  /** The `OAuthClientProvider` the SDK's `auth()` and transport call. */
  readonly provider: OAuthClientProvider;
  /** The fetch the server's transport uses: notes what 401s and 403s ask for, and keeps a 401 to a tool call from being re-sent. */
  readonly fetch: FetchLike;

  constructor(private readonly options: ServerAuthOptions) {
    this.provider = this.createProvider();
    this.fetch = this.createFetch();
  }

  /** Where the sign-in stands. */
  get state(): AuthState {
    return this.stateValue;
  }

  /** The phase alone. */
  get phase(): AuthPhase {
    return this.stateValue.phase;
  }

  /** True when this server has ever had an OAuth client, tokens or a sign-in (or is configured for one). */
  usesOAuth(): boolean {
    const record = this.options.store.get(this.options.server);
    return (
      this.options.entry.oauth !== undefined ||
      record.client !== undefined ||
      record.tokens !== undefined ||
      record.signIns.length > 0 ||
      this.phase !== 'unknown'
    );
  }

  /** Ties the sign-in to its connection, and takes up stored tokens (their refresh timer starts). */
  attach(connection: AuthConnection): void {
    this.connection = connection;
    const tokens = this.record().tokens;
    if (tokens !== undefined) {
      this.dispatch({
        type: 'tokens_stored',
        obtainedAt: tokens.obtainedAt,
        ...(tokens.expiresAt === undefined ? {} : { expiresAt: tokens.expiresAt }),
        refreshable: typeof tokens.value['refresh_token'] === 'string',
        signIn: false,
      });
    }
  }

  /** Resolves once no sign-in work of ours runs (a refresh due at boot finishes before the first connection). */
  settled(): Promise<void> {
    return this.chain.then(
      () => undefined,
      () => undefined,
    );
  }

  /** Starts a fresh sign-in (the operator's `tools.login`): the URL to open, valid for 10 minutes. */
  login(): Promise<SignInStart> {
    return this.exclusive(async () => {
      // The operator asks: whatever the server refused before, this sign-in is theirs to try.
      this.repeatedSignIns = { scope: '', count: 0, refused: false };
      const signIn = await this.startSignIn('login');
      return { authorizationUrl: signIn.authorizationUrl, expiresAt: signIn.expiresAt };
    });
  }

  /** Forgets the tokens (the client registration is kept); the connection starts again and finds it must sign in. */
  logout(): Promise<void> {
    return this.exclusive(async () => {
      await this.options.store.update(this.options.server, ({ tokens: _tokens, ...rest }) => ({
        ...rest,
        signIns: [],
      }));
      this.dispatch({ type: 'signed_out' });
    });
  }

  /**
   * The callback of the sign-in whose `state` this is: `code` is exchanged for tokens, or `error` (the authorization
   * server's refusal) reported. The sign-in is taken out of the store (under this server's queue) before anything is
   * exchanged, so a second callback with the same state, even one that arrived at the same moment, finds nothing and
   * changes nothing (`unknown`). After a failure a fresh sign-in is ready, so `tools.login` and `tools.list` offer a
   * link that works.
   */
  finish(state: string, answer: { code?: string; error?: string }): Promise<SignInOutcome> {
    return this.exclusive(async () => {
      const signIn = await this.takeSignIn(state);
      if (signIn === undefined) return { ok: false, unknown: true };
      let failure: string | undefined;
      if (answer.code === undefined) {
        failure = `the authorization server answered ${oauthErrorCode(answer.error)}`;
      } else {
        try {
          this.operation = 'finish';
          this.finishing = signIn;
          const challenge = this.record().challenge;
          const result = await auth(this.provider, {
            serverUrl: this.options.entry.url,
            authorizationCode: answer.code,
            ...(challenge?.resourceMetadataUrl === undefined
              ? {}
              : { resourceMetadataUrl: new URL(challenge.resourceMetadataUrl) }),
            ...(challenge?.scope === undefined ? {} : { scope: challenge.scope }),
            fetchFn: this.fetch,
          });
          if (result !== 'AUTHORIZED') failure = 'the authorization server did not issue tokens';
        } catch (err) {
          this.options.log.debug(
            { server: this.options.server, err: describeError(err) },
            'exchanging an authorization code failed',
          );
          failure = failureText(err);
        } finally {
          this.operation = 'transport';
          this.finishing = undefined;
        }
      }
      if (failure === undefined) return { ok: true };
      this.dispatch({ type: 'sign_in_failed', error: failure });
      if (this.phase === 'needs_auth') {
        await this.startSignIn('login').catch((err: unknown) =>
          this.options.log.warn(
            { server: this.options.server, err: describeError(err) },
            'a fresh sign-in could not be started after a failed one',
          ),
        );
      }
      return { ok: false, error: failure };
    });
  }

  /** Stops the refresh timer; nothing more is started. */
  stop(): void {
    this.stopped = true;
    this.cancelRefresh();
  }

  private record(): McpOAuthRecord {
    return this.options.store.get(this.options.server);
  }

  /** Runs `work` after every earlier sign-in operation of this server: two never share the provider's fields. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.chain.then(work, work);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** An authorization request through `auth()` with the tokens hidden (so it cannot refresh instead): the new sign-in. */
  private async startSignIn(operation: 'login' | 'step_up'): Promise<PendingSignIn> {
    this.operation = operation;
    this.hideTokens = true;
    this.lastSignIn = undefined;
    try {
      const challenge = this.record().challenge;
      const result = await auth(this.provider, {
        serverUrl: this.options.entry.url,
        ...(challenge?.resourceMetadataUrl === undefined
          ? {}
          : { resourceMetadataUrl: new URL(challenge.resourceMetadataUrl) }),
        ...(challenge?.scope === undefined || challenge.scope === '' ? {} : { scope: challenge.scope }),
        fetchFn: this.fetch,
      });
      if (result !== 'REDIRECT' || this.lastSignIn === undefined)
        throw new Error('the authorization server issued tokens without a sign-in');
      return this.lastSignIn;
    } finally {
      this.operation = 'transport';
      this.hideTokens = false;
    }
  }

  /**
   * A 403 `insufficient_scope` while a refresh token is held. The SDK would refresh (with the same scope, so the
   * request is refused again); instead the operator is asked, once, to sign in with the scopes the sign-in had plus
   * the ones the server asks for.
   */
  private stepUp(response: Response): Promise<void> {
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
    const record = this.record();
    const granted = record.tokens?.value['scope'];
    const requested = scopeUnion(typeof granted === 'string' ? granted : this.signedInScope(), scope);
    return this.exclusive(async () => {
      await this.options.store.update(this.options.server, (current) => ({
        ...current,
        challenge: {
          ...(resourceMetadataUrl === undefined
            ? current.challenge?.resourceMetadataUrl === undefined
              ? {}
              : { resourceMetadataUrl: current.challenge.resourceMetadataUrl }
            : { resourceMetadataUrl: resourceMetadataUrl.href }),
          scope: requested,
        },
      }));
      await this.startSignIn('step_up');
    });
  }

  /** The scope the stored tokens were most likely asked with when the authorization server did not say: as `auth()` picks it. */
  private signedInScope(): string | undefined {
    const { challenge, discovery } = this.record();
    if (challenge?.scope !== undefined && challenge.scope !== '') return challenge.scope;
    const supported = (discovery?.['resourceMetadata'] as { scopes_supported?: unknown } | undefined)?.scopes_supported;
    if (Array.isArray(supported) && supported.length > 0) return supported.join(' ');
    return this.options.entry.oauth?.scopes?.join(' ');
  }

  /** The `refresh` effect: `auth()` refreshes with the refresh token; a refused one ends in a new sign-in. */
  private refresh(): Promise<void> {
    return this.exclusive(async () => {
      if (this.stopped || this.phase !== 'refreshing') return;
      this.operation = 'refresh';
      this.tokensInvalidated = false;
      this.lastSignIn = undefined;
      try {
        const challenge = this.record().challenge;
        const result = await auth(this.provider, {
          serverUrl: this.options.entry.url,
          ...(challenge?.resourceMetadataUrl === undefined
            ? {}
            : { resourceMetadataUrl: new URL(challenge.resourceMetadataUrl) }),
          fetchFn: this.fetch,
        });
        if (result === 'AUTHORIZED') {
          this.refreshFailures = 0;
          return;
        }
        const signIn = this.lastSignIn as PendingSignIn | undefined;
        if (this.tokensInvalidated && signIn !== undefined) {
          // Refused (invalid_grant, or the client is no longer known): the tokens are gone, the operator signs in again.
          this.refreshFailures = 0;
          this.dispatch({
            type: 'sign_in_started',
            authorizationUrl: signIn.authorizationUrl,
            expiresAt: signIn.expiresAt,
            needed: true,
          });
          return;
        }
        // The SDK went on to a sign-in because the token endpoint could not be reached: the tokens are kept.
        if (signIn !== undefined) await this.dropSignIn(signIn.state);
        this.refreshFailed(new Error('the token endpoint could not be reached'));
      } catch (err) {
        this.refreshFailed(err);
      } finally {
        this.operation = 'transport';
      }
    });
  }

  private refreshFailed(err: unknown): void {
    this.options.log.warn(
      { server: this.options.server, err: errorClass(err) },
      'refreshing an MCP server’s access token failed; it is tried again',
    );
    this.refreshFailures += 1;
    const wait = Math.min(REFRESH_RETRY_MAX_MS, REFRESH_RETRY_MS * 2 ** (this.refreshFailures - 1));
    this.dispatch({ type: 'refresh_failed', retryAt: this.options.clock.now() + wait });
  }

  /** Removes the pending sign-in `state` from the store and returns it, unless it was gone already or has expired. */
  private async takeSignIn(state: string): Promise<PendingSignIn | undefined> {
    let taken: PendingSignIn | undefined;
    await this.options.store.update(this.options.server, (record) => {
      taken = record.signIns.find((pending) => pending.state === state);
      return { ...record, signIns: record.signIns.filter((pending) => pending.state !== state) };
    });
    return taken !== undefined && taken.expiresAt > this.options.clock.now() ? taken : undefined;
  }

  private async dropSignIn(state: string): Promise<void> {
    await this.options.store.update(this.options.server, (record) => ({
      ...record,
      signIns: record.signIns.filter((pending) => pending.state !== state),
    }));
  }

  private dispatch(event: AuthEvent): void {
    const step = transition(this.stateValue, event);
    this.stateValue = step.state;
    for (const effect of step.effects) this.carryOut(effect);
  }

  private carryOut(effect: AuthEffect): void {
    const { bus, server, clock, log } = { ...this.options, server: this.options.server };
    switch (effect.kind) {
      case 'schedule_refresh':
        this.cancelRefresh();
        if (this.stopped) return;
        this.refreshTimer = clock.setTimeout(
          () => {
            this.refreshTimer = undefined;
            this.dispatch({ type: 'refresh_due' });
          },
          Math.max(0, effect.at - clock.now()),
        );
        return;
      case 'cancel_refresh':
        this.cancelRefresh();
        return;
      case 'refresh':
        runDetached(this.refresh(), log, `refreshing the access token of MCP server ${server}`);
        return;
      case 'emit_required':
        bus.emit('mcp.auth_required', { server });
        return;
      case 'emit_completed':
        bus.emit('mcp.auth_completed', { server });
        return;
      case 'emit_failed':
        bus.emit('mcp.auth_failed', { server, error: effect.error });
        return;
      case 'hold_connection':
        this.connection?.hold();
        return;
      case 'reconnect':
        this.connection?.reconnect();
        return;
    }
  }

  private cancelRefresh(): void {
    if (this.refreshTimer !== undefined) this.options.clock.clearTimeout(this.refreshTimer);
    this.refreshTimer = undefined;
  }

  /**
   * Counts a sign-in the transport asks for; true (and `mcp.auth_failed` once) past MAX_REPEATED_SIGN_INS in a row
   * with the same scope, none of whose tokens got a request beyond the handshake through.
   */
  private signInRefused(authorizationUrl: URL): boolean {
    const scope = authorizationUrl.searchParams.get('scope') ?? '';
    const last = this.repeatedSignIns;
    this.repeatedSignIns =
      last.scope === scope ? { ...last, count: last.count + 1 } : { scope, count: 1, refused: false };
    if (this.repeatedSignIns.count <= MAX_REPEATED_SIGN_INS) return false;
    if (!this.repeatedSignIns.refused) {
      this.repeatedSignIns.refused = true;
      this.dispatch({
        type: 'sign_in_failed',
        // The scope is the server's own text: not in an event a read token sees.
        error: `the server refused the tokens of ${MAX_REPEATED_SIGN_INS} sign-ins in a row with 403 insufficient_scope; run vigil tools login to try again`,
      });
    }
    return true;
  }

  /**
   * True when a refresh token is stored that the authorization server has not refused, for the authorization server
   * the server names now (the SDK does not present one issued by another, and then a sign-in is needed indeed).
   */
  private holdsRefreshToken(): boolean {
    const { tokens, discovery } = this.record();
    if (typeof tokens?.value['refresh_token'] !== 'string') return false;
    const issuer = tokens.value['issuer'];
    const current = discovery?.['authorizationServerUrl'];
    const bare = (url: string) => url.replace(/\/+$/, '');
    return typeof issuer !== 'string' || typeof current !== 'string' || bare(issuer) === bare(current);
  }

  /** Records what a 401 or 403 of the server itself asked for (scope, resource metadata), for later sign-ins. */
  private noteChallenge(response: Response): void {
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
    if (resourceMetadataUrl === undefined && scope === undefined) return;
    const challenge = {
      ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl: resourceMetadataUrl.href }),
      ...(scope === undefined ? {} : { scope }),
    };
    runDetached(
      this.options.store.update(this.options.server, (record) => ({ ...record, challenge })),
      this.options.log,
      `recording the authorization challenge of MCP server ${this.options.server}`,
    );
  }

  private createFetch(): FetchLike {
    const serverUrl = new URL(this.options.entry.url).href;
    const send = this.options.fetch ?? fetch;
    return async (url, init) => {
      const refreshToken = presentedRefreshToken(init);
      if (refreshToken !== undefined) return this.grants.send(send, url, init!, refreshToken);
      const response = await send(url, init);
      if (response.ok && isBeyondHandshake(init?.body) && new URL(String(url)).href === serverUrl)
        this.repeatedSignIns = { scope: '', count: 0, refused: false };
      if ((response.status === 401 || response.status === 403) && new URL(String(url)).href === serverUrl) {
        if (
          response.status === 403 &&
          extractWWWAuthenticateParams(response).error === 'insufficient_scope' &&
          this.holdsRefreshToken()
        ) {
          await response.body?.cancel().catch(() => undefined);
          await this.stepUp(response).catch((err: unknown) =>
            this.options.log.warn(
              { server: this.options.server, err: describeError(err) },
              'a sign-in with a larger scope could not be started',
            ),
          );
          throw new InsufficientScopeError();
        }
        this.noteChallenge(response);
        if (response.status === 401 && isToolCall(init?.body)) {
          await response.body?.cancel().catch(() => undefined);
          // The access token was refused mid-life (revoked, or expired early): renew it for the calls after this one.
          if (this.phase === 'signed_in') this.dispatch({ type: 'refresh_due' });
          throw new ToolCallUnauthorizedError();
        }
      }
      return response;
    };
  }

  private createProvider(): OAuthClientProvider {
    const { server, entry, store, clock, callbackUrl } = this.options;
    const oauth = entry.oauth;
    const update = (change: (record: McpOAuthRecord) => McpOAuthRecord) => store.update(server, change);
    return {
      get redirectUrl() {
        return callbackUrl.current;
      },
      ...(oauth?.clientMetadataUrl === undefined ? {} : { clientMetadataUrl: oauth.clientMetadataUrl }),
      get clientMetadata(): OAuthClientMetadata {
        return {
          client_name: 'Vigil',
          redirect_uris: callbackUrl.current === undefined ? [] : [callbackUrl.current],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          ...(oauth?.scopes === undefined || oauth.scopes.length === 0 ? {} : { scope: oauth.scopes.join(' ') }),
        };
      },
      state: () => {
        const state = randomBytes(32).toString('base64url');
        this.draft = { state };
        return state;
      },
      // Awaited by auth() before it registers or builds an authorization request: the redirect URI is known by then.
      clientInformation: async (): Promise<OAuthClientInformationMixed | undefined> => {
        const redirect = await callbackUrl.known();
        const record = store.get(server);
        const stored = record.client as OAuthClientInformationMixed | undefined;
        if (oauth?.clientId !== undefined) {
          if (stored?.client_id === oauth.clientId) return stored;
          return {
            client_id: oauth.clientId,
            ...(oauth.clientSecret === undefined ? {} : { client_secret: oauth.clientSecret }),
          };
        }
        // A client registered for another redirect URI (VIGIL_PUBLIC_URL changed) could not finish a sign-in.
        if (stored !== undefined && record.clientRedirectUrl === redirect) return stored;
        return undefined;
      },
      saveClientInformation: async (information) => {
        await update((record) => ({
          ...record,
          client: information,
          ...(callbackUrl.current === undefined ? {} : { clientRedirectUrl: callbackUrl.current }),
        }));
      },
      tokens: () => (this.hideTokens ? undefined : (store.get(server).tokens?.value as OAuthTokens | undefined)),
      saveTokens: async (tokens) => {
        // Two requesters of one refresh both save its answer, and a late one may hold an answer since superseded
        // (its refresh token exchanged again): neither changes what is stored.
        if (store.get(server).tokens?.value['access_token'] === tokens.access_token) return;
        if (tokens.refresh_token !== undefined && this.grants.superseded(tokens.refresh_token)) return;
        const obtainedAt = clock.now();
        const expiresAt = tokens.expires_in === undefined ? undefined : obtainedAt + tokens.expires_in * 1000;
        await update((record) => ({
          ...record,
          tokens: {
            value: tokens,
            obtainedAt,
            ...(expiresAt === undefined ? {} : { expiresAt }),
          },
        }));
        this.dispatch({
          type: 'tokens_stored',
          obtainedAt,
          ...(expiresAt === undefined ? {} : { expiresAt }),
          refreshable: typeof tokens.refresh_token === 'string',
          signIn: this.operation === 'finish',
        });
      },
      saveCodeVerifier: (codeVerifier) => {
        if (this.draft !== undefined) this.draft.codeVerifier = codeVerifier;
      },
      codeVerifier: () => {
        if (this.finishing === undefined) throw new Error('no sign-in is being finished');
        return this.finishing.codeVerifier;
      },
      redirectToAuthorization: async (authorizationUrl) => {
        const draft = this.draft;
        this.draft = undefined;
        // The SDK goes on to a sign-in when its refresh got no answer (unreachable, or a 5xx): a refused refresh token
        // is forgotten first (invalidateCredentials), so one still held is good, and no sign-in is asked for; the
        // request fails and our refresh tries again (with its back-off).
        if (this.operation !== 'login' && this.operation !== 'step_up' && this.holdsRefreshToken()) {
          if (this.operation === 'transport' && this.phase === 'signed_in') this.dispatch({ type: 'refresh_due' });
          throw new Error('the authorization server could not be reached to refresh the access token');
        }
        if ((this.operation === 'transport' || this.operation === 'step_up') && this.signInRefused(authorizationUrl))
          throw new Error('the server keeps refusing the scope it asks for; no further sign-in is started');
        const state = draft?.state ?? authorizationUrl.searchParams.get('state') ?? '';
        if (draft?.codeVerifier === undefined || state === '') throw new Error('an authorization request without PKCE');
        // The operator opens it in a browser: an authorization endpoint that is no web address is refused.
        if (authorizationUrl.protocol !== 'https:' && authorizationUrl.protocol !== 'http:')
          throw new Error('the authorization endpoint is not an http(s) URL');
        const now = clock.now();
        const signIn: PendingSignIn = {
          state,
          codeVerifier: draft.codeVerifier,
          authorizationUrl: authorizationUrl.href,
          expiresAt: now + SIGN_IN_TTL_MS,
        };
        await update((record) => ({
          ...record,
          signIns: [...record.signIns.filter((pending) => pending.expiresAt > now), signIn].slice(
            -MAX_PENDING_SIGN_INS,
          ),
        }));
        this.lastSignIn = signIn;
        // The transport met a 401 it could not answer with a token, or a 403 a larger scope answers: the operator must sign in.
        if (this.operation === 'transport' || this.operation === 'step_up') {
          this.dispatch({
            type: 'sign_in_started',
            authorizationUrl: signIn.authorizationUrl,
            expiresAt: signIn.expiresAt,
            needed: true,
          });
        } else if (this.operation === 'login') {
          this.dispatch({
            type: 'sign_in_started',
            authorizationUrl: signIn.authorizationUrl,
            expiresAt: signIn.expiresAt,
            needed: false,
          });
        }
      },
      invalidateCredentials: async (scope) => {
        // A refused code exchange (invalid_grant) says nothing of the tokens held: they were not obtained by it, so
        // they are kept, and the code (good once) is not sent again by the SDK's retry.
        if (this.operation === 'finish' && scope === 'tokens')
          throw new InvalidGrantError('the authorization server refused the authorization code');
        if (scope === 'all' || scope === 'tokens') this.tokensInvalidated = true;
        await update((record) => {
          switch (scope) {
            case 'all':
              // Not the tokens a refused exchange did not obtain (see above).
              return this.operation === 'finish' && record.tokens !== undefined
                ? { signIns: record.signIns, tokens: record.tokens }
                : { signIns: record.signIns };
            case 'client': {
              const { client: _client, clientRedirectUrl: _url, ...rest } = record;
              return rest;
            }
            case 'tokens': {
              const { tokens: _tokens, ...rest } = record;
              return rest;
            }
            case 'discovery': {
              const { discovery: _discovery, ...rest } = record;
              return rest;
            }
            default:
              return record;
          }
        });
      },
      // Called by auth() with what discovery found, before it picks the resource or asks for anything.
      saveDiscoveryState: async (state) => {
        const resource = state.resourceMetadata?.resource;
        if (
          resource !== undefined &&
          !checkResourceAllowed({
            requestedResource: resourceUrlFromServerUrl(entry.url),
            configuredResource: resource,
          })
        ) {
          this.options.log.warn(
            { server, resource },
            'an MCP server’s protected resource metadata names another resource; no sign-in is made',
          );
          this.dispatch({ type: 'sign_in_refused', error: RESOURCE_MISMATCH });
          throw new Error(RESOURCE_MISMATCH);
        }
        await update((record) => ({ ...record, discovery: state as unknown as Record<string, unknown> }));
      },
      discoveryState: () => store.get(server).discovery as OAuthDiscoveryState | undefined,
    };
  }
}
