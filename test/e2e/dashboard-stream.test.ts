/**
 * The conversation panel shows a reply as the model writes it: in headless Chromium against a real daemon child whose
 * Anthropic thinker streams from the fake Messages API, the fake's events held back at gates the test opens, the
 * draft's text is seen to grow between gates before the final agent.reply replaces it with the whole text.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  message,
  pendingTurnIds,
  startFakeMessagesApi,
  text,
  toolUse,
  type FakeMessagesApi,
  type FakeResponse,
  type RecordedRequest,
} from '../fixtures/fake-messages-api.js';
import { messageEvents } from '../fixtures/fake-messages-stream.js';
import { FAST_ENV, startDaemon, type DaemonProcess } from './daemon-process.js';
import { ROOT } from './run-process.js';

const CHROMIUM = process.env['VIGIL_CHROMIUM'] ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-sync'];
const ARTIFACTS = join(ROOT, 'test-artifacts');
const TOKEN = 'stream-dashboard-token-5e1f0a';
const WAIT_MS = 15_000;
const REPLY =
  'High water at Brest today is at 06:12 and again at 18:40; the range is 6.1 m, a spring tide, so the ' +
  'causeway floods early. Low water falls at 12:25. Bring a coat: the wind turns north-west by evening.';

/** A promise the test resolves: the fake holds the stream at it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** The index of the first streamed event after which the reply's text has `chars` characters in the tool input. */
function eventWithText(turnId: string, chars: number): number {
  const events = messageEvents({
    id: 'm',
    model: 'm',
    content: [{ type: 'tool_use', id: 't', name: 'reply', input: { turnId, text: REPLY } }],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  });
  let json = '';
  for (const [i, { data }] of events.entries()) {
    json += (data['delta'] as { partial_json?: string } | undefined)?.partial_json ?? '';
    const start = json.indexOf('"text":"');
    if (start >= 0 && json.length - start - 8 >= chars) return i;
  }
  throw new Error(`the reply has fewer than ${chars} characters`);
}

const draftText = (page: Page) => page.locator('#conversation li.chat-draft .chat-text').textContent();

// Never skipped: without a browser the panel is untested, so a missing Chromium fails here (.ci/run installs it).
describe('the conversation panel streaming a reply in Chromium against a real daemon', () => {
  let dataDir: string;
  let daemon: DaemonProcess;
  let api: FakeMessagesApi;
  let url: string;
  let browser: Browser;
  const first = gate();
  const second = gate();
  const rest = gate();

  /** The think of the turn streams its reply through the gates; every later call ends the think. */
  function answer(request: RecordedRequest): FakeResponse {
    const turnId = pendingTurnIds(request)[0];
    const last = request.body?.messages?.at(-1);
    const afterTools = Array.isArray(last?.content) && last.content.some((b: any) => b.type === 'tool_result');
    if (turnId === undefined || afterTools) return message([text('done')]);
    const gates = new Map([
      [eventWithText(turnId, 20) + 1, first.opened],
      [eventWithText(turnId, 60) + 1, second.opened],
      [eventWithText(turnId, 100) + 1, rest.opened],
    ]);
    return {
      kind: 'paced-stream',
      message: message([toolUse('reply', { turnId, text: REPLY })]),
      pace: (i) => gates.get(i),
    };
  }

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(
        `Chromium is not installed (looked for ${CHROMIUM}); .ci/run installs it, or set VIGIL_CHROMIUM.`,
      );
    await mkdir(ARTIFACTS, { recursive: true });
    api = await startFakeMessagesApi();
    for (let i = 0; i < 50; i += 1) api.enqueue({ kind: 'respond', respond: answer });
    dataDir = await mkdtemp(join(tmpdir(), 'vigil-stream-e2e-'));
    daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0', '--thinker', 'anthropic'], {
      ...FAST_ENV,
      VIGIL_BEAT_MS: '50',
      VIGIL_BEAT_MIN_MS: '25',
      VIGIL_BEAT_MAX_MS: '100',
      VIGIL_DEBRIEF_AFTER_S: '3600',
      VIGIL_TOKEN: TOKEN,
      ANTHROPIC_API_KEY: 'sk-test',
      ANTHROPIC_BASE_URL: api.url,
    });
    const listening = await daemon.waitFor((line) => line.msg === 'gateway listening', 20_000, 'gateway listening');
    url = String(listening.url);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    for (const g of [first, second, rest]) g.open();
    await browser?.close();
    if (daemon !== undefined && daemon.proc.exitCode === null) {
      daemon.kill('SIGKILL');
      await daemon.exited;
    }
    await api?.close();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  it('shows the reply growing as a draft before the final reply replaces it with the whole text', async () => {
    const problems: string[] = [];
    const context = await browser.newContext({ viewport: { width: 1280, height: 1100 } });
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    page.on('console', (entry) => {
      if (entry.type() === 'error') problems.push(`console error: ${entry.text()}`);
    });
    await page.goto(`${url}/?token=${TOKEN}`);
    await page.locator('body[data-ready="true"]').waitFor();

    // Sent from the page, on the connection whose feed names agent.reply_delta: the think streams for it.
    await page.fill('#send-text', 'When is high water?');
    await page.press('#send-text', 'Enter');
    await page.locator('#conversation li.chat-draft').waitFor();
    await expect.poll(async () => (await draftText(page))?.length ?? 0, { timeout: WAIT_MS }).toBe(20);
    const before = (await draftText(page))!;
    expect(REPLY.startsWith(before)).toBe(true);
    expect(await page.locator('#conversation li.chat-reply:not(.chat-draft)').count()).toBe(0);

    first.open();
    await expect.poll(async () => (await draftText(page))?.length ?? 0, { timeout: WAIT_MS }).toBe(60);
    const grown = (await draftText(page))!;
    expect(grown.startsWith(before) && REPLY.startsWith(grown)).toBe(true);
    expect(await page.locator('#conversation li.chat-reply:not(.chat-draft)').count()).toBe(0);
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-reply-draft.png'), fullPage: true });

    second.open();
    await expect.poll(async () => (await draftText(page))?.length ?? 0, { timeout: WAIT_MS }).toBe(100);
    rest.open();
    const final = page.locator('#conversation li.chat-reply:not(.chat-draft) .chat-text');
    await expect.poll(() => final.textContent(), { timeout: WAIT_MS }).toBe(REPLY);
    expect(await page.locator('#conversation li.chat-draft').count()).toBe(0);
    expect(api.requests[0]!.body?.stream).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });
});
