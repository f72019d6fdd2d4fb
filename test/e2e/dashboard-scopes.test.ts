/**
 * The dashboard with a scoped token, in Chromium against a real daemon: a `read` token sees no control it may not use
 * (restore, approve/deny, top-up, create checkpoint, cancel, pause or remove a schedule, send, add or complete a goal, forget), a `talk` token
 * sees the talking ones only, the daemon's own token sees them all. The gateway refuses them anyway (-32003).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, startDashboardRig, type DashboardRig } from './dashboard-browser.fixture.js';

const TOKEN = 'dashboard-scopes-e2e-token-71c0d2';

describe('the dashboard with read, talk and operate tokens in Chromium', () => {
  let rig: DashboardRig;
  let pendingTurn: string;
  beforeAll(async () => {
    rig = await startDashboardRig('dashboard-scopes', TOKEN, { requireApproval: ['echo'] });
    // Something for the controls to act on: a checkpoint to restore, a tool call waiting for approval.
    await rig.rpc.checkpoint.create();
    await rig.rpc.schedules.add({ name: 'weekly', text: 'Review the week.', cron: '0 8 * * 1' });
    pendingTurn = (await rig.rpc.agent.send({ text: '/tool fixture__echo {"text": "waiting"}' })).turnId;
  });
  afterAll(() => rig?.close());

  /** Opens the page with `token` and waits until the rows the controls sit in are shown. */
  async function openWith(token: string) {
    const opened = await rig.open(token);
    const { page } = opened;
    await page.locator('#checkpoints tr button').first().waitFor({ state: 'attached' });
    await page.locator(`#tools-pending li[data-turn="${pendingTurn}"]`).waitFor();
    await page.locator('#schedules tr.schedule').waitFor();
    return opened;
  }

  const OPERATE_CONTROLS = [
    '#checkpoints tr button',
    '#checkpoint-create',
    '#tools-pending button.tool-approve',
    '#tools-pending button.tool-deny',
    '#topup-form button',
    '#schedules button.schedule-pause',
    '#schedules button.schedule-remove',
  ];
  const TALK_CONTROLS = ['#send-form button', '#goal-form button'];

  it('a read token shows no restore, approve, deny, top-up or talking control', async () => {
    const { token } = await rig.rpc.tokens.create({ scope: 'read', name: 'viewer' });
    const { context, page, problems } = await openWith(token);
    expect(await page.locator('html').getAttribute('data-scope')).toBe('read');
    for (const selector of [...OPERATE_CONTROLS, ...TALK_CONTROLS])
      for (const control of await page.locator(selector).all()) expect(await control.isVisible(), selector).toBe(false);
    // What it may read is there: the heartbeat, the waiting call, the checkpoint rows.
    expect(await page.locator('#hb-beat').isVisible()).toBe(true);
    expect(await page.locator(`#tools-pending li[data-turn="${pendingTurn}"] .tool-name`).isVisible()).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-read-token.png') });
    expect(problems).toEqual([]);
    // The page asks only what the token may answer: no refusal lands in the journal for it (the webhooks panel asked).
    await page.locator('#webhooks tr.empty').waitFor();
    const denied = await rig.rpc.events.history({ types: ['auth.denied'] });
    expect(denied.filter((event) => event.type === 'auth.denied' && event.tokenName === 'viewer')).toEqual([]);
    await context.close();
  });

  it('a talk token shows the talking controls but none that operate; the daemon token shows them all', async () => {
    const { token } = await rig.rpc.tokens.create({ scope: 'talk', name: 'chatter' });
    const talk = await openWith(token);
    for (const selector of OPERATE_CONTROLS)
      for (const control of await talk.page.locator(selector).all())
        expect(await control.isVisible(), selector).toBe(false);
    for (const selector of TALK_CONTROLS)
      expect(await talk.page.locator(selector).first().isVisible(), selector).toBe(true);
    expect(talk.problems).toEqual([]);
    await talk.context.close();

    const operate = await openWith(TOKEN);
    for (const selector of [...OPERATE_CONTROLS, ...TALK_CONTROLS])
      expect(await operate.page.locator(selector).first().isVisible(), selector).toBe(true);
    expect(operate.problems).toEqual([]);
    await operate.context.close();
  });
});
