/**
 * A remote MCP server behind OAuth through the hub: a real server and authorization server on 127.0.0.1 (the SDK's
 * client auth against it), tokens in LevelDB on disk, the refresh timer on a simulated clock. The test plays the
 * operator's browser: it follows the authorization URL and hands the redirect's query to the callback.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sealStore } from '../../../src/subsystems/store/store-seal.js';
import { openVigilDb, type VigilDb } from '../../../src/subsystems/store/vigil-db.js';
import { CallbackUrl } from '../../../src/subsystems/tools/oauth/callback-url.js';
import { OAuthStore } from '../../../src/subsystems/tools/oauth/oauth-store.js';
import { startOAuthMcpServer, type OAuthMcpFixture } from '../../fixtures/oauth-mcp-server.js';
import { useHubs, type HubHarness } from './mcp-hub.fixture.js';

const hubs = useHubs();
const CALLBACK_BASE = 'http://127.0.0.1:9';
const KEY = 'ab'.repeat(32);
let fixture: OAuthMcpFixture | undefined;
let db: VigilDb | undefined;
let dir: string | undefined;
afterEach(async () => {
  await fixture?.close();
  await db?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  fixture = undefined;
  db = undefined;
  dir = undefined;
});

/** A hub with one OAuth server `remote`, its store on disk, and the fixture's clock tied to the hub's. */
async function start(
  options: {
    accessTokenSeconds?: number;
    sealed?: boolean;
    idempotentTools?: string[];
    toolScopes?: string[];
    resource?: string;
  } = {},
): Promise<HubHarness & { store: OAuthStore }> {
  let now = () => Date.now();
  fixture = await startOAuthMcpServer({
    now: () => now(),
    ...(options.accessTokenSeconds === undefined ? {} : { accessTokenSeconds: options.accessTokenSeconds }),
    ...(options.toolScopes === undefined ? {} : { toolScopes: options.toolScopes }),
    ...(options.resource === undefined ? {} : { resource: options.resource }),
  });
  dir = mkdtempSync(join(tmpdir(), 'vigil-oauth-'));
  const raw = await openVigilDb(dir);
  db = options.sealed === true ? (await sealStore(raw, KEY, { closeInner: true })).db : raw;
  const store = await OAuthStore.open(db);
  const entry = {
    url: fixture.url,
    ...(options.idempotentTools === undefined ? {} : { idempotentTools: options.idempotentTools }),
  };
  const h = hubs({ remote: entry }, { oauth: { store, callbackUrl: new CallbackUrl(CALLBACK_BASE) } });
  now = () => h.clock.now();
  return { ...h, store };
}

/** Follows `authorizationUrl` as a browser would and returns the callback's query (the fixture approves at once). */
async function browse(authorizationUrl: string): Promise<{ state: string; code: string }> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  expect(response.status).toBe(302);
  const back = new URL(response.headers.get('location')!);
  expect(back.origin + back.pathname).toBe(`${CALLBACK_BASE}/oauth/callback`);
  return { state: back.searchParams.get('state')!, code: back.searchParams.get('code')! };
}

/**
 * The `mcp.auth_required` of `h` (at or after `since`), which names no URL, with the link the hub gives an operator
 * (`tools.list` for an operate token) at that moment.
 */
async function required(h: Awaited<ReturnType<typeof start>>, since = 0) {
  const event = await h.next('mcp.auth_required', () => true, since);
  expect(Object.keys(event)).not.toContain('authorizationUrl');
  const link = h.hub.signInsNeeded().find((needed) => needed.server === event.server);
  return { server: event.server, authorizationUrl: link!.authorizationUrl };
}

/** Lets the I/O of a refresh (HTTP, LevelDB) land, up to a bound. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!check()) throw new Error(`timed out waiting until ${what}`);
}

/** Every file under `root`, read whole. */
function filesUnder(root: string): Buffer[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .map((name) => join(root, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => readFileSync(path));
}

describe('an MCP server behind OAuth', () => {
  it('is needs_auth until the operator signs in; then it connects and a tool call works', async () => {
    const h = await start();
    const signIn = await required(h);
    expect(signIn.server).toBe('remote');
    expect(h.hub.needsSignIn('remote')).toBe(true);
    expect(h.hub.signInsNeeded()).toEqual([
      { server: 'remote', authorizationUrl: signIn.authorizationUrl, expiresAt: h.clock.now() + 600_000 },
    ]);
    const url = new URL(signIn.authorizationUrl);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('resource')).toBe(fixture!.url);
    expect(url.searchParams.get('scope')).toBe('mcp:tools');

    const answer = await browse(signIn.authorizationUrl);
    const since = h.events.length;
    await expect(h.hub.completeSignIn(answer)).resolves.toEqual({ kind: 'signed_in', server: 'remote' });
    await h.next('mcp.auth_completed', (e) => e.server === 'remote', since);
    await h.next('mcp.server_up', (e) => e.server === 'remote', since);
    const result = await h.hub.callTool('mcp__remote__echo', { text: 'signed in' });
    expect(result.content).toEqual([{ type: 'text', text: 'signed in' }]);
    // The state was used once: the same callback again changes nothing.
    await expect(h.hub.completeSignIn(answer)).resolves.toEqual({ kind: 'unknown_state' });
    expect(h.events.filter((e) => e.type === 'mcp.auth_required')).toHaveLength(1);
    // No event carries a token.
    const issued = [...fixture!.accessTokens, ...fixture!.refreshTokens];
    expect(issued.some((token) => JSON.stringify(h.events).includes(token))).toBe(false);
  });

  it('refreshes before expiry on the clock, honours rotation, and after a refused refresh asks once for a sign-in', async () => {
    const h = await start({ accessTokenSeconds: 60 });
    const signIn = await required(h);
    await h.hub.completeSignIn(await browse(signIn.authorizationUrl));
    await h.next('mcp.server_up');
    expect(fixture!.grants).toEqual({ authorization_code: 1, refresh_token: 0 });

    // A 60 s token is refreshed at half its life: before it expires, with no 401 seen.
    h.clock.increment(29_000);
    expect(fixture!.grants.refresh_token).toBe(0);
    h.clock.increment(1_000);
    await until(() => h.store.get('remote').tokens?.value['access_token'] === fixture!.accessTokens[1], 'refreshed');
    // The fixture used up the first refresh token: the second refresh works only with the rotated one.
    h.clock.increment(30_000);
    await until(() => h.store.get('remote').tokens?.value['access_token'] === fixture!.accessTokens[2], 'rotated');
    expect(fixture!.grants.refresh_token).toBe(2);
    expect((await h.hub.callTool('mcp__remote__echo', { text: 'still' })).content).toEqual([
      { type: 'text', text: 'still' },
    ]);

    fixture!.revokeRefreshTokens();
    const since = h.events.length;
    h.clock.increment(30_000);
    const again = await h.next('mcp.auth_required', () => true, since);
    expect(again.server).toBe('remote');
    expect(h.hub.needsSignIn('remote')).toBe(true);
    expect(h.store.get('remote').tokens).toBeUndefined();
    // Not a loop: time passes, nothing more is asked or sent.
    const grants = { ...fixture!.grants };
    for (let i = 0; i < 10; i += 1) h.clock.increment(60_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.events.slice(since).filter((e) => e.type === 'mcp.auth_required')).toHaveLength(1);
    expect(fixture!.grants).toEqual(grants);
    // A call to it is not sent: the model is told to have the operator sign in.
    await expect(h.hub.callTool('mcp__remote__echo', { text: 'x' })).rejects.toMatchObject({
      code: 'TOOL_NEEDS_AUTH',
      message: expect.stringContaining('vigil tools login remote'),
    });
  });

  it('keeps its tokens across a restart: a new hub on the same store connects without a sign-in', async () => {
    const h = await start();
    const signIn = await required(h);
    await h.hub.completeSignIn(await browse(signIn.authorizationUrl));
    await h.next('mcp.server_up');
    await h.hub.stop();

    const store = await OAuthStore.open(db!);
    const again = hubs(
      { remote: { url: fixture!.url } },
      { oauth: { store, callbackUrl: new CallbackUrl(CALLBACK_BASE) } },
    );
    await again.next('mcp.server_up');
    expect(again.events.some((e) => e.type === 'mcp.auth_required')).toBe(false);
    expect(fixture!.grants.authorization_code).toBe(1);
  });

  it('tools.login starts a fresh sign-in, logout forgets the tokens, and an expired state does nothing', async () => {
    const h = await start();
    const first = await required(h);
    const login = await h.hub.login('remote');
    expect(login.authorizationUrl).not.toBe(first.authorizationUrl);
    expect(h.hub.signInsNeeded()[0]?.authorizationUrl).toBe(login.authorizationUrl);
    // Either link works until it is used or 10 minutes pass.
    const stale = await browse(first.authorizationUrl);
    h.clock.increment(600_000);
    await expect(h.hub.completeSignIn(stale)).resolves.toEqual({ kind: 'unknown_state' });
    expect(h.store.get('remote').tokens).toBeUndefined();

    const fresh = await h.hub.login('remote');
    await expect(h.hub.completeSignIn(await browse(fresh.authorizationUrl))).resolves.toMatchObject({
      kind: 'signed_in',
    });
    await h.next('mcp.server_up');
    const since = h.events.length;
    await h.hub.logout('remote');
    expect(h.store.get('remote').tokens).toBeUndefined();
    await h.next('mcp.auth_required', () => true, since);
    expect(h.hub.needsSignIn('remote')).toBe(true);

    await expect(h.hub.login('nope')).rejects.toMatchObject({ code: 'MCP_SERVER_NOT_FOUND' });
  });

  it('an authorization server refusal is reported once, and a fresh link is ready', async () => {
    const h = await start();
    const signIn = await required(h);
    const { state } = await browse(signIn.authorizationUrl);
    await expect(h.hub.completeSignIn({ state, error: 'access_denied' })).resolves.toEqual({
      kind: 'failed',
      server: 'remote',
      error: 'the authorization server answered access_denied',
    });
    const failed = await h.next('mcp.auth_failed', () => true, 0);
    expect(failed.error).toBe('the authorization server answered access_denied');
    expect(h.hub.signInsNeeded()[0]?.authorizationUrl).not.toBe(signIn.authorizationUrl);
  });

  it('a refused code exchange (invalid_grant) keeps the tokens it did not obtain, and sends the code once', async () => {
    const h = await start();
    await h.hub.completeSignIn(await browse((await required(h)).authorizationUrl));
    await h.next('mcp.server_up');
    const tokens = h.store.get('remote').tokens;
    expect(tokens).toBeDefined();
    const { state } = await browse((await h.hub.login('remote')).authorizationUrl);
    const exchanges = fixture!.codeExchanges;
    const since = h.events.length;
    await expect(h.hub.completeSignIn({ state, code: 'a-code-the-server-never-issued' })).resolves.toEqual({
      kind: 'failed',
      server: 'remote',
      error: 'the authorization server answered invalid_grant',
    });
    expect(fixture!.codeExchanges - exchanges).toBe(1);
    expect(h.store.get('remote').tokens).toEqual(tokens);
    expect(h.hub.needsSignIn('remote')).toBe(false);
    expect((await h.hub.callTool('mcp__remote__echo', { text: 'still' })).content).toEqual([
      { type: 'text', text: 'still' },
    ]);
    expect(
      h.events
        .slice(since)
        .map((e) => e.type)
        .filter((type) => type.startsWith('mcp.auth')),
    ).toEqual(['mcp.auth_failed']);
  });

  it.each([false, true])(
    'sealed %s: a token is on disk in plaintext only when the store is not sealed',
    async (sealed) => {
      const h = await start({ sealed });
      const signIn = await required(h);
      await h.hub.completeSignIn(await browse(signIn.authorizationUrl));
      await h.next('mcp.server_up');
      const files = filesUnder(dir!);
      const tokens = [fixture!.accessTokens[0]!, fixture!.refreshTokens[0]!];
      // Unsealed, the check finds them (so it can find them); sealed, no file holds either.
      for (const token of tokens) expect(files.some((bytes) => bytes.includes(token))).toBe(!sealed);
    },
  );

  it.each([false, true])(
    'idempotent %s: a 401 to a sent call is an unknown outcome, re-sent only for an idempotent tool after a refresh',
    async (idempotent) => {
      const h = await start(idempotent ? { idempotentTools: ['echo'] } : {});
      const signIn = await required(h);
      await h.hub.completeSignIn(await browse(signIn.authorizationUrl));
      await h.next('mcp.server_up');
      fixture!.revokeAccessTokens();
      const call = h.hub.callTool('mcp__remote__echo', { text: 'again' });
      if (idempotent) {
        await expect(call).resolves.toMatchObject({ content: [{ type: 'text', text: 'again' }] });
      } else {
        await expect(call).rejects.toMatchObject({
          code: 'TOOL_CALL_FAILED',
          message: expect.stringContaining('whether the tool ran is unknown') as string,
        });
        // The server counts the grant before the hub has stored what it answered: wait for the stored token.
        await until(
          () =>
            fixture!.grants.refresh_token === 1 &&
            (h.store.get('remote').tokens?.value as { access_token?: string } | undefined)?.access_token ===
              fixture!.accessTokens.at(-1),
          'refreshed after the 401, the new tokens stored',
        );
        await expect(h.hub.callTool('mcp__remote__echo', { text: 'next' })).resolves.toMatchObject({
          content: [{ type: 'text', text: 'next' }],
        });
      }
      expect(fixture!.grants.refresh_token).toBe(1);
      expect(h.events.filter((e) => e.type === 'mcp.auth_required')).toHaveLength(1);
    },
  );

  it('a 403 insufficient_scope while a refresh token is held asks once for a sign-in with the union of scopes, not a refresh', async () => {
    const h = await start({ toolScopes: ['mcp:tools', 'mcp:write'] });
    const signIn = await required(h);
    await h.hub.completeSignIn(await browse(signIn.authorizationUrl));
    await h.next('mcp.server_up');
    expect(fixture!.refreshTokens).toHaveLength(1);

    const since = h.events.length;
    // The server refused the call before running it (403): the call fails and a larger sign-in is asked for.
    await expect(h.hub.callTool('mcp__remote__echo', { text: 'write' })).rejects.toMatchObject({
      code: 'TOOL_CALL_FAILED',
    });
    const stepUp = await required(h, since);
    expect(h.hub.needsSignIn('remote')).toBe(true);
    const scope = new URL(stepUp.authorizationUrl).searchParams.get('scope')?.split(' ');
    expect(scope?.sort()).toEqual(['mcp:tools', 'mcp:write']);
    // The SDK's own answer would have been a refresh with the same scope: none was made.
    expect(fixture!.grants.refresh_token).toBe(0);
    await expect(h.hub.callTool('mcp__remote__echo', { text: 'x' })).rejects.toMatchObject({
      code: 'TOOL_NEEDS_AUTH',
    });

    const back = h.events.length;
    await expect(h.hub.completeSignIn(await browse(stepUp.authorizationUrl))).resolves.toMatchObject({
      kind: 'signed_in',
    });
    await h.next('mcp.server_up', () => true, back);
    expect((await h.hub.callTool('mcp__remote__echo', { text: 'write' })).content).toEqual([
      { type: 'text', text: 'write' },
    ]);
    expect(h.events.filter((e) => e.type === 'mcp.auth_required')).toHaveLength(2);
    expect(fixture!.authorizationScopes.at(-1)?.split(' ').sort()).toEqual(['mcp:tools', 'mcp:write']);
  });

  it('refuses a server whose protected resource metadata names another resource: mcp.auth_failed once, no retries', async () => {
    const h = await start({ resource: 'https://evil.example.com/mcp' });
    const failed = await h.next('mcp.auth_failed');
    expect(failed.server).toBe('remote');
    expect(failed.error).toMatch(/names a resource other than the server’s URL/);
    expect(failed.error).not.toContain('evil.example.com');
    // Held, not down: time passes and nothing is tried again, asked for, or registered.
    for (let i = 0; i < 10; i += 1) h.clock.increment(60_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const types = h.events.map((e) => e.type);
    expect(types.filter((type) => type === 'mcp.auth_failed')).toHaveLength(1);
    expect(types).not.toContain('mcp.server_down');
    expect(types).not.toContain('mcp.auth_required');
    expect(fixture!.registrations).toBe(0);
    expect(fixture!.authorizationScopes).toEqual([]);
  });
});
