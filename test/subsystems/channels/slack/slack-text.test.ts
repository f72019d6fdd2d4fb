/** Slack's side of text, pure: Markdown as mrkdwn, events as the core's messages, a reply cut to what Slack takes. */
import { describe, expect, it } from 'vitest';
import { splitForAdapter } from '../../../../src/subsystems/channels/reply-split.js';
import { translateSlackEvent } from '../../../../src/subsystems/channels/slack/slack-inbound.js';
import { markdownToMrkdwn, mrkdwnBytes } from '../../../../src/subsystems/channels/slack/slack-mrkdwn.js';

const bot = { userId: 'UBOT', botId: 'BBOT', name: 'vigil' };

describe('markdownToMrkdwn', () => {
  it.each([
    ['**bold** and *italic* and _also_', '*bold* and _italic_ and _also_'],
    ['~~gone~~', '~gone~'],
    ['# Title with **bold**', '*Title with bold*'],
    ['- one\n* two', '• one\n• two'],
    ['see [docs](https://x.test/a?b=1&c=2)', 'see <https://x.test/a?b=1&amp;c=2|docs>'],
    ['a < b && c > d', 'a &lt; b &amp;&amp; c &gt; d'],
    ['`<@U1> **not bold**`', '`&lt;@U1&gt; **not bold**`'],
    ['```ts\nconst a = b < c;\n```', '```\nconst a = b &lt; c;\n```'],
    ['```\nunclosed', '```\nunclosed\n```'],
  ])('%j → %j', (markdown, mrkdwn) => {
    expect(markdownToMrkdwn(markdown)).toBe(mrkdwn);
  });

  it('measures the rendered bytes Slack counts', () => {
    expect(mrkdwnBytes('a&b')).toBe(7);
    expect(mrkdwnBytes('é')).toBe(2);
  });
});

describe('splitForAdapter', () => {
  it('cuts further a part whose rendered form is over what the adapter takes', () => {
    const adapter = { maxMessageLength: 4_000, fits: (part: string) => mrkdwnBytes(part) <= 4_000 };
    const parts = splitForAdapter('é '.repeat(3_000), adapter);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(mrkdwnBytes(part)).toBeLessThanOrEqual(4_000);
    expect(parts.join(' ').replace(/\s+/g, ' ').trim()).toBe('é '.repeat(3_000).trim());
  });

  it('keeps the character split alone when the adapter does not measure', () => {
    expect(splitForAdapter('x'.repeat(50), { maxMessageLength: 20 })).toEqual([
      'x'.repeat(20),
      'x'.repeat(20),
      'x'.repeat(10),
    ]);
  });
});

describe('translateSlackEvent', () => {
  const base = { channel: 'C1', user: 'U1', ts: '100.000001', text: 'hi' };

  it('takes a direct message, threaded on itself', () => {
    expect(translateSlackEvent({ ...base, type: 'message', channel: 'D1', channel_type: 'im' }, bot)).toEqual({
      kind: 'message',
      message: expect.objectContaining({
        chatId: 'D1',
        chatType: 'direct',
        messageId: '100.000001',
        threadId: '100.000001',
        at: 100_000,
      }),
    });
  });

  it('takes a mention, the tag shown as the bot’s name', () => {
    const mention = translateSlackEvent({ ...base, type: 'app_mention', text: '<@UBOT> hello' }, bot);
    expect(mention).toMatchObject({
      kind: 'message',
      message: { chatType: 'group', mentionsBot: true, text: '@vigil hello' },
    });
  });

  it('knows a thread the bot started, and asks about any other thread', () => {
    const inBotThread = {
      ...base,
      type: 'message',
      channel_type: 'channel',
      thread_ts: '90.0',
      parent_user_id: 'UBOT',
    };
    expect(translateSlackEvent(inBotThread, bot)).toMatchObject({
      kind: 'message',
      message: { repliesToBot: true, threadId: '90.0' },
    });
    const other = { ...inBotThread, parent_user_id: 'U2' };
    expect(translateSlackEvent(other, bot)).toMatchObject({ kind: 'thread', channel: 'C1', threadTs: '90.0' });
  });

  it.each([
    ['the bot’s own message', { ...base, type: 'message', user: 'UBOT' }],
    ['another bot post of this app', { ...base, type: 'message', bot_id: 'BBOT', user: 'U9' }],
    ['an edit', { ...base, type: 'message', subtype: 'message_changed' }],
    ['a join', { ...base, type: 'message', subtype: 'channel_join' }],
    ['a reaction', { ...base, type: 'reaction_added' }],
  ])('passes over %s', (_what, event) => {
    expect(translateSlackEvent(event, bot)).toEqual({ kind: 'none' });
  });
});
