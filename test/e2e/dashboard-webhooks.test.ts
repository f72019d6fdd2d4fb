/**
 * The dashboard's webhooks panel end to end: Debian's Chromium, driven by playwright-core, against a real daemon child
 * process delivering to a real local receiver — an endpoint listed with its state, backlog and last attempt; one that
 * answers 410 turning `disabled` on the live feed, and its Enable button; and Redeliver, which asks for the seq in a
 * dialog and has the receiver get the same events again (same webhook-id). Each step is checked through
 * `webhooks.list` or at the receiver.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, startDashboardRig, WAIT_MS, type DashboardRig } from './dashboard-browser.fixture.js';

const TOKEN = 'dashboard-webhooks-e2e-token-5c2a91';

/** One POST the receiver took. */
interface Received {
  path: string;
  webhookId: string;
  seq: number;
}

/** A local receiver: `/ok` answers 204, `/gone` answers 410 until `gone` is set false, then 204 too. */
async function startReceiver(): Promise<{
  url: string;
  received: Received[];
  setGone(gone: boolean): void;
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  let gone = true;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { seq: number };
      received.push({ path: req.url ?? '', webhookId: String(req.headers['webhook-id']), seq: body.seq });
      res.statusCode = req.url === '/gone' && gone ? 410 : 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    setGone: (value) => (gone = value),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Resolves once `check` holds, polling every 50 ms; fails after WAIT_MS with `what`. */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the dashboard webhooks panel in Chromium against a real daemon', () => {
  let rig: DashboardRig;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver();
    // The receiver is on this host: a private destination, allowed by the variable a same-host receiver needs.
    rig = await startDashboardRig('dashboard-webhooks', TOKEN, {}, {}, { VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true' });
  });
  afterAll(async () => {
    await rig?.close();
    await receiver?.close();
  });

  it('lists endpoints with state, backlog and last attempt, enables a disabled one and redelivers from a seq', async () => {
    const { context, page, problems } = await rig.open();
    await page.locator('#webhooks tr.empty').waitFor();

    const healthy = await rig.rpc.webhooks.add({
      url: `${receiver.url}/ok`,
      types: ['checkpoint.created'],
      name: 'ci',
    });
    const gone = await rig.rpc.webhooks.add({
      url: `${receiver.url}/gone`,
      types: ['checkpoint.created'],
      name: 'old backend',
    });
    const healthyRow = page.locator(`#webhooks tr[data-id="${healthy.id}"]`);
    await healthyRow.waitFor();
    expect(await healthyRow.locator('.webhook-state').textContent()).toBe('ok');
    expect(await healthyRow.locator('.webhook-last').textContent()).toBe('—');
    expect(await healthyRow.locator('.webhook-status').textContent()).toBe('never');
    expect(await healthyRow.locator('.webhook-types').textContent()).toBe('checkpoint.created');

    // Two events of its types: the healthy endpoint gets both; the other answers 410 and is disabled at once, which
    // the panel shows from the live feed (webhook.disabled).
    await rig.rpc.checkpoint.create();
    await rig.rpc.checkpoint.create();
    await until(() => receiver.received.filter((r) => r.path === '/ok').length >= 2, 'two deliveries to /ok');
    const goneRow = page.locator(`#webhooks tr[data-id="${gone.id}"][data-state="disabled"]`);
    await goneRow.waitFor();
    expect(await goneRow.locator('.webhook-status').textContent()).toBe('410');
    await page.locator('#webhooks-count').filter({ hasText: '1 ok · 2 in all' }).waitFor();
    const delivered = receiver.received.filter((r) => r.path === '/ok');
    const [first, second] = delivered;
    await page
      .locator(`#webhooks tr[data-id="${healthy.id}"] .webhook-delivered`)
      .filter({ hasText: String(second!.seq) })
      .waitFor();
    expect(await healthyRow.locator('.webhook-backlog').textContent()).toBe('0');
    expect(await healthyRow.locator('.webhook-status').textContent()).toBe('204');
    expect(await healthyRow.locator('.webhook-last').textContent()).toMatch(/ago$|^just now$/);
    expect(await healthyRow.locator('button.webhook-enable').count()).toBe(0);
    await page.locator('.card-webhooks').screenshot({ path: join(ARTIFACTS, 'dashboard-webhooks.png') });

    // Enable: the receiver is back, the endpoint catches up on the event it refused and turns ok.
    receiver.setGone(false);
    await goneRow.locator('button.webhook-enable').click();
    await page.locator(`#webhooks tr[data-id="${gone.id}"][data-state="ok"]`).waitFor();
    await until(
      () => receiver.received.some((r) => r.path === '/gone' && r.seq === second!.seq),
      'the enabled endpoint to catch up',
    );
    expect((await rig.rpc.webhooks.list()).find((w) => w.id === gone.id)?.state).toBe('ok');

    // Redeliver after the seq before the first event: the dialog asks for it; both go out again with their ids.
    const before = receiver.received.length;
    await healthyRow.locator('button.webhook-redeliver').click();
    const seqInput = page.locator('#redeliver-seq');
    expect(await seqInput.inputValue()).toBe(String(second!.seq));
    await seqInput.fill(String(first!.seq - 1));
    await page.locator('#redeliver-confirm').click();
    await until(
      () => receiver.received.slice(before).filter((r) => r.path === '/ok').length >= 2,
      'the redelivered events',
    );
    const again = receiver.received.slice(before).filter((r) => r.path === '/ok');
    expect(again.slice(0, 2).map((r) => [r.seq, r.webhookId])).toEqual(
      [first!, second!].map((r) => [r.seq, r.webhookId]),
    );
    // Cancel sends nothing.
    await healthyRow.locator('button.webhook-redeliver').click();
    await page.locator('#redeliver-cancel').click();
    expect(await page.locator('#redeliver-dialog').evaluate((d) => d.hasAttribute('open'))).toBe(false);

    expect(problems).toEqual([]);
    await context.close();
  });
});
