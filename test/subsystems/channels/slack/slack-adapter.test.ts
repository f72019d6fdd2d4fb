/**
 * The Slack adapter against the fake Slack over real sockets: an envelope is acknowledged only when the core
 * receives from a cursor past it (so one whose message never became durable is delivered again, with
 * `retry_attempt`), replies go into the thread, Slack's refusals become the core's failure kinds, and no token is in
 * any error.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ChannelCallError, type InboundUpdate } from '../../../../src/subsystems/channels/channel-adapter.js';
import { SlackAdapter } from '../../../../src/subsystems/channels/slack/slack-adapter.js';
import { silentLogger } from '../../../../src/shared/logger.js';
import { createFakeSlack } from '../../../fixtures/fake-slack.js';

const BOT_TOKEN = 'xoxb-test-bot-token-never-shown';
const APP_TOKEN = 'xapp-test-app-token-never-shown';

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

async function rig(options: { ackTimeoutMs?: number; botToken?: string } = {}) {
  const fake = await createFakeSlack({
    botToken: BOT_TOKEN,
    appToken: APP_TOKEN,
    ackTimeoutMs: options.ackTimeoutMs ?? 3_000,
  });
  const adapter = new SlackAdapter({
    botToken: options.botToken ?? BOT_TOKEN,
    appToken: APP_TOKEN,
    apiUrl: fake.apiUrl,
    log: silentLogger,
  });
  const stopping = new AbortController();
  open.push(async () => {
    stopping.abort();
    await adapter.close();
    await fake.close();
  });
  return { fake, adapter, signal: stopping.signal };
}

const waitFor = async (done: () => boolean, what: string) => {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!done()) throw new Error(`timed out waiting for ${what}`);
};

describe('SlackAdapter', () => {
  it('acknowledges an envelope only once the core receives past it; until then Slack delivers it again', async () => {
    const { fake, adapter, signal } = await rig({ ackTimeoutMs: 150 });
    expect(await adapter.connect()).toEqual({ display: '@vigil' });
    const sent = fake.userSends({ channel: 'D0001', channelType: 'im', user: 'U0001', text: 'hello' });
    const first = await adapter.receive(undefined, signal);
    expect(first).toEqual([
      {
        cursorAfter: expect.any(String),
        message: expect.objectContaining({
          chatId: 'D0001',
          chatType: 'direct',
          messageId: sent.ts,
          senderId: 'U0001',
          text: 'hello',
          threadId: sent.ts,
        }),
      },
    ]);
    // Not durable yet (no receive past it): Slack's ack timeout passes and the event comes again, retry_attempt 1.
    await waitFor(() => fake.socket.deliveries.length >= 2, 'the redelivery');
    expect(fake.socket.deliveries.slice(0, 2)).toEqual([
      { eventId: expect.any(String), retryAttempt: 0 },
      { eventId: fake.socket.deliveries[0]!.eventId, retryAttempt: 1 },
    ]);
    const again = await adapter.receive(first.at(-1)!.cursorAfter, signal);
    // The redelivery is the same message (the inbox's record makes it nothing); receiving past it acknowledges both.
    expect(again.length).toBeGreaterThanOrEqual(1);
    expect(again.every((update) => update.message?.messageId === sent.ts)).toBe(true);
    let cursor = again.at(-1)!.cursorAfter;
    const waiting = adapter.receive(cursor, signal);
    await waitFor(() => fake.socket.events.every((event) => event.acked), 'the acknowledgements');
    const deliveries = fake.socket.deliveries.length;
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(fake.socket.deliveries.length).toBe(deliveries);
    fake.userSends({ channel: 'D0001', channelType: 'im', user: 'U0001', text: 'next' });
    // Only the new message is news (a redelivery already on its way when the acknowledgement went may come too).
    const woke = await waiting;
    cursor = woke.at(-1)?.cursorAfter ?? cursor;
    const texts = woke.map((update) => update.message?.text);
    while (!texts.includes('next')) {
      const page = await adapter.receive(cursor, signal);
      cursor = page.at(-1)?.cursorAfter ?? cursor;
      texts.push(...page.map((update) => update.message?.text));
    }
    expect(texts.filter((text) => text !== 'hello')).toEqual(['next']);
  });

  it('takes a channel mention once per Slack message (message and app_mention), and a thread the bot is in', async () => {
    const { fake, adapter, signal } = await rig();
    await adapter.connect();
    const mention = fake.userSends({ channel: 'C0001', user: 'U0002', text: `<@${fake.botUserId}> what time is it?` });
    const updates: InboundUpdate[] = [];
    while (updates.length < 2) updates.push(...(await adapter.receive(updates.at(-1)?.cursorAfter, signal)));
    const messages = updates.map((update) => update.message!);
    expect(messages.map((message) => [message.chatId, message.messageId, message.mentionsBot])).toEqual([
      ['C0001', mention.ts, true],
      ['C0001', mention.ts, true],
    ]);
    expect(messages[0]!.text).toBe('@vigil what time is it?');
    // The bot answers in the thread; a later message there, with no mention, is for it.
    await adapter.place('C0001', '…', mention.ts);
    const followUp = fake.userSends({ channel: 'C0001', user: 'U0002', text: 'and tomorrow?', threadTs: mention.ts });
    const other = fake.userSends({ channel: 'C0001', user: 'U0002', text: 'just chatting' });
    const more: InboundUpdate[] = [];
    while (more.length < 2)
      more.push(...(await adapter.receive(more.at(-1)?.cursorAfter ?? updates.at(-1)!.cursorAfter, signal)));
    expect(more.map((update) => update.message)).toEqual([
      expect.objectContaining({ messageId: followUp.ts, repliesToBot: true, threadId: mention.ts }),
      expect.objectContaining({ messageId: other.ts, mentionsBot: false, repliesToBot: false }),
    ]);
  });

  it('knows a thread the bot wrote in after a restart by asking Slack (conversations.replies)', async () => {
    const { fake, adapter, signal } = await rig();
    await adapter.connect();
    const root = fake.userSends({ channel: 'C0002', user: 'U0003', text: 'a question for everyone' });
    await adapter.place('C0002', 'an answer', root.ts);
    const fresh = new SlackAdapter({
      botToken: BOT_TOKEN,
      appToken: APP_TOKEN,
      apiUrl: fake.apiUrl,
      log: silentLogger,
    });
    open.push(() => fresh.close());
    await adapter.close();
    await fresh.connect();
    const reply = fake.userSends({ channel: 'C0002', user: 'U0003', text: 'thanks', threadTs: root.ts });
    let found: InboundUpdate | undefined;
    let cursor: string | undefined;
    while (found === undefined) {
      const page = await fresh.receive(cursor, signal);
      cursor = page.at(-1)?.cursorAfter;
      found = page.find((update) => update.message?.messageId === reply.ts);
    }
    expect(found.message).toMatchObject({ repliesToBot: true, threadId: root.ts });
    expect(fake.calls.filter((call) => call.method === 'conversations.replies')).toHaveLength(1);
  });

  it('opens a new connection when Slack closes one, and what was not acknowledged comes again on it', async () => {
    const { fake, adapter, signal } = await rig();
    await adapter.connect();
    const first = fake.userSends({ channel: 'D0001', channelType: 'im', user: 'U0001', text: 'before' });
    const page = await adapter.receive(undefined, signal);
    expect(page.map((update) => update.message?.messageId)).toEqual([first.ts]);
    fake.socket.dropConnections();
    // The drop ends the wait with nothing; the next receive connects again.
    let cursor = page.at(-1)!.cursorAfter;
    const seen: string[] = [];
    const second = fake.userSends({ channel: 'D0001', channelType: 'im', user: 'U0001', text: 'after' });
    while (!seen.includes(second.ts)) {
      const next = await adapter.receive(cursor, signal);
      cursor = next.at(-1)?.cursorAfter ?? cursor;
      seen.push(...next.flatMap((update) => (update.message === undefined ? [] : [update.message.messageId])));
    }
    // What the new connection brings again (after what the catch-up read from history) is received past, as the core
    // does, until both are acknowledged.
    for (let round = 0; round < 20 && !fake.socket.events.every((event) => event.acked); round++) {
      const next = await adapter.receive(cursor, AbortSignal.timeout(300)).catch(() => []);
      cursor = next.at(-1)?.cursorAfter ?? cursor;
    }
    await waitFor(() => fake.socket.events.every((event) => event.acked), 'both acknowledged');
    expect(fake.socket.connections).toBe(1);
  });

  it('places into the thread, edits as mrkdwn, and measures what an edit may hold', async () => {
    const { fake, adapter } = await rig();
    await adapter.connect();
    const asked = fake.userSends({ channel: 'C0003', user: 'U0004', text: `<@${fake.botUserId}> hi` });
    const ts = await adapter.place('C0003', '…', asked.ts);
    await adapter.edit('C0003', ts, '**Bold**, *soft* and [a link](https://example.com/?a=1&b=2) <tag>');
    await adapter.edit('C0003', ts, '**Bold**, *soft* and [a link](https://example.com/?a=1&b=2) <tag>');
    const [message] = fake.botMessages('C0003');
    expect(message).toMatchObject({ ts, threadTs: asked.ts });
    expect(message!.text).toBe('*Bold*, _soft_ and <https://example.com/?a=1&amp;b=2|a link> &lt;tag&gt;');
    expect(adapter.fits('a'.repeat(4_000))).toBe(true);
    expect(adapter.fits('é'.repeat(2_001))).toBe(false);
    await expect(adapter.edit('C0003', ts, 'é'.repeat(2_001))).rejects.toMatchObject({
      kind: 'refused',
      message: 'chat.update: msg_too_long',
    });
  });

  it('turns Slack’s refusals into the core’s kinds, 429 with its Retry-After and never retried by the client', async () => {
    const { fake, adapter } = await rig();
    await adapter.connect();
    fake.userSends({ channel: 'C0004', user: 'U0005', text: 'hello' });
    fake.rateLimit('chat.postMessage', 7);
    const limited = await adapter.place('C0004', '…', undefined).catch((err: unknown) => err);
    expect(limited).toMatchObject({ kind: 'rate_limited', retryAfterMs: 7_000 });
    // One request, answered 429: the client did not try again on its own.
    expect(fake.calls.filter((call) => call.method === 'chat.postMessage').map((call) => call.status)).toEqual([429]);
    await expect(adapter.place('C9999', '…', undefined)).rejects.toMatchObject({
      kind: 'refused',
      message: 'chat.postMessage: channel_not_found',
    });
    await expect(adapter.edit('C0004', '1.000001', 'x')).rejects.toMatchObject({ kind: 'gone' });
  });

  it('reports a refused token as unauthorized with no token in the message', async () => {
    const { adapter } = await rig({ botToken: 'xoxb-wrong-token-secret' });
    const err = await adapter.connect().catch((caught: unknown) => caught);
    expect(err).toBeInstanceOf(ChannelCallError);
    expect(err).toMatchObject({ kind: 'unauthorized', message: 'auth.test: invalid_auth' });
    expect(String((err as Error).message)).not.toContain('secret');
  });
});
