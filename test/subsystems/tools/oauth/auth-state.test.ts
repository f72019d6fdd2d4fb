/** The sign-in state machine, pure: every transition and the effects it asks for. */
import { describe, expect, it } from 'vitest';
import {
  refreshTime,
  transition,
  type AuthEvent,
  type AuthState,
} from '../../../../src/subsystems/tools/oauth/auth-state.js';

const started = (needed: boolean, url = 'https://as.example/authorize?state=s'): AuthEvent => ({
  type: 'sign_in_started',
  authorizationUrl: url,
  expiresAt: 600_000,
  needed,
});
const needsAuth: AuthState = { phase: 'needs_auth', authorizationUrl: 'https://as.example/a', expiresAt: 600_000 };

describe('refreshTime', () => {
  it('is the sooner of 80 % of the lifetime and 60 s before expiry, never before half of it', () => {
    expect(refreshTime(0, 3_600_000)).toBe(2_880_000); // 1 h: 80 % (48 min) is sooner than 59 min
    expect(refreshTime(0, 120_000)).toBe(60_000); // 2 min: 60 s before the end
    expect(refreshTime(0, 60_000)).toBe(30_000); // 1 min: half of it, not at once
    expect(refreshTime(1_000, 1_000)).toBe(1_000); // no lifetime: now
  });
});

describe('transition', () => {
  it('schedules a refresh for refreshable tokens, and only for them', () => {
    expect(
      transition(
        { phase: 'unknown' },
        { type: 'tokens_stored', obtainedAt: 0, expiresAt: 60_000, refreshable: true, signIn: false },
      ),
    ).toEqual({
      state: { phase: 'signed_in', expiresAt: 60_000, refreshAt: 30_000 },
      effects: [{ kind: 'schedule_refresh', at: 30_000 }],
    });
    expect(
      transition(
        { phase: 'unknown' },
        { type: 'tokens_stored', obtainedAt: 0, expiresAt: 60_000, refreshable: false, signIn: false },
      ),
    ).toEqual({ state: { phase: 'signed_in', expiresAt: 60_000 }, effects: [{ kind: 'cancel_refresh' }] });
  });

  it("a sign-in's tokens announce the completion and reconnect", () => {
    const step = transition(needsAuth, { type: 'tokens_stored', obtainedAt: 0, refreshable: true, signIn: true });
    expect(step.state).toEqual({ phase: 'signed_in' });
    expect(step.effects).toEqual([{ kind: 'cancel_refresh' }, { kind: 'emit_completed' }, { kind: 'reconnect' }]);
  });

  it('asks for a sign-in once: entering needs_auth emits, being in it only updates the URL', () => {
    const first = transition({ phase: 'signed_in', expiresAt: 1 }, started(true));
    expect(first.state).toEqual({
      phase: 'needs_auth',
      authorizationUrl: 'https://as.example/authorize?state=s',
      expiresAt: 600_000,
    });
    expect(first.effects).toEqual([{ kind: 'cancel_refresh' }, { kind: 'hold_connection' }, { kind: 'emit_required' }]);
    const again = transition(first.state, started(true, 'https://as.example/b'));
    expect(again).toEqual({ state: { ...first.state, authorizationUrl: 'https://as.example/b' }, effects: [] });
  });

  it("the operator's sign-in while tokens work, or before any was needed, changes nothing", () => {
    const signedIn: AuthState = { phase: 'signed_in', expiresAt: 5, refreshAt: 3 };
    expect(transition(signedIn, started(false))).toEqual({ state: signedIn, effects: [] });
    expect(transition({ phase: 'unknown' }, started(false))).toEqual({ state: { phase: 'unknown' }, effects: [] });
  });

  it('refreshes only when signed in; a failed refresh keeps the tokens and retries', () => {
    const signedIn: AuthState = { phase: 'signed_in', expiresAt: 60_000, refreshAt: 30_000 };
    const due = transition(signedIn, { type: 'refresh_due' });
    expect(due).toEqual({ state: { phase: 'refreshing', expiresAt: 60_000 }, effects: [{ kind: 'refresh' }] });
    expect(transition(needsAuth, { type: 'refresh_due' })).toEqual({ state: needsAuth, effects: [] });
    expect(transition(due.state, { type: 'refresh_failed', retryAt: 45_000 })).toEqual({
      state: { phase: 'signed_in', expiresAt: 60_000, refreshAt: 45_000 },
      effects: [{ kind: 'schedule_refresh', at: 45_000 }],
    });
    expect(transition(signedIn, { type: 'refresh_failed', retryAt: 1 })).toEqual({ state: signedIn, effects: [] });
  });

  it('reports a failed sign-in without moving, and a sign-out forgets and reconnects', () => {
    expect(transition(needsAuth, { type: 'sign_in_failed', error: 'denied' })).toEqual({
      state: needsAuth,
      effects: [{ kind: 'emit_failed', error: 'denied' }],
    });
    expect(transition({ phase: 'signed_in' }, { type: 'signed_out' })).toEqual({
      state: { phase: 'unknown' },
      effects: [{ kind: 'cancel_refresh' }, { kind: 'reconnect' }],
    });
  });

  it('refuses once: entering refused holds the connection and reports the failure, being in it says nothing more', () => {
    const error = 'the protected resource metadata names another resource';
    const first = transition({ phase: 'signed_in', expiresAt: 5, refreshAt: 3 }, { type: 'sign_in_refused', error });
    expect(first).toEqual({
      state: { phase: 'refused', error },
      effects: [{ kind: 'cancel_refresh' }, { kind: 'hold_connection' }, { kind: 'emit_failed', error }],
    });
    expect(transition(first.state, { type: 'sign_in_refused', error })).toEqual({ state: first.state, effects: [] });
    expect(transition(first.state, { type: 'refresh_due' })).toEqual({ state: first.state, effects: [] });
    expect(transition(first.state, { type: 'signed_out' }).effects).toContainEqual({ kind: 'reconnect' });
  });
});
