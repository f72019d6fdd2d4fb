/**
 * The dashboard's tools panel end to end: Debian's Chromium, driven by playwright-core, against a real daemon child
 * process with the stdio MCP fixture — the tools listed, waiting calls shown live, approved and denied with the buttons —
 * and a server that cannot be reached, shown down with why.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusedPort } from '../fixtures/refused-port.js';
import { ARTIFACTS, startDashboardRig, type DashboardRig } from './dashboard-browser.fixture.js';

const TOKEN = 'dashboard-tools-e2e-token-8d1e4b';

describe('the dashboard tools panel in Chromium against a real daemon with an MCP server', () => {
  let rig: DashboardRig;
  beforeAll(async () => {
    rig = await startDashboardRig(
      'dashboard-tools',
      TOKEN,
      { requireApproval: ['echo', 'add'] },
      { offline: { url: `http://127.0.0.1:${await refusedPort()}/mcp` } },
    );
  });
  afterAll(() => rig?.close());

  it('lists the tools, shows a waiting call as it is requested, and approves one and denies another (with a reason) by its buttons', async () => {
    const { context, page, problems } = await rig.open();

    // The tools, with the ones under requireApproval marked and every server up.
    const echoTool = page.locator('#tools li[data-name="mcp__fixture__echo"]');
    await echoTool.waitFor();
    expect(await echoTool.getAttribute('data-available')).toBe('true');
    expect(await echoTool.locator('.pill').textContent()).toBe('approval');
    expect(await page.locator('#tools li[data-name="mcp__fixture__count"] .pill').count()).toBe(0);
    await page.locator('#tools-pending .empty').waitFor();

    // The server that cannot be reached: a row of its own, with the reason its last attempt failed.
    const offline = page.locator('#tools li[data-server="offline"][data-state="down"]');
    await offline.waitFor();
    expect(await offline.locator('.pill').textContent()).toBe('unreachable');
    expect(await offline.locator('.tool-down-reason').textContent()).toMatch(
      /^it could not be connected \(TypeError ECONNREFUSED\); (next attempt in .+|retrying now)$/,
    );

    // A call waits: it appears live (tool.approval_requested), with its arguments.
    const { turnId } = await rig.rpc.agent.send({ text: '/tool fixture__echo {"text": "from the dashboard"}' });
    const first = page.locator(`#tools-pending li[data-turn="${turnId}"]`);
    await first.waitFor();
    expect(await first.locator('.tool-name').textContent()).toBe('mcp__fixture__echo');
    expect(JSON.parse((await first.locator('.tool-args').textContent()) ?? '')).toEqual({ text: 'from the dashboard' });
    expect(await page.locator('#tools-count').textContent()).toContain('1 waiting');
    await page.locator('.card-tools').screenshot({ path: join(ARTIFACTS, 'dashboard-tools.png') });

    await first.locator('button.tool-approve').click();
    await first.waitFor({ state: 'detached' });
    const approvedReply = page.locator(`.chat-reply[data-turn="${turnId}"]`);
    await approvedReply.waitFor();
    expect(await approvedReply.textContent()).toMatch(/approved by the operator and returned:\s*from the dashboard/);

    // Another, denied with a reason typed beside it: the agent's answer carries the reason.
    const { turnId: second } = await rig.rpc.agent.send({ text: '/tool fixture__add {"a": 2, "b": 2}' });
    const row = page.locator(`#tools-pending li[data-turn="${second}"]`);
    await row.waitFor();
    await row.locator('input.tool-reason').fill('arithmetic is off limits today');
    await row.locator('button.tool-deny').click();
    await row.waitFor({ state: 'detached' });
    const deniedReply = page.locator(`.chat-reply[data-turn="${second}"]`);
    await deniedReply.waitFor();
    expect(await deniedReply.textContent()).toMatch(
      /denied by the operator \(the reason given: arithmetic is off limits today\)/,
    );

    expect(await rig.rpc.tools.pending()).toEqual([]);
    const decided = await rig.rpc.events.history({ types: ['tool.approval_decided'] });
    expect(decided.map((e) => (e as { approved?: boolean }).approved)).toEqual([true, false]);
    await page.locator('#tools-pending .empty').waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });
});
