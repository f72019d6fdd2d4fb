/** The hub's servers that cannot be reached: listed as down with why and when they are tried again, and no sign-in to them. */
import { rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isVigilError, type VigilError } from '../../../src/errors.js';
import { openVigilDb } from '../../../src/subsystems/store/vigil-db.js';
import { CallbackUrl } from '../../../src/subsystems/tools/oauth/callback-url.js';
import { OAuthStore } from '../../../src/subsystems/tools/oauth/oauth-store.js';
import { startOAuthMcpServer } from '../../fixtures/oauth-mcp-server.js';
import { forwardPort, refusedPort } from '../../fixtures/refused-port.js';
import { stdioFixture, useHubs } from './mcp-hub.fixture.js';

const startHub = useHubs();
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const SECRET = 'hub-down-secret-5f1c';

describe('McpHub servers that cannot be reached', () => {
  it('lists each as down with the reason and the next attempt on the clock, until an attempt succeeds', async () => {
    const gate = join(mkdtempSync(join(tmpdir(), 'vigil-mcp-down-')), 'gate');
    const port = await refusedPort();
    const h = startHub({
      gated: stdioFixture({ FIXTURE_GATE_FILE: gate }),
      offline: { url: `http://127.0.0.1:${port}/mcp`, headers: { Authorization: `Bearer ${SECRET}` } },
      // Credentials in the URL itself: fetch refuses such a URL, and the reason names neither them nor it.
      userinfo: { url: `http://vigil:${SECRET}@127.0.0.1:${port}/mcp` },
    });
    const start = h.clock.now();
    await Promise.all([
      h.next('mcp.server_down', (e) => e.server === 'gated', 0),
      h.next('mcp.server_down', (e) => e.server === 'offline', 0),
      h.next('mcp.server_down', (e) => e.server === 'userinfo', 0),
    ]);
    expect(h.hub.serversDown()).toEqual([
      {
        server: 'gated',
        error: 'it could not be connected (McpError -32000); the server exited with code 3',
        nextRetryAt: start + 1000,
      },
      { server: 'offline', error: 'it could not be connected (TypeError ECONNREFUSED)', nextRetryAt: start + 1000 },
      { server: 'userinfo', error: 'it could not be connected (TypeError)', nextRetryAt: start + 1000 },
    ]);
    expect(JSON.stringify(h.hub.serversDown())).not.toMatch(new RegExp(`${SECRET}|127\\.0\\.0\\.1`));

    // A sign-in to it says it cannot be reached and why, not that it does not use OAuth.
    const refused = (await h.hub.login('offline').catch((err: unknown) => err)) as VigilError;
    expect(isVigilError(refused, 'TOOL_UNAVAILABLE')).toBe(true);
    expect(refused.message).toBe(
      `MCP server offline cannot be reached: it could not be connected (TypeError ECONNREFUSED); it is tried again at ${new Date(start + 1000).toISOString()}.`,
    );
    expect(refused.data).toEqual({
      server: 'offline',
      state: 'down',
      error: 'it could not be connected (TypeError ECONNREFUSED)',
      nextRetryAt: new Date(start + 1000).toISOString(),
    });
    // A stdio server still says it never signs in.
    await expect(h.hub.login('gated')).rejects.toSatisfy((err) => isVigilError(err, 'RPC_INVALID_PARAMS'));

    // The next attempts: the one that succeeds takes its server off the list; the other is down until 2 s later.
    writeFileSync(gate, 'open');
    const seen = h.events.length;
    h.clock.increment(1000);
    await Promise.all([
      h.next('mcp.server_up', (e) => e.server === 'gated', seen),
      h.next('mcp.server_down', (e) => e.server === 'offline', seen),
      h.next('mcp.server_down', (e) => e.server === 'userinfo', seen),
    ]);
    expect(h.hub.serversDown().map(({ server, nextRetryAt }) => [server, nextRetryAt])).toEqual([
      ['offline', start + 3000],
      ['userinfo', start + 3000],
    ]);

    // One that was up and went away is down again, its tools kept (unavailable) and its entry back.
    rmSync(gate);
    const crashed = h.events.length;
    await h.hub.callTool('mcp__gated__crash', { code: 7 }).catch(() => undefined);
    await h.next('mcp.server_down', (e) => e.server === 'gated', crashed);
    expect(h.hub.serversDown().map(({ server, error }) => [server, error])).toEqual([
      ['gated', 'the connection closed; the server exited with code 7'],
      ['offline', 'it could not be connected (TypeError ECONNREFUSED)'],
      ['userinfo', 'it could not be connected (TypeError)'],
    ]);
    expect(h.hub.get('mcp__gated__echo')).toMatchObject({ available: false });
  });

  it('a server behind OAuth that is offline at start: down, no sign-in to it; once it answers, needs_auth and not down', async () => {
    const port = await refusedPort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const dir = mkdtempSync(join(tmpdir(), 'vigil-mcp-down-oauth-'));
    const db = await openVigilDb(dir);
    cleanups.push(() => db.close().then(() => rmSync(dir, { recursive: true, force: true })));
    const store = await OAuthStore.open(db);
    const h = startHub(
      { linear: { url, oauth: { clientId: 'vigil-test' } } },
      { oauth: { store, callbackUrl: new CallbackUrl('http://127.0.0.1:9') } },
    );
    await h.next('mcp.server_down', () => true, 0);
    const start = h.clock.now();
    expect(h.hub.serversDown()).toEqual([
      { server: 'linear', error: 'it could not be connected (TypeError ECONNREFUSED)', nextRetryAt: start + 1000 },
    ]);
    // It has OAuth settings, but no sign-in can start against a server that does not answer: it says why instead.
    await expect(h.hub.login('linear')).rejects.toSatisfy(
      (err) => isVigilError(err, 'TOOL_UNAVAILABLE') && err.message.startsWith('MCP server linear cannot be reached'),
    );

    // It comes back where it is configured: its 401 asks for a sign-in, and it is no longer down.
    const remote = await startOAuthMcpServer({ now: () => h.clock.now(), resource: url });
    cleanups.push(() => remote.close());
    const forward = await forwardPort(port, Number(new URL(remote.url).port));
    cleanups.push(() => forward.close());
    const seen = h.events.length;
    h.clock.increment(1000);
    await h.next('mcp.auth_required', (e) => e.server === 'linear', seen);
    expect(h.hub.serversDown()).toEqual([]);
    expect(h.hub.signInsNeeded().map((needed) => needed.server)).toEqual(['linear']);
    await expect(h.hub.login('linear')).resolves.toMatchObject({ authorizationUrl: expect.any(String) });
  });
});
