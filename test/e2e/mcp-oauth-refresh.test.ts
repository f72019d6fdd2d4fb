/**
 * Token lifetime for a remote MCP server behind OAuth, in simulated time: a whole runtime (offline thinker, simulated
 * clock) against the SDK-built OAuth server of test/fixtures/mcp-oauth-server.ts over real HTTP, whose tokens expire
 * after 60 s on the same clock. Access tokens are refreshed before they expire (no request ever meets an expired
 * token), each rotated refresh token replacing the last; a refused refresh puts the server back to `needs_auth` with
 * exactly one `mcp.auth_required`, and a call meanwhile is not sent.
 */
import { describe, expect, it, vi } from 'vitest';
import { createSimulatedClock } from '../../src/shared/clock.js';
import { startOAuthMcpServer, type OAuthMcpFixture } from '../fixtures/mcp-oauth-server.js';
import { useRuntimes, type RuntimeHarness } from '../fixtures/runtime.fixture.js';
import { followToCallback } from './conformance/operator-browser.js';

const startRuntime = useRuntimes();
/** Where the runtime says its callback is; nothing listens there, the test hands the callback's query to the runtime. */
const GATEWAY = 'http://127.0.0.1:7420';
const TTL_S = 60;

/** Lets real I/O (the fixture's HTTP answers) finish without moving the simulated clock, until `done` holds. */
async function settleUntil(h: RuntimeHarness, done: () => boolean, what: string): Promise<void> {
  await vi.waitFor(
    async () => {
      await h.settle();
      if (!done()) throw new Error(`still waiting for ${what}`);
    },
    { timeout: 15_000, interval: 20 },
  );
}

/** The browser's visit to `authorizationUrl`, as far as the callback; answered by the runtime, as the gateway's route does. */
async function visit(h: RuntimeHarness, authorizationUrl: string) {
  const callback = new URL(await followToCallback(authorizationUrl, `${GATEWAY}/oauth/callback`));
  return h.runtime.mcpServers.completeSignIn({
    state: callback.searchParams.get('state') ?? '',
    code: callback.searchParams.get('code') ?? '',
  });
}

/** The sign-in link `tools.list` gives an operator for `remote` now (the event names none). */
function operatorLink(h: RuntimeHarness): string {
  const entry = h.runtime.mcpServers
    .list('operate')
    .find((listed) => listed.server === 'remote' && !('name' in listed) && listed.state === 'needs_auth');
  const url =
    entry === undefined || 'name' in entry || entry.state !== 'needs_auth' ? undefined : entry.authorizationUrl;
  if (url === undefined) throw new Error('remote has no sign-in link');
  return url;
}

/** Signs in to `remote` as the operator would, at `authorizationUrl` (default: the link `tools.list` gives now). */
async function signIn(h: RuntimeHarness, remote: OAuthMcpFixture, authorizationUrl?: string): Promise<void> {
  const ups = h.ofType('mcp.server_up').length;
  const outcome = await visit(h, authorizationUrl ?? operatorLink(h));
  expect(outcome).toMatchObject({ kind: 'signed_in', server: 'remote' });
  await settleUntil(h, () => h.ofType('mcp.server_up').length > ups, 'the server to connect after the sign-in');
  expect(remote.grants.at(-1)?.grant).toBe('authorization_code');
}

/** `/tool NAME {json}` answered: the reply's text. */
async function callTool(h: RuntimeHarness, name: string, args: object): Promise<string> {
  const { turnId } = await h.runtime.send({ text: `/tool ${name} ${JSON.stringify(args)}` });
  // Beats take the message in: one simulated second at a time, with the I/O let finish between.
  await vi.waitFor(
    async () => {
      await h.advance(1000, 1000);
      if (!h.ofType('agent.reply').some((reply) => reply.turnId === turnId)) throw new Error('no reply yet');
    },
    { timeout: 15_000, interval: 20 },
  );
  return h.ofType('agent.reply').find((reply) => reply.turnId === turnId)!.text;
}

describe('an OAuth-protected MCP server in simulated time', () => {
  it('refreshes tokens that expire in 60 s before they expire, and a revoked refresh token asks for one sign-in', async () => {
    const clock = createSimulatedClock(Date.parse('2026-03-01T10:00:00Z'));
    const remote = await startOAuthMcpServer({ accessTokenTtlS: TTL_S, now: () => clock.now() });
    const h = await startRuntime({ clock, config: { mcp: { mcpServers: { remote: { url: remote.url } } } } });
    h.runtime.mcpServers.useGatewayUrl(GATEWAY);
    try {
      await settleUntil(h, () => h.ofType('mcp.auth_required').length === 1, 'mcp.auth_required');
      await signIn(h, remote);
      expect(await callTool(h, 'mcp__remote__echo', { text: 'first' })).toBe('mcp__remote__echo returned:\nfirst');

      // Five lifetimes pass, a second at a time: every token is replaced before the instant it expires.
      const signedInAt = remote.grants[0]!.at;
      for (let t = 0; t < 5 * TTL_S * 1000; t += 1000) await h.advance(1000, 1000);
      const refreshes = remote.grants.filter((grant) => grant.grant === 'refresh_token');
      expect(refreshes.length).toBeGreaterThanOrEqual(5);
      remote.grants.slice(1).forEach((grant, i) => {
        const expiresAt = remote.grants[i]!.at + TTL_S * 1000;
        expect(grant.at, `grant ${i + 1} (${grant.grant})`).toBeLessThan(expiresAt);
      });
      expect(clock.now() - signedInAt).toBeGreaterThanOrEqual(5 * TTL_S * 1000);
      expect(await callTool(h, 'mcp__remote__echo', { text: 'later' })).toBe('mcp__remote__echo returned:\nlater');
      // No request met an expired token, and nobody was asked to sign in again.
      expect(remote.refusedTokens).toBe(0);
      expect(h.ofType('mcp.auth_required')).toHaveLength(1);
      expect(remote.toolCalls).toBe(2);

      // The provider revokes the grant: the next refresh is refused, once; the operator is asked once, not in a loop.
      remote.revokeRefreshTokens();
      for (let t = 0; t < 3 * TTL_S * 1000; t += 1000) await h.advance(1000, 1000);
      expect(h.ofType('mcp.auth_required')).toHaveLength(2);
      expect(h.ofType('mcp.auth_required')[1]).toMatchObject({ server: 'remote' });
      expect(h.runtime.mcpServers.list()).toContainEqual(
        expect.objectContaining({ server: 'remote', state: 'needs_auth', authorizationUrl: expect.any(String) }),
      );
      expect(h.runtime.mcpServers.list('read')).toContainEqual({ server: 'remote', state: 'needs_auth' });
      const revokedLink = operatorLink(h);
      for (let t = 0; t < 10 * TTL_S * 1000; t += 5000) await h.advance(5000, 5000);
      expect(h.ofType('mcp.auth_required')).toHaveLength(2);
      // A call while it waits is not sent; the model is told the operator must sign in.
      const blocked = await callTool(h, 'mcp__remote__echo', { text: 'blocked' });
      expect(blocked).toMatch(
        /^mcp__remote__echo failed:\n.*not called: its server remote needs the operator to sign in/,
      );
      expect(remote.toolCalls).toBe(2);

      // Thirteen minutes on, that link has expired (a sign-in's state lives 10 minutes); `tools.login` makes a
      // fresh one, and signed in again, the tool works again.
      expect(await visit(h, revokedLink)).toMatchObject({
        kind: 'unknown_state',
      });
      await signIn(h, remote, (await h.runtime.mcpServers.login('remote')).authorizationUrl);
      expect(await callTool(h, 'mcp__remote__echo', { text: 'again' })).toBe('mcp__remote__echo returned:\nagain');
      expect(remote.toolCalls).toBe(3);
    } finally {
      await h.runtime.stop();
      await remote.close();
    }
  }, 120_000);
});
