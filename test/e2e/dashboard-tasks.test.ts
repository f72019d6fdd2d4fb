/**
 * The dashboard's tasks panel end to end: Debian's Chromium, driven by playwright-core, against a real daemon child
 * process with the stdio MCP fixture — a finished task with its tools and spend, a running one cancelled by its button.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, startDashboardRig, type DashboardRig } from './dashboard-browser.fixture.js';

const TOKEN = 'dashboard-tasks-e2e-token-5c2a91';

describe('the dashboard tasks panel in Chromium against a real daemon with an MCP server', () => {
  let rig: DashboardRig;
  beforeAll(async () => {
    rig = await startDashboardRig('dashboard-tasks', TOKEN);
  });
  afterAll(() => rig?.close());

  it('lists a finished task with its tools and spend, and cancels a running one by its button; its turn is told', async () => {
    const { context, page, problems } = await rig.open();
    await page.locator('#tasks tr.empty').waitFor();

    // A task that calls one tool and finishes: listed as done, with its tool and its spend against its cap.
    const { turnId: done } = await rig.rpc.agent.send({
      text: '/task tools=fixture__echo\nSay hello.\n/tool fixture__echo {"text": "hello from a task"}',
    });
    const finished = page.locator(`#tasks tr[data-turn="${done}"][data-status="done"]`);
    await finished.waitFor();
    expect(await finished.locator('.task-tools').textContent()).toBe('mcp__fixture__echo');
    expect(await finished.locator('.task-spend').textContent()).toMatch(/^\$0\.\d+ \/ \$0\.50$/);
    expect(await finished.locator('button.task-cancel').count()).toBe(0);

    // A task whose tool call hangs: running, with a Cancel button that stops it.
    const { turnId: hung } = await rig.rpc.agent.send({ text: '/task tools=fixture__hang\n/tool fixture__hang' });
    const running = page.locator(`#tasks tr[data-turn="${hung}"][data-status="running"]`);
    await running.waitFor();
    expect(await page.locator('#tasks-count').textContent()).toContain('1 open');
    await page.locator('.card-tasks').screenshot({ path: join(ARTIFACTS, 'dashboard-tasks.png') });
    await running.locator('button.task-cancel').click();
    await page.locator(`#tasks tr[data-turn="${hung}"][data-status="cancelled"]`).waitFor();
    const told = page.locator(`.chat-reply[data-turn="${hung}"]`);
    await told.waitFor();
    expect(await told.textContent()).toMatch(/cancelled/);

    expect((await rig.rpc.tasks.list()).map((task) => task.status).sort()).toEqual(['cancelled', 'done']);
    expect(problems).toEqual([]);
    await context.close();
  });
});
