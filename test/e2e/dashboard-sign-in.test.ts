/**
 * The dashboard's "Sign in" link end to end: Chromium against a real daemon whose remote MCP server is behind OAuth
 * (test/fixtures/mcp-oauth-server.ts, which approves at once). The tools panel shows the server waiting for a sign-in,
 * with a link to its authorization URL for an operate session only (read and talk sessions get no URL from
 * `tools.list`); following it in a new tab goes through the authorization server to the gateway's `/oauth/callback`,
 * and the panel, live, trades the row for the server's tools.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOAuthMcpServer, type OAuthMcpFixture } from '../fixtures/mcp-oauth-server.js';
import { ARTIFACTS, startDashboardRig, type DashboardRig } from './dashboard-browser.fixture.js';

const TOKEN = 'dashboard-sign-in-e2e-token-5c2a9f';

describe('the dashboard’s Sign in link in Chromium against a daemon with an OAuth-protected MCP server', () => {
  let remote: OAuthMcpFixture;
  let rig: DashboardRig;
  beforeAll(async () => {
    remote = await startOAuthMcpServer();
    rig = await startDashboardRig('dashboard-sign-in', TOKEN, {}, { remote: { url: remote.url } });
  });
  afterAll(async () => {
    await rig?.close();
    await remote?.close();
  });

  it('shows a read or talk session the server waiting, with no link (the URL is for an operate token only)', async () => {
    for (const scope of ['read', 'talk'] as const) {
      const { token } = await rig.rpc.tokens.create({ scope, name: `sign-in-${scope}` });
      const { context, page, problems } = await rig.open(token);
      const row = page.locator('#tools li.tool-sign-in[data-server="remote"]');
      await row.waitFor();
      expect(await row.getAttribute('data-state')).toBe('needs_auth');
      expect(await row.locator('.pill').textContent()).toBe('needs sign-in');
      expect(await row.locator('a').count(), scope).toBe(0);
      expect(await row.textContent()).toContain('an operator signs in');
      expect(await page.content()).not.toContain('/authorize');
      expect(problems).toEqual([]);
      await context.close();
    }
  });

  it('shows an operate session the server waiting with a link to its authorization URL, and the link signs in: its tools replace the row', async () => {
    const { context, page, problems } = await rig.open();

    const row = page.locator('#tools li.tool-sign-in[data-server="remote"]');
    await row.waitFor();
    expect(await row.getAttribute('data-state')).toBe('needs_auth');
    expect(await row.locator('.pill').textContent()).toBe('needs sign-in');
    const link = row.locator('a.tool-sign-in-link');
    const href = new URL((await link.getAttribute('href')) ?? '');
    expect(href.origin).toBe(new URL(remote.url).origin);
    expect(href.pathname).toBe('/authorize');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    await page.locator('.card-tools').screenshot({ path: join(ARTIFACTS, 'dashboard-sign-in.png') });

    // The operator clicks: a new tab goes to the authorization server, which sends it on to the gateway's callback.
    const [tab] = await Promise.all([context.waitForEvent('page'), link.click()]);
    await tab.waitForURL((url) => url.href.startsWith(`${rig.url}/oauth/callback`));
    await tab.locator('h1').waitFor();
    expect(await tab.locator('body').textContent()).toContain('Vigil is signed in to the MCP server remote');

    // The panel follows the sign-in live: the row goes, the server's tools come.
    await row.waitFor({ state: 'detached' });
    const echo = page.locator('#tools li[data-name="mcp__remote__echo"]');
    await echo.waitFor();
    expect(await echo.getAttribute('data-available')).toBe('true');
    expect(await rig.rpc.events.history({ types: ['mcp.auth_completed'] })).toEqual([
      expect.objectContaining({ server: 'remote' }),
    ]);
    expect(remote.grants.filter((grant) => grant.grant === 'authorization_code')).toHaveLength(1);
    expect(problems).toEqual([]);
    await context.close();
  });
});
