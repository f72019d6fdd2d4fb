/**
 * The dashboard's channels panel end to end: Debian's Chromium, driven by playwright-core, against a real daemon with
 * a Telegram channel on the fake Bot API in `dmPolicy: pairing` — the channel's state and bot account; a stranger's
 * pairing code shown to an operate session and approved with its button, after which the sender is allowed (by
 * pairing) and their next message is answered in the chat; a read session that sees the channel and the traffic but
 * no code and no Approve; and, on a daemon with no channel, no panel at all.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type VigilClient } from '../../src/client/vigil-client.js';
import { createFakeTelegram, type FakeTelegram } from '../fixtures/fake-telegram.js';
import { ARTIFACTS, startDashboardRig, WAIT_MS, type DashboardRig } from './dashboard-browser.fixture.js';
import { startDaemon, type DaemonProcess } from './daemon-process.js';

const TOKEN = 'dashboard-channels-e2e-token-8d41f7';
const BOT_TOKEN = '7000003:AAH-dashboard-bot-token-never-shown-0000';
const BOT = 'vigil_dash_bot';
const STRANGER = { id: 4242, first_name: 'Ada', username: 'ada_l' };
const CHAT = { id: STRANGER.id, type: 'private' as const };

/** Resolves once `check` holds, polling every 50 ms; fails after WAIT_MS with `what`. */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the dashboard channels panel in Chromium against a real daemon', () => {
  // The rig's daemon has no channel (the page must show no panel); its browser also opens the channel daemon's page.
  let rig: DashboardRig;
  let fake: FakeTelegram;
  let root: string;
  let daemon: DaemonProcess;
  let url: string;
  let rpc: VigilClient;

  beforeAll(async () => {
    fake = await createFakeTelegram({ tokens: [BOT_TOKEN], botUsername: BOT });
    root = await mkdtemp(join(tmpdir(), 'vigil-dashboard-channels-'));
    const config = join(root, 'channels.json');
    const entry = { type: 'telegram', tokenEnv: 'TG_BOT_TOKEN', apiRoot: fake.url, dmPolicy: 'pairing' };
    await writeFile(config, JSON.stringify({ channels: { tg: entry } }));
    daemon = startDaemon(['run', '--data-dir', join(root, 'data'), '--port', '0'], {
      VIGIL_BEAT_MS: '50',
      VIGIL_BEAT_MIN_MS: '25',
      VIGIL_BEAT_MAX_MS: '100',
      VIGIL_CHECKPOINT_INTERVAL_BEATS: '2000',
      VIGIL_TOKEN: TOKEN,
      VIGIL_CHANNELS_CONFIG: config,
      TG_BOT_TOKEN: BOT_TOKEN,
      VIGIL_LOG_LEVEL: 'info',
    });
    const listening = await daemon.waitFor((line) => line.msg === 'gateway listening', 20_000, 'gateway listening');
    url = String(listening.url);
    rpc = await connect({ url, token: TOKEN, reconnect: false });
    // Connected once getMe answers (channel.connected); the state turns ok when the first long poll returns.
    await until(async () => (await rpc.channels.list())[0]?.account !== undefined, 'the channel to connect');
    rig = await startDashboardRig('dashboard-channels', TOKEN);
  }, 60_000);
  afterAll(async () => {
    await rig?.close();
    await rpc?.close();
    if (daemon !== undefined && daemon.proc.exitCode === null) {
      daemon.kill('SIGKILL');
      await daemon.exited;
    }
    await fake?.close();
    if (root !== undefined) await rm(root, { recursive: true, force: true });
  });

  /** Opens the channel daemon's dashboard with `token` in a fresh context; `problems` collects page errors. */
  async function open(token: string): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
    const problems: string[] = [];
    const context = await rig.browser.newContext({ viewport: { width: 1280, height: 1100 } });
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
    await page.goto(`${url}/?token=${token}`);
    await page.locator('body[data-ready="true"]').waitFor();
    return { context, page, problems };
  }

  it('shows no channels panel when no channel is configured', async () => {
    expect(await rig.rpc.channels.list()).toEqual([]);
    const { context, page, problems } = await rig.open();
    // Ready means every panel has loaded once: the channels panel has had its (empty) answer.
    expect(await page.locator('#channels-card').isHidden()).toBe(true);
    expect(await page.locator('#channels-card').getAttribute('hidden')).toBe('');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows a pairing to an operate session, approves it, and never shows a code to a read session', async () => {
    const operate = await open(TOKEN);
    const { page } = operate;
    const channel = page.locator('#channels tr[data-name="tg"]');
    await channel.waitFor();
    expect(await channel.locator('.channel-account').textContent()).toBe(`@${BOT}`);
    expect(await channel.locator('.channel-pending').textContent()).toBe('0');
    expect(await channel.locator('.channel-in').textContent()).toBe('—');
    await page.locator('#channel-pairings li.empty').waitFor();

    // A stranger writes: no turn, one reply holding the code, and the pairing shows live (channel.refused).
    fake.userSends({ chat: CHAT, from: STRANGER, text: 'hello, who are you?' });
    const pairing = page.locator(`#channel-pairings li.pairing[data-channel="tg"][data-sender="${STRANGER.id}"]`);
    await pairing.waitFor();
    await page.locator('#channels tr[data-name="tg"][data-state="ok"]').waitFor();
    const [waiting] = await rpc.channels.pairings({});
    expect(waiting).toMatchObject({ channel: 'tg', senderId: String(STRANGER.id), name: `@${STRANGER.username}` });
    const code = waiting!.code;
    expect(await pairing.locator('.pairing-code').textContent()).toBe(code);
    expect(await pairing.locator('.pairing-name').textContent()).toBe(`@${STRANGER.username}`);
    expect(await pairing.locator('.pairing-sender').textContent()).toBe(`tg · id ${STRANGER.id}`);
    expect(await pairing.locator('.pairing-expires').textContent()).toMatch(/^expires in (59m|1h 00m)/);
    await until(() => fake.botMessages(STRANGER.id).some((m) => m.text.includes(code)), 'the pairing reply');
    await page.locator('#channel-traffic li[data-type="channel.refused"]').waitFor();
    expect(await page.locator('#channel-traffic li[data-type="channel.refused"] .traffic-text').textContent()).toBe(
      `refused ${STRANGER.id}: sent a pairing code`,
    );
    await page.locator('#channels-count').filter({ hasText: '1 ok · 1 channel · 1 waiting to pair' }).waitFor();
    await page.locator('.card-channels').screenshot({ path: join(ARTIFACTS, 'dashboard-channels-pairing.png') });

    // A read session: the channel and its traffic, but no code, no Approve, and it never asked for the pairings.
    const { token: readToken } = await rpc.tokens.create({ scope: 'read', name: 'viewer' });
    const read = await open(readToken);
    await read.page.locator('#channels tr[data-name="tg"][data-state="ok"]').waitFor();
    await read.page.locator('#channel-traffic li[data-type="channel.refused"]').waitFor();
    expect(await read.page.locator('#channel-pairings li.pairing').count()).toBe(0);
    expect(await read.page.locator('.channel-pairings-box').isVisible()).toBe(false);
    expect(await read.page.locator('button.pairing-approve').count()).toBe(0);
    expect(await read.page.locator('body').innerText()).not.toContain(code);
    expect(await read.page.locator('#channels-count').textContent()).toBe('1 ok · 1 channel');
    const denied = await rpc.events.history({ types: ['auth.denied'] });
    expect(denied.filter((event) => event.type === 'auth.denied' && event.method.startsWith('channels.'))).toEqual([]);

    // Approve: the pairing leaves the list and the sender may talk, by pairing.
    await pairing.locator('button.pairing-approve').click();
    await pairing.waitFor({ state: 'detached' });
    await page.locator('#channel-pairings li.empty').waitFor();
    expect(await rpc.channels.senders({ channel: 'tg' })).toEqual([
      expect.objectContaining({ senderId: String(STRANGER.id), via: 'pairing', name: `@${STRANGER.username}` }),
    ]);
    await page.locator('#channel-traffic li[data-type="channel.paired"]').waitFor();

    // Their next message is a turn, answered in their chat; both pages show it received and replied.
    const asked = fake.userSends({ chat: CHAT, from: STRANGER, text: 'thanks! how are you?' });
    await until(
      () => fake.botMessages(STRANGER.id).some((m) => m.replyTo === asked.message_id && m.text !== '…'),
      'the answer in the chat',
    );
    const answer = fake.botMessages(STRANGER.id).find((m) => m.replyTo === asked.message_id)!;
    for (const each of [page, read.page]) {
      await each.locator('#channel-traffic li[data-type="channel.received"]').waitFor();
      await each.locator('#channel-traffic li[data-type="channel.replied"]').waitFor();
      expect(await each.locator('#channel-traffic li[data-type="channel.received"] .traffic-text').textContent()).toBe(
        `received message ${asked.message_id} from ${STRANGER.id}`,
      );
      expect(await each.locator('#channel-traffic li[data-type="channel.received"] .traffic-chat').textContent()).toBe(
        String(STRANGER.id),
      );
      expect(await each.locator('#channel-traffic li[data-type="channel.replied"] .traffic-text').textContent()).toBe(
        `replied with message ${answer.messageId}`,
      );
      await each.locator('#channels tr[data-name="tg"] .channel-out').filter({ hasText: /ago$/ }).waitFor();
    }
    expect(await channel.locator('.channel-in').textContent()).toMatch(/ago$/);
    await page.locator('.card-channels').screenshot({ path: join(ARTIFACTS, 'dashboard-channels.png') });
    await read.page.locator('.card-channels').screenshot({ path: join(ARTIFACTS, 'dashboard-channels-read.png') });

    // Nothing on either page carries the bot token.
    for (const each of [page, read.page]) expect(await each.content()).not.toContain('AAH-dashboard-bot-token');
    expect(operate.problems).toEqual([]);
    expect(read.problems).toEqual([]);
    await read.context.close();
    await operate.context.close();
  });

  it('shows a failing channel with its error and its recovery, live', async () => {
    const { context, page, problems } = await open(TOKEN);
    await page.locator('#channels tr[data-name="tg"][data-state="ok"]').waitFor();

    // The token is refused (revoked in BotFather): channel.failing, and the row says why.
    fake.revokeToken(BOT_TOKEN);
    const failing = page.locator('#channels tr[data-name="tg"][data-state="failing"]');
    await failing.waitFor();
    const [listed] = await rpc.channels.list();
    expect(listed).toMatchObject({ state: 'failing', error: expect.any(String) });
    expect(await failing.locator('.channel-error').textContent()).toBe(listed!.error);
    expect(await page.locator('#channel-traffic li[data-type="channel.failing"] .traffic-text').textContent()).toBe(
      `failing: ${listed!.error}`,
    );
    await page.locator('#channels-count').filter({ hasText: '0 ok · 1 channel' }).waitFor();
    await page.locator('.card-channels').screenshot({ path: join(ARTIFACTS, 'dashboard-channels-failing.png') });

    // Accepted again: the channel reconnects; it is ok once a poll returns (the paired sender writes).
    fake.restoreToken(BOT_TOKEN);
    const connected = page.locator('#channel-traffic li[data-type="channel.connected"]');
    await until(async () => (await connected.count()) === 2, 'the channel to connect again');
    fake.userSends({ chat: CHAT, from: STRANGER, text: 'are you back?' });
    await page.locator('#channels tr[data-name="tg"][data-state="ok"]').waitFor();
    await page.locator('#channel-traffic li[data-type="channel.recovered"]').waitFor();
    expect(await page.locator('#channels tr[data-name="tg"] .channel-error').count()).toBe(0);
    expect(await page.content()).not.toContain('AAH-dashboard-bot-token');
    expect(problems).toEqual([]);
    await context.close();
  });
});
