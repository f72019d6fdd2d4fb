/**
 * One remote MCP server's sign-in, hosted: the pure state machine of `auth-state.ts` plus the I/O it asks for. The SDK
 * does the OAuth (discovery, registration, PKCE, the token requests, step-up) through `auth()`, calling back the
 * store-backed `OAuthClientProvider` of `sign-in-provider.ts`; this class runs those calls one at a time, keeps the
 * refresh timer on the injected clock, and is the operator's way in: `login`, `logout` and the callback's `finish`.
 * No token ever leaves it but in an HTTP request to the server or its authorization server: events say which server,
 * never what was issued.
 */
import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { describeError } from '../../../errors.js';
import type { McpOAuthRecord, PendingSignIn } from '../../../protocol/mcp-oauth.schema.js';
import { runDetached } from '../../../shared/run-detached.js';
import { errorClass } from '../down-reason.js';
import { createAuthFetch } from './auth-fetch.js';
import { transition, type AuthEffect, type AuthEvent, type AuthPhase, type AuthState } from './auth-state.js';
import { RefreshGrants } from './refresh-grants.js';
import type { AuthConnection, ServerAuthOptions, SignInOutcome, SignInStart } from './server-auth-options.js';
import { SignInProvider } from './sign-in-provider.js';
import { REPEATED_SIGN_INS_REFUSED, SignInRepeats } from './sign-in-repeats.js';
import {
  dropSignIn,
  failureText,
  oauthErrorCode,
  recordChallenge,
  saveStepUpChallenge,
  scopeUnion,
  signedInScope,
  takeSignIn,
} from './sign-in-record.js';

export { InsufficientScopeError, ToolCallUnauthorizedError } from './auth-fetch.js';
export type { AuthConnection, ServerAuthOptions, SignInOutcome, SignInStart } from './server-auth-options.js';
export { SIGN_IN_TTL_MS } from './sign-in-provider.js';
export { scopeUnion } from './sign-in-record.js';

/** A refresh that could not reach the authorization server is tried again after this, doubling up to the cap. */
const REFRESH_RETRY_MS = 30_000;
const REFRESH_RETRY_MAX_MS = 10 * 60_000;

/** One server's sign-in. */
export class ServerAuth {
  private stateValue: AuthState = { phase: 'unknown' };
  private connection: AuthConnection | undefined;
  private refreshTimer: unknown;
  private refreshFailures = 0;
  private chain: Promise<unknown> = Promise.resolve();
  private stopped = false;
  /** The sign-ins the transport asked for in a row with one scope (`sign-in-repeats.ts`). */
  private readonly repeats = new SignInRepeats();
  /** Every refresh grant of this server, ours or the SDK's: one in flight, a refresh token sent at most once. */
  private readonly grants = new RefreshGrants();
  /** The `OAuthClientProvider` the SDK's `auth()` and transport call. */
  readonly provider: SignInProvider;
  /** The fetch the server's transport uses: notes what 401s and 403s ask for, and keeps a 401 to a tool call from being re-sent. */
  readonly fetch: FetchLike;

  constructor(private readonly options: ServerAuthOptions) {
    const { server, entry, store, callbackUrl, clock, log } = options;
    this.provider = new SignInProvider(
      { server, entry, store, callbackUrl, clock, log, grants: this.grants },
      {
        phase: () => this.phase,
        dispatch: (event) => this.dispatch(event),
        signInRefused: (url) => this.signInRefused(url),
      },
    );
    this.fetch = createAuthFetch({
      server,
      serverUrl: entry.url,
      send: options.fetch ?? fetch,
      grants: this.grants,
      log,
      holdsRefreshToken: () => this.provider.holdsRefreshToken(),
      scopeSufficed: () => this.repeats.reset(),
      noteChallenge: (response) => recordChallenge(store, server, response, log),
      stepUp: (response) => this.stepUp(response),
      // The access token was refused mid-life (revoked, or expired early): renew it for the calls after this one.
      toolCallRefused: () => {
        if (this.phase === 'signed_in') this.dispatch({ type: 'refresh_due' });
      },
    });
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
      this.repeats.reset();
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
      const signIn = await takeSignIn(this.options.store, this.options.server, state, () => this.options.clock.now());
      if (signIn === undefined) return { ok: false, unknown: true };
      let failure: string | undefined;
      if (answer.code === undefined) {
        failure = `the authorization server answered ${oauthErrorCode(answer.error)}`;
      } else {
        try {
          const finishing = { signIn, code: answer.code };
          const result = await this.provider.authorize({ operation: 'finish', fetchFn: this.fetch, finishing });
          if (result !== 'AUTHORIZED') failure = 'the authorization server did not issue tokens';
        } catch (err) {
          this.options.log.debug(
            { server: this.options.server, err: describeError(err) },
            'exchanging an authorization code failed',
          );
          failure = failureText(err);
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
    const result = await this.provider.authorize({ operation, fetchFn: this.fetch });
    const signIn = this.provider.lastSignIn;
    if (result !== 'REDIRECT' || signIn === undefined)
      throw new Error('the authorization server issued tokens without a sign-in');
    return signIn;
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
    const requested = scopeUnion(
      typeof granted === 'string' ? granted : signedInScope(record, this.options.entry),
      scope,
    );
    return this.exclusive(async () => {
      await saveStepUpChallenge(this.options.store, this.options.server, resourceMetadataUrl, requested);
      await this.startSignIn('step_up');
    });
  }

  /** The `refresh` effect: `auth()` refreshes with the refresh token; a refused one ends in a new sign-in. */
  private refresh(): Promise<void> {
    return this.exclusive(async () => {
      if (this.stopped || this.phase !== 'refreshing') return;
      const provider = this.provider;
      try {
        const result = await provider.authorize({ operation: 'refresh', fetchFn: this.fetch });
        if (result === 'AUTHORIZED') {
          this.refreshFailures = 0;
          return;
        }
        const signIn = provider.lastSignIn;
        if (provider.tokensInvalidated && signIn !== undefined) {
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
        if (signIn !== undefined) await dropSignIn(this.options.store, this.options.server, signIn.state);
        this.refreshFailed(new Error('the token endpoint could not be reached'));
      } catch (err) {
        this.refreshFailed(err);
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

  /** Counts a sign-in the transport asks for; true (and `mcp.auth_failed` once) past the bound of `sign-in-repeats.ts`. */
  private signInRefused(authorizationUrl: URL): boolean {
    const verdict = this.repeats.count(authorizationUrl.searchParams.get('scope') ?? '');
    if (verdict === 'refused_now') this.dispatch({ type: 'sign_in_failed', error: REPEATED_SIGN_INS_REFUSED });
    return verdict !== 'allowed';
  }
}
