/**
 * The dashboard's schedules panel end to end: Debian's Chromium, driven by playwright-core, against a real daemon child
 * process — schedules listed with their timing and next firing, a one-shot that fires shown with its last firing, and
 * pause, resume and remove by their buttons, each checked through `schedules.list`.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, startDashboardRig, type DashboardRig } from './dashboard-browser.fixture.js';

const TOKEN = 'dashboard-schedules-e2e-token-8e41d7';

describe('the dashboard schedules panel in Chromium against a real daemon', () => {
  let rig: DashboardRig;
  beforeAll(async () => {
    rig = await startDashboardRig('dashboard-schedules', TOKEN);
  });
  afterAll(() => rig?.close());

  it('lists schedules soonest first, shows a firing, and pauses, resumes and removes by its buttons', async () => {
    const { context, page, problems } = await rig.open();
    await page.locator('#schedules tr.empty').waitFor();

    const weekly = await rig.rpc.schedules.add({
      name: 'weekly review',
      text: 'Review the week.',
      cron: '0 8 * * 1',
      timezone: 'Europe/Berlin',
    });
    const hourly = await rig.rpc.schedules.add({ name: 'hourly check', text: 'Check in.', everyMs: 3_600_000 });
    const weeklyRow = page.locator(`#schedules tr[data-id="${weekly.id}"]`);
    const hourlyRow = page.locator(`#schedules tr[data-id="${hourly.id}"]`);
    await weeklyRow.waitFor();
    await hourlyRow.waitFor();
    expect(await weeklyRow.locator('.schedule-timing').textContent()).toBe('cron 0 8 * * 1 (Europe/Berlin)');
    expect(await hourlyRow.locator('.schedule-timing').textContent()).toBe('every 1h 00m');
    expect(await hourlyRow.locator('.schedule-next').textContent()).toMatch(/^in (59m|1h)/);
    expect(await hourlyRow.locator('.schedule-last').textContent()).toBe('never');
    // Soonest first: the hourly one fires before next Monday's review.
    const ids = await page.locator('#schedules tr.schedule').evaluateAll((rows) => rows.map((r) => r.dataset['id']));
    expect(ids).toEqual([hourly.id, weekly.id]);

    // A one-shot a moment ahead: the heartbeat wakes for it, and the row shows it fired and is done.
    const once = await rig.rpc.schedules.add({
      name: 'one-shot',
      text: 'Say hello once.',
      at: new Date(Date.now() + 500).toISOString(),
    });
    const onceRow = page.locator(`#schedules tr[data-id="${once.id}"][data-state="done"]`);
    await onceRow.waitFor();
    expect(await onceRow.locator('.schedule-last').textContent()).toMatch(/ago$/);
    expect(await onceRow.locator('.schedule-counts').textContent()).toBe('1');
    expect(await onceRow.locator('button.schedule-pause').count()).toBe(0);
    await page.locator('.card-schedules').screenshot({ path: join(ARTIFACTS, 'dashboard-schedules.png') });

    // Pause, resume and remove by the buttons; each is what schedules.list then says.
    await hourlyRow.locator('button.schedule-pause').click();
    await page.locator(`#schedules tr[data-id="${hourly.id}"][data-state="paused"]`).waitFor();
    expect(await hourlyRow.locator('.schedule-next').textContent()).toBe('—');
    expect((await rig.rpc.schedules.list()).find((s) => s.id === hourly.id)?.paused).toBe(true);
    await hourlyRow.locator('button.schedule-resume').click();
    await page.locator(`#schedules tr[data-id="${hourly.id}"][data-state="active"]`).waitFor();
    expect((await rig.rpc.schedules.list()).find((s) => s.id === hourly.id)?.paused).toBe(false);
    await weeklyRow.locator('button.schedule-remove').click();
    await weeklyRow.waitFor({ state: 'detached' });
    expect((await rig.rpc.schedules.list()).map((s) => s.id).sort()).toEqual([hourly.id, once.id].sort());
    expect(await page.locator('#schedules-count').textContent()).toBe('1 active · 2 in all');

    expect(problems).toEqual([]);
    await context.close();
  });
});
