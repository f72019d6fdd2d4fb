/**
 * Where one remote MCP server's sign-in stands, as an explicit state machine: one pure `transition` from a state and
 * an event to the next state and the effects its host (`ServerAuth`) carries out. Nothing here does I/O or reads a
 * clock; times come in with the events.
 */

/** A server's OAuth state. */
export type AuthState =
  /** Nothing known yet: no tokens stored, no sign-in asked for (the next connection finds out). */
  | { phase: 'unknown' }
  /** Tokens held; `refreshAt` is when the refresh timer fires (absent: nothing to refresh, or no lifetime given). */
  | { phase: 'signed_in'; expiresAt?: number; refreshAt?: number }
  /** The access token is being refreshed with the refresh token. */
  | { phase: 'refreshing'; expiresAt?: number }
  /** The operator must sign in at `authorizationUrl` (valid until `expiresAt`); no connection is tried meanwhile. */
  | { phase: 'needs_auth'; authorizationUrl: string; expiresAt: number }
  /**
   * Vigil will not sign in to this server as it stands (its protected resource metadata names another resource): no
   * connection is tried and no token asked for until the operator signs in or out again.
   */
  | { phase: 'refused'; error: string };

/** The phase names. */
export type AuthPhase = AuthState['phase'];

/** What happens to a server's sign-in. */
export type AuthEvent =
  /** Tokens were stored: read at boot, obtained by a sign-in (`signIn`), or refreshed. */
  | { type: 'tokens_stored'; obtainedAt: number; expiresAt?: number; refreshable: boolean; signIn: boolean }
  /** An authorization request was made: `needed` when connecting or refreshing found no usable token, else the operator asked. */
  | { type: 'sign_in_started'; authorizationUrl: string; expiresAt: number; needed: boolean }
  /** The refresh timer fired. */
  | { type: 'refresh_due' }
  /** A refresh could not reach the authorization server (or it answered 5xx): tried again at `retryAt`, tokens kept. */
  | { type: 'refresh_failed'; retryAt: number }
  /** The server's authorization cannot be trusted (a resource mismatch): nothing more is tried. */
  | { type: 'sign_in_refused'; error: string }
  /** A sign-in's callback said it failed, or its code could not be exchanged. */
  | { type: 'sign_in_failed'; error: string }
  /** The operator signed out: tokens forgotten. */
  | { type: 'signed_out' };

/** What the host does after a transition, in order. */
export type AuthEffect =
  | { kind: 'schedule_refresh'; at: number }
  | { kind: 'cancel_refresh' }
  | { kind: 'refresh' }
  /** `mcp.auth_required {server}`: no URL (its `state` is the sign-in's credential, and events are read-scope). */
  | { kind: 'emit_required' }
  | { kind: 'emit_completed' }
  | { kind: 'emit_failed'; error: string }
  /** Stop the server's connection and keep it stopped until signed in (its tools unavailable). */
  | { kind: 'hold_connection' }
  /** Connect the server again now (with the tokens it has, or to find out it needs a sign-in). */
  | { kind: 'reconnect' };

/** The next state and the effects to carry out. */
export interface AuthStep {
  state: AuthState;
  effects: AuthEffect[];
}

/** The longest before expiry a refresh waits: refreshed at the sooner of 80 % of the lifetime and this before the end. */
export const REFRESH_MARGIN_MS = 60_000;

/**
 * When tokens obtained at `obtainedAt` and expiring at `expiresAt` are refreshed: at 80 % of their lifetime or
 * `REFRESH_MARGIN_MS` before they expire, whichever is sooner, but never before half the lifetime has passed (a token
 * that lives only a minute would otherwise be refreshed the moment it arrives, over and over).
 */
export function refreshTime(obtainedAt: number, expiresAt: number): number {
  const lifetime = Math.max(0, expiresAt - obtainedAt);
  const sooner = Math.min(obtainedAt + lifetime * 0.8, expiresAt - REFRESH_MARGIN_MS);
  return Math.round(Math.max(obtainedAt + lifetime / 2, sooner));
}

const stay = (state: AuthState): AuthStep => ({ state, effects: [] });

/** The one transition function. */
export function transition(state: AuthState, event: AuthEvent): AuthStep {
  switch (event.type) {
    case 'tokens_stored': {
      const refreshAt =
        event.expiresAt !== undefined && event.refreshable ? refreshTime(event.obtainedAt, event.expiresAt) : undefined;
      const next: AuthState = {
        phase: 'signed_in',
        ...(event.expiresAt === undefined ? {} : { expiresAt: event.expiresAt }),
        ...(refreshAt === undefined ? {} : { refreshAt }),
      };
      const effects: AuthEffect[] = [
        refreshAt === undefined ? { kind: 'cancel_refresh' } : { kind: 'schedule_refresh', at: refreshAt },
      ];
      // A sign-in's tokens open a connection that was held; a refresh's only renew the one that runs.
      if (event.signIn) effects.push({ kind: 'emit_completed' }, { kind: 'reconnect' });
      return { state: next, effects };
    }
    case 'sign_in_started': {
      const next: AuthState = {
        phase: 'needs_auth',
        authorizationUrl: event.authorizationUrl,
        expiresAt: event.expiresAt,
      };
      if (state.phase === 'needs_auth') return stay(next);
      // The operator asking for a sign-in that nothing needs yet (tokens that work, or a server that has not asked)
      // changes nothing until the new tokens arrive.
      if (!event.needed) return stay(state);
      return {
        state: next,
        effects: [{ kind: 'cancel_refresh' }, { kind: 'hold_connection' }, { kind: 'emit_required' }],
      };
    }
    case 'refresh_due':
      if (state.phase !== 'signed_in') return stay(state);
      return {
        state: { phase: 'refreshing', ...(state.expiresAt === undefined ? {} : { expiresAt: state.expiresAt }) },
        effects: [{ kind: 'refresh' }],
      };
    case 'refresh_failed':
      if (state.phase !== 'refreshing') return stay(state);
      return {
        state: {
          phase: 'signed_in',
          ...(state.expiresAt === undefined ? {} : { expiresAt: state.expiresAt }),
          refreshAt: event.retryAt,
        },
        effects: [{ kind: 'schedule_refresh', at: event.retryAt }],
      };
    case 'sign_in_refused':
      // Said once: the connection is held, so nothing asks again until the operator does.
      if (state.phase === 'refused') return stay(state);
      return {
        state: { phase: 'refused', error: event.error },
        effects: [{ kind: 'cancel_refresh' }, { kind: 'hold_connection' }, { kind: 'emit_failed', error: event.error }],
      };
    case 'sign_in_failed':
      return { state, effects: [{ kind: 'emit_failed', error: event.error }] };
    case 'signed_out':
      return { state: { phase: 'unknown' }, effects: [{ kind: 'cancel_refresh' }, { kind: 'reconnect' }] };
  }
}
