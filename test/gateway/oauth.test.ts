/**
 * Remote MCP servers behind OAuth over a real gateway: `tools.list`'s needs_auth entry, `tools.login` and
 * `tools.logout` (operate; a read token is refused), and `GET /oauth/callback` without a token (the browser follows
 * the authorization URL, the fixture's authorization server approves at once and redirects to the gateway), a used or
 * unknown state answered with a page and no side effect, and a tool call once signed in.
 */
import { request } from 'node:http';
import { readFile, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli.js';
import type { CliIo } from '../../src/client/commands/cli-io.js';
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import { startOAuthMcpServer, type OAuthMcpFixture } from '../fixtures/oauth-mcp-server.js';
import { startGatewayHarness, TEST_TOKEN, type GatewayHarness } from './gateway.fixture.js';

let h: GatewayHarness | undefined;
let fixture: OAuthMcpFixture | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await h?.close();
  await fixture?.close();
  h = undefined;
  fixture = undefined;
});

/** Resolves with the first event of `type` (seen already or to come) passing `test`. */
function nextEvent<T extends VigilEvent['type']>(
  harness: GatewayHarness,
  type: T,
  test: (event: Extract<VigilEvent, { type: T }>) => boolean = () => true,
): Promise<Extract<VigilEvent, { type: T }>> {
  const match = (e: VigilEvent): e is Extract<VigilEvent, { type: T }> => e.type === type && test(e as never);
  const seen = harness.events.find(match);
  if (seen !== undefined) return Promise.resolve(seen);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${type}: ${JSON.stringify(harness.events)}`)), 15_000);
    const subscription = harness.runtime.events$.subscribe((event) => {
      if (!match(event)) return;
      clearTimeout(timer);
      subscription.unsubscribe();
      resolve(event);
    });
  });
}

async function start(publicUrl?: string): Promise<GatewayHarness> {
  fixture = await startOAuthMcpServer();
  const harness = await startGatewayHarness({
    runtime: {
      config: { mcp: { mcpServers: { remote: { url: fixture.url }, local: { url: `${fixture.issuer}/x` } } } },
    },
    ...(publicUrl === undefined ? {} : { gateway: { publicUrl } }),
  });
  // As the daemon does once it listens: the callback is the gateway's own /oauth/callback.
  harness.runtime.mcpServers.useGatewayUrl(harness.gateway.url);
  return harness;
}

describe('OAuth sign-ins over the gateway', () => {
  it('lists needs_auth, signs in through the callback with no token, and calls the tool', async () => {
    h = await start();
    const required = await nextEvent(h, 'mcp.auth_required', (e) => e.server === 'remote');
    // The event names the server only: an authorization URL's state is the sign-in's credential.
    expect(required).not.toHaveProperty('authorizationUrl');
    const admin = await h.connect();
    const listed = (await admin.request('tools.list')).result as Array<Record<string, unknown>>;
    expect(listed).toContainEqual({
      server: 'remote',
      state: 'needs_auth',
      authorizationUrl: expect.any(String) as string,
      expiresAt: expect.any(String) as string,
    });
    const firstUrl = String(listed.find((entry) => entry['server'] === 'remote')!['authorizationUrl']);
    expect(new URL(firstUrl).searchParams.get('redirect_uri')).toBe(`${h.gateway.url}/oauth/callback`);

    // A read token may list (without the link) but not sign in or out; nor does a talk token see the link.
    const reader = await h.connect({ token: (await h.runtime.tokens.create({ scope: 'read', name: 'r' })).token });
    const talker = await h.connect({ token: (await h.runtime.tokens.create({ scope: 'talk', name: 't' })).token });
    for (const client of [reader, talker]) {
      const seen = (await client.request('tools.list')).result as Array<Record<string, unknown>>;
      expect(seen.filter((entry) => entry['server'] === 'remote')).toEqual([{ server: 'remote', state: 'needs_auth' }]);
    }
    const history = (await reader.request('events.history', { types: ['mcp.auth_required'] })).result;
    expect(JSON.stringify(history)).not.toContain(new URL(firstUrl).searchParams.get('state')!);
    expect(JSON.stringify(history)).not.toContain('/authorize');
    for (const method of ['tools.login', 'tools.logout']) {
      const refused = await reader.request(method, { server: 'remote' });
      expect(refused.error).toMatchObject({ code: -32003, data: { vigilCode: 'AUTH_FORBIDDEN' } });
    }
    expect((await admin.request('tools.login', { server: 'nope' })).error).toMatchObject({
      code: -32004,
      data: { vigilCode: 'MCP_SERVER_NOT_FOUND', server: 'nope' },
    });

    const login = (await admin.request('tools.login', { server: 'remote' })).result as {
      authorizationUrl: string;
      expiresAt: string;
    };
    expect(Date.parse(login.expiresAt) - h.clock.now()).toBe(600_000);

    // The browser: the authorization server redirects to the gateway, which needs no token for the callback.
    const approved = await fetch(login.authorizationUrl, { redirect: 'manual' });
    const callback = approved.headers.get('location')!;
    expect(callback.startsWith(`${h.gateway.url}/oauth/callback?`)).toBe(true);
    const page = await fetch(callback);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('Signed in to remote');
    await nextEvent(h, 'mcp.auth_completed', (e) => e.server === 'remote');
    await nextEvent(h, 'mcp.server_up', (e) => e.server === 'remote');
    const tools = (await admin.request('tools.list')).result as Array<Record<string, unknown>>;
    expect(tools.filter((entry) => entry['server'] === 'remote')).toContainEqual(
      expect.objectContaining({ name: 'mcp__remote__echo', state: 'up', available: true }),
    );
    expect(tools.some((entry) => entry['server'] === 'remote' && entry['state'] === 'needs_auth')).toBe(false);

    // Used once: the same callback again is refused and changes nothing.
    const again = await fetch(callback);
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('unknown or expired');

    expect((await admin.request('tools.logout', { server: 'remote' })).result).toBe(true);
    await nextEvent(h, 'mcp.auth_required', (e) => e.server === 'remote' && e.seq > required.seq);
  });

  it('exchanges a code once when two callbacks bring one state at the same moment; the second is unknown and changes nothing', async () => {
    h = await start();
    await nextEvent(h, 'mcp.auth_required', (e) => e.server === 'remote');
    const admin = await h.connect();
    const listed = (await admin.request('tools.list')).result as Array<Record<string, unknown>>;
    const link = String(listed.find((entry) => entry['server'] === 'remote')!['authorizationUrl']);
    const approved = await fetch(link, { redirect: 'manual' });
    const callback = approved.headers.get('location')!;
    expect(callback.startsWith(`${h.gateway.url}/oauth/callback?`)).toBe(true);

    // The browser's visit, twice at once (a double click, a replay): both callbacks are held at the gateway until the
    // other has arrived, then go on in the same tick, so neither is looked up after the other took its state out.
    const completeSignIn = h.runtime.mcpServers.completeSignIn.bind(h.runtime.mcpServers);
    const arrived: Array<() => void> = [];
    vi.spyOn(h.runtime.mcpServers, 'completeSignIn').mockImplementation(async (answer) => {
      await new Promise<void>((resolve) => {
        arrived.push(resolve);
        if (arrived.length === 2) for (const go of arrived) go();
      });
      return completeSignIn(answer);
    });
    const pages = await Promise.all(
      [fetch(callback), fetch(callback)].map(async (page) => {
        const response = await page;
        return { status: response.status, text: await response.text() };
      }),
    );
    expect(pages.map((page) => page.status).sort()).toEqual([200, 400]);
    expect(pages.find((page) => page.status === 200)!.text).toContain('Signed in to remote');
    expect(pages.find((page) => page.status === 400)!.text).toContain('unknown or expired');
    expect(fixture!.codeExchanges).toBe(1);

    await nextEvent(h, 'mcp.server_up', (e) => e.server === 'remote');
    const tools = (await admin.request('tools.list')).result as Array<Record<string, unknown>>;
    expect(tools.filter((entry) => entry['server'] === 'remote')).toContainEqual(
      expect.objectContaining({ name: 'mcp__remote__echo', state: 'up', available: true }),
    );
    expect(h.events.filter((e) => e.type === 'mcp.auth_completed')).toHaveLength(1);
    expect(h.events.filter((e) => e.type === 'mcp.auth_failed')).toEqual([]);
    expect(fixture!.codeExchanges).toBe(1);
  });

  it('answers a bad callback with a page that echoes nothing, and changes nothing', async () => {
    h = await start();
    await nextEvent(h, 'mcp.auth_required', (e) => e.server === 'remote');
    const before = h.events.length;
    const hostile = '<script>alert(1)</script>';
    for (const query of [
      `?state=${encodeURIComponent(hostile)}&code=x`,
      `?code=${encodeURIComponent(hostile)}`,
      `?state=a&state=b&code=x`,
      '',
    ]) {
      const response = await fetch(`${h.gateway.url}/oauth/callback${query}`);
      expect(response.status).toBe(400);
      const text = await response.text();
      expect(text).not.toContain('<script>');
      expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    }
    expect(h.events.slice(before).filter((e) => e.type.startsWith('mcp.auth'))).toEqual([]);
    expect((await fetch(`${h.gateway.url}/oauth/callback`, { method: 'POST' })).status).toBe(405);
  });

  it('vigil tools login prints the URL and waits until the browser has signed in', async () => {
    h = await start();
    await nextEvent(h, 'mcp.auth_required', (e) => e.server === 'remote');
    let stdout = '';
    let stderr = '';
    let printed!: (url: string) => void;
    const url = new Promise<string>((resolve) => (printed = resolve));
    const io: CliIo = {
      env: { VIGIL_HOST: '127.0.0.1', VIGIL_PORT: new URL(h.gateway.url).port, VIGIL_TOKEN: TEST_TOKEN },
      stdout: (text) => {
        stdout += text;
        if (stdout.endsWith('\n')) printed(stdout.trim());
      },
      stderr: (text) => (stderr += text),
      readFile: (path) => readFile(path, 'utf8'),
      writeFile: (path, text) => writeFile(path, text),
      interrupted: () => new Promise(() => undefined),
    };
    // A read token's `vigil tools list` says a sign-in is needed and how, with no link.
    const reader = (await h.runtime.tokens.create({ scope: 'read', name: 'cli-reader' })).token;
    let listed = '';
    const readerIo: CliIo = { ...io, env: { ...io.env, VIGIL_TOKEN: reader }, stdout: (text) => (listed += text) };
    expect(await main(['tools', 'list'], readerIo)).toBe(0);
    expect(listed).toContain('remote\tneeds_auth\t-\tsign in: vigil tools login remote (an operate token)\n');
    expect(listed).not.toContain('/authorize');

    const exit = main(['tools', 'login', 'remote'], io);
    const approved = await fetch(await url, { redirect: 'manual' });
    expect((await fetch(approved.headers.get('location')!)).status).toBe(200);
    expect(await exit).toBe(0);
    expect(stderr).toContain('signed in to remote');

    stdout = '';
    expect(await main(['tools', 'login', 'remote', '--no-wait'], io)).toBe(0);
    expect(stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
    expect(await main(['tools', 'logout', 'local'], io)).toBe(1);
  });

  it("accepts VIGIL_PUBLIC_URL's host and origin like allowed ones", async () => {
    h = await start('https://vigil.example.com/agent');
    const status = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = request(`${h!.gateway.url}/healthz`, { headers }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
    expect(await status({ host: 'vigil.example.com' })).toBe(200);
    expect(await status({ host: 'vigil.example.com', origin: 'https://vigil.example.com' })).toBe(200);
    expect(await status({ host: 'elsewhere.example.com' })).toBe(403);
    expect(await status({ host: 'vigil.example.com', origin: 'https://elsewhere.example.com' })).toBe(403);
  });
});
