/**
 * The `OAuthClientProvider` the SDK's `auth()` and transport call for one remote MCP server, backed by the
 * `OAuthStore`: the client registration, the tokens, the discovery state and the pending sign-ins. It keeps what the
 * running `auth()` call of ours needs (which operation, the PKCE draft, the sign-in being finished) and tells the
 * sign-in (`server-auth.ts`, its state machine) what happened; what to do about it is decided there.
 */
import { randomBytes } from 'node:crypto';
import {
  auth,
  type AuthResult,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { InvalidGrantError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { checkResourceAllowed, resourceUrlFromServerUrl } from '@modelcontextprotocol/sdk/shared/auth-utils.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpHttpServer } from '../../../protocol/mcp-config.schema.js';
import type { McpOAuthRecord, PendingSignIn } from '../../../protocol/mcp-oauth.schema.js';
import type { Clock } from '../../../shared/clock.js';
import type { VigilLogger } from '../../../shared/logger.js';
import type { AuthEvent, AuthPhase } from './auth-state.js';
import type { CallbackUrl } from './callback-url.js';
import type { OAuthStore } from './oauth-store.js';
import type { RefreshGrants } from './refresh-grants.js';

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

/**
 * Which of our own calls of `auth()` is running; `transport` for the ones the SDK's transport makes on a 401;
 * `step_up` for the sign-in a 403 `insufficient_scope` needs while a refresh token is held.
 */
export type Operation = 'transport' | 'login' | 'refresh' | 'finish' | 'step_up';

/** What the provider is built from. */
export interface SignInProviderOptions {
  server: string;
  entry: McpHttpServer;
  store: OAuthStore;
  callbackUrl: CallbackUrl;
  clock: Clock;
  log: VigilLogger;
  /** Every refresh grant of this server: a refresh answer since superseded is not saved. */
  grants: RefreshGrants;
}

/** What the provider asks of the sign-in it serves. */
export interface SignInHost {
  phase(): AuthPhase;
  dispatch(event: AuthEvent): void;
  /** Counts a sign-in the transport asks for; true when the server keeps refusing its scope (no more are started). */
  signInRefused(authorizationUrl: URL): boolean;
}

/** One server's `OAuthClientProvider`. */
export class SignInProvider implements OAuthClientProvider {
  /** Which of our calls of `auth()` runs now (`transport` between them). */
  operation: Operation = 'transport';
  /** True while a sign-in is started: `auth()` sees no tokens, so it cannot refresh instead. */
  hideTokens = false;
  /** The sign-in whose code is being exchanged (its PKCE verifier). */
  finishing: PendingSignIn | undefined;
  /** The sign-in the last authorization request stored. */
  lastSignIn: PendingSignIn | undefined;
  /** Set when the SDK forgot the tokens (a refused refresh token, an unknown client). */
  tokensInvalidated = false;
  readonly clientMetadataUrl?: string;
  private draft: { state: string; codeVerifier?: string } | undefined;

  constructor(
    private readonly options: SignInProviderOptions,
    private readonly host: SignInHost,
  ) {
    const url = options.entry.oauth?.clientMetadataUrl;
    if (url !== undefined) this.clientMetadataUrl = url;
  }

  /**
   * One `auth()` call of ours as `operation`, with the options every one passes: the server, the resource metadata
   * its last challenge named, our fetch; for a sign-in (not a refresh) the scope the challenge asked for; for a
   * callback its code and the sign-in it finishes. The fields above say which call runs until it returns (the sign-in
   * runs one at a time).
   */
  async authorize(call: {
    operation: Exclude<Operation, 'transport'>;
    fetchFn: FetchLike;
    finishing?: { signIn: PendingSignIn; code: string };
  }): Promise<AuthResult> {
    const { operation, fetchFn, finishing } = call;
    this.operation = operation;
    this.finishing = finishing?.signIn;
    // A sign-in with the tokens hidden, so `auth()` cannot refresh instead.
    if (operation === 'login' || operation === 'step_up') this.hideTokens = true;
    if (operation !== 'finish') this.lastSignIn = undefined;
    if (operation === 'refresh') this.tokensInvalidated = false;
    const challenge = this.record().challenge;
    try {
      return await auth(this, {
        serverUrl: this.options.entry.url,
        ...(finishing === undefined ? {} : { authorizationCode: finishing.code }),
        ...(challenge?.resourceMetadataUrl === undefined
          ? {}
          : { resourceMetadataUrl: new URL(challenge.resourceMetadataUrl) }),
        // An empty scope is no scope to `auth()` (it falls back to the metadata's), so it is not passed.
        ...(operation === 'refresh' || challenge?.scope === undefined || challenge.scope === ''
          ? {}
          : { scope: challenge.scope }),
        fetchFn,
      });
    } finally {
      this.operation = 'transport';
      this.hideTokens = false;
      this.finishing = undefined;
    }
  }

  get redirectUrl(): string | undefined {
    return this.options.callbackUrl.current;
  }

  get clientMetadata(): OAuthClientMetadata {
    const { callbackUrl, entry } = this.options;
    const scopes = entry.oauth?.scopes;
    return {
      client_name: 'Vigil',
      redirect_uris: callbackUrl.current === undefined ? [] : [callbackUrl.current],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...(scopes === undefined || scopes.length === 0 ? {} : { scope: scopes.join(' ') }),
    };
  }

  /**
   * True when a refresh token is stored that the authorization server has not refused, for the authorization server
   * the server names now (the SDK does not present one issued by another, and then a sign-in is needed indeed).
   */
  holdsRefreshToken(): boolean {
    const { tokens, discovery } = this.record();
    if (typeof tokens?.value['refresh_token'] !== 'string') return false;
    const issuer = tokens.value['issuer'];
    const current = discovery?.['authorizationServerUrl'];
    const bare = (url: string) => url.replace(/\/+$/, '');
    return typeof issuer !== 'string' || typeof current !== 'string' || bare(issuer) === bare(current);
  }

  state(): string {
    const state = randomBytes(32).toString('base64url');
    this.draft = { state };
    return state;
  }

  // Awaited by auth() before it registers or builds an authorization request: the redirect URI is known by then.
  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const oauth = this.options.entry.oauth;
    const redirect = await this.options.callbackUrl.known();
    const record = this.record();
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
  }

  async saveClientInformation(information: OAuthClientInformationMixed): Promise<void> {
    const current = this.options.callbackUrl.current;
    await this.update((record) => ({
      ...record,
      client: information,
      ...(current === undefined ? {} : { clientRedirectUrl: current }),
    }));
  }

  tokens(): OAuthTokens | undefined {
    return this.hideTokens ? undefined : (this.record().tokens?.value as OAuthTokens | undefined);
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    // Two requesters of one refresh both save its answer, and a late one may hold an answer since superseded
    // (its refresh token exchanged again): neither changes what is stored.
    if (this.record().tokens?.value['access_token'] === tokens.access_token) return;
    if (tokens.refresh_token !== undefined && this.options.grants.superseded(tokens.refresh_token)) return;
    const obtainedAt = this.options.clock.now();
    const expiresAt = tokens.expires_in === undefined ? undefined : obtainedAt + tokens.expires_in * 1000;
    await this.update((record) => ({
      ...record,
      tokens: {
        value: tokens,
        obtainedAt,
        ...(expiresAt === undefined ? {} : { expiresAt }),
      },
    }));
    this.host.dispatch({
      type: 'tokens_stored',
      obtainedAt,
      ...(expiresAt === undefined ? {} : { expiresAt }),
      refreshable: typeof tokens.refresh_token === 'string',
      signIn: this.operation === 'finish',
    });
  }

  saveCodeVerifier(codeVerifier: string): void {
    if (this.draft !== undefined) this.draft.codeVerifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.finishing === undefined) throw new Error('no sign-in is being finished');
    return this.finishing.codeVerifier;
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    const draft = this.draft;
    this.draft = undefined;
    const { operation, host } = this;
    // The SDK goes on to a sign-in when its refresh got no answer (unreachable, or a 5xx): a refused refresh token
    // is forgotten first (invalidateCredentials), so one still held is good, and no sign-in is asked for; the
    // request fails and our refresh tries again (with its back-off).
    if (operation !== 'login' && operation !== 'step_up' && this.holdsRefreshToken()) {
      if (operation === 'transport' && host.phase() === 'signed_in') host.dispatch({ type: 'refresh_due' });
      throw new Error('the authorization server could not be reached to refresh the access token');
    }
    if ((operation === 'transport' || operation === 'step_up') && host.signInRefused(authorizationUrl))
      throw new Error('the server keeps refusing the scope it asks for; no further sign-in is started');
    const state = draft?.state ?? authorizationUrl.searchParams.get('state') ?? '';
    if (draft?.codeVerifier === undefined || state === '') throw new Error('an authorization request without PKCE');
    // The operator opens it in a browser: an authorization endpoint that is no web address is refused.
    if (authorizationUrl.protocol !== 'https:' && authorizationUrl.protocol !== 'http:')
      throw new Error('the authorization endpoint is not an http(s) URL');
    const now = this.options.clock.now();
    const signIn: PendingSignIn = {
      state,
      codeVerifier: draft.codeVerifier,
      authorizationUrl: authorizationUrl.href,
      expiresAt: now + SIGN_IN_TTL_MS,
    };
    await this.update((record) => ({
      ...record,
      signIns: [...record.signIns.filter((pending) => pending.expiresAt > now), signIn].slice(-MAX_PENDING_SIGN_INS),
    }));
    this.lastSignIn = signIn;
    // The transport met a 401 it could not answer with a token, or a 403 a larger scope answers: the operator must
    // sign in. A login's sign-in is the operator's own asking; a refresh's is reported by the refresh. (Read again
    // after the write, as it always was.)
    const after = this.operation;
    if (after === 'transport' || after === 'step_up' || after === 'login') {
      host.dispatch({
        type: 'sign_in_started',
        authorizationUrl: signIn.authorizationUrl,
        expiresAt: signIn.expiresAt,
        needed: after !== 'login',
      });
    }
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    // A refused code exchange (invalid_grant) says nothing of the tokens held: they were not obtained by it, so
    // they are kept, and the code (good once) is not sent again by the SDK's retry.
    if (this.operation === 'finish' && scope === 'tokens')
      throw new InvalidGrantError('the authorization server refused the authorization code');
    if (scope === 'all' || scope === 'tokens') this.tokensInvalidated = true;
    await this.update((record) => {
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
  }

  // Called by auth() with what discovery found, before it picks the resource or asks for anything.
  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    const resource = state.resourceMetadata?.resource;
    if (
      resource !== undefined &&
      !checkResourceAllowed({
        requestedResource: resourceUrlFromServerUrl(this.options.entry.url),
        configuredResource: resource,
      })
    ) {
      this.options.log.warn(
        { server: this.options.server, resource },
        'an MCP server’s protected resource metadata names another resource; no sign-in is made',
      );
      this.host.dispatch({ type: 'sign_in_refused', error: RESOURCE_MISMATCH });
      throw new Error(RESOURCE_MISMATCH);
    }
    await this.update((record) => ({ ...record, discovery: state as unknown as Record<string, unknown> }));
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.record().discovery as OAuthDiscoveryState | undefined;
  }

  private record(): McpOAuthRecord {
    return this.options.store.get(this.options.server);
  }

  private update(change: (record: McpOAuthRecord) => McpOAuthRecord): Promise<unknown> {
    return this.options.store.update(this.options.server, change);
  }
}
