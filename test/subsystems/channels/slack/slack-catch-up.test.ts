/**
 * The catch-up from Slack's history after a downtime longer than its retries: from shortly before the durable
 * cursor's ts, every direct message and listed channel, following `next_cursor`, oldest first across them, bounded per
 * conversation, a conversation Slack refuses skipped and a 429 thrown for the core to wait out (nothing half-read).
 */
import { describe, expect, it } from 'vitest';
import { ChannelCallError } from '../../../../src/subsystems/channels/channel-adapter.js';
import { silentLogger } from '../../../../src/shared/logger.js';
import {
  CATCH_UP_OVERLAP_MS,
  CATCH_UP_PER_CONVERSATION,
  readMissed,
  type HistoryMessage,
  type HistoryReader,
} from '../../../../src/subsystems/channels/slack/slack-catch-up.js';
import { SlackAdapter } from '../../../../src/subsystems/channels/slack/slack-adapter.js';
import { createFakeSlack } from '../../../fixtures/fake-slack.js';

const BOT = { userId: 'UBOT', botId: 'BBOT' };

/** A reader over fixed conversations (newest first, as Slack answers), two messages a page. */
function reader(conversations: Record<string, HistoryMessage[]>, ims: string[], refused: string[] = []) {
  const calls: string[] = [];
  const page = <T>(items: T[], cursor: string | undefined) => {
    const start = Number(cursor ?? 0);
    return { items: items.slice(start, start + 2), ...(start + 2 < items.length ? { next: String(start + 2) } : {}) };
  };
  const history: HistoryReader = {
    directChannels: (cursor) => {
      calls.push(`list ${cursor ?? ''}`);
      return Promise.resolve(page(ims, cursor));
    },
    history: (channel, oldest, _limit, cursor) => {
      calls.push(`history ${channel} ${oldest} ${cursor ?? ''}`);
      if (refused.includes(channel)) return Promise.reject(new ChannelCallError('refused', 'not_in_channel'));
      const newestFirst = [...(conversations[channel] ?? [])]
        .reverse()
        .filter((each) => Number(each.ts) > Number(oldest ?? 0));
      return Promise.resolve(page(newestFirst, cursor));
    },
    replies: (channel, ts) => {
      calls.push(`replies ${channel} ${ts}`);
      return Promise.resolve({ items: (conversations[`${channel}/${ts}`] ?? []).slice() });
    },
  };
  return { history, calls };
}

const msg = (ts: string, text: string, user = 'U1', extra: Partial<HistoryMessage> = {}): HistoryMessage => ({
  type: 'message',
  user,
  text,
  ts,
  ...extra,
});

describe('readMissed', () => {
  it('reads every page of every conversation since the cursor’s ts (with its overlap), oldest first', async () => {
    const { history, calls } = reader(
      {
        D1: [msg('1000.000001', 'seen'), msg('2000.000001', 'a'), msg('2000.000004', 'd'), msg('2000.000005', 'e')],
        D2: [msg('2000.000002', 'b', 'U1', { reply_count: 1, latest_reply: '2000.000008', thread_ts: '2000.000002' })],
        'D2/2000.000002': [msg('2000.000002', 'b'), msg('2000.000008', 'a reply to myself')],
        C1: [
          msg('2000.000003', 'root', 'U2', { reply_count: 2, latest_reply: '2000.000007', thread_ts: '2000.000003' }),
          msg('2000.000006', 'chatter', 'U2'),
        ],
        'C1/2000.000003': [
          msg('2000.000003', 'root', 'U2'),
          msg('2000.000003', 'bot answer', 'UBOT', { bot_id: 'BBOT' }),
          msg('2000.000007', 'in the bot’s thread', 'U2'),
        ],
      },
      ['D1', 'D2', 'D3'],
      ['C2'],
    );
    const skipped: string[] = [];
    const since = '2000.000001';
    const read = await readMissed(history, {
      since,
      groups: ['C1', 'C2'],
      bot: BOT,
      knownThreads: () => [],
      skipped: (channel) => skipped.push(channel),
    });
    expect(read.events.map((event) => [event.channel, event.channel_type, event.text])).toEqual([
      ['D1', 'im', 'a'],
      ['D2', 'im', 'b'],
      ['C1', 'channel', 'root'],
      ['D1', 'im', 'd'],
      ['D1', 'im', 'e'],
      ['C1', 'channel', 'chatter'],
      ['C1', 'channel', 'in the bot’s thread'],
      ['D2', 'im', 'a reply to myself'],
    ]);
    expect(read.events.at(-2)).toMatchObject({ thread_ts: '2000.000003' });
    expect(read.botThreads).toEqual([['C1', '2000.000003']]);
    expect(read.newest).toBe('2000.000008');
    expect(skipped).toEqual(['C2']);
    // The direct channels' list and D1's history took two pages each; `oldest` is the cursor's ts less the overlap.
    const oldest = String(2000 - CATCH_UP_OVERLAP_MS / 1000) + '.000001';
    expect(calls).toContain('list 2');
    expect(calls).toContain(`history D1 ${oldest} 2`);
    expect(read.events.some((event) => event.text === 'seen')).toBe(false);
  });

  it('answers nothing more than a day older than the newest message read', async () => {
    const { history } = reader({ D1: [msg('1000.500000', 'stale'), msg('87410.000000', 'fresh')] }, ['D1']);
    const read = await readMissed(history, {
      since: '1000.000000',
      groups: [],
      bot: BOT,
      knownThreads: () => [],
      skipped: () => undefined,
    });
    expect(read.events.map((event) => event.text)).toEqual(['fresh']);
  });

  it('learns only where each conversation stands when nothing was seen yet', async () => {
    const { history } = reader({ D1: [msg('2000.000001', 'before the first start')] }, ['D1']);
    const read = await readMissed(history, {
      since: undefined,
      groups: [],
      bot: BOT,
      knownThreads: () => [],
      skipped: () => undefined,
    });
    expect(read).toEqual({ events: [], botThreads: [], newest: '2000.000001' });
  });
});

describe('SlackAdapter catch-up', () => {
  it('throws a 429 for the core to wait out, then reads history once, bounded per conversation', async () => {
    const fake = await createFakeSlack({ botToken: 'xoxb-catch-up', appToken: 'xapp-catch-up' });
    const adapter = new SlackAdapter({ botToken: 'xoxb-catch-up', apiUrl: fake.apiUrl, log: silentLogger, groups: [] });
    try {
      const seen = fake.userSends({
        channel: 'D0001',
        channelType: 'im',
        user: 'U0001',
        text: 'seen',
        undelivered: true,
      });
      const sent = Array.from({ length: CATCH_UP_PER_CONVERSATION + 20 }, (_, i) =>
        fake.userSends({ channel: 'D0001', channelType: 'im', user: 'U0001', text: `m${i}`, undelivered: true }),
      );
      await adapter.connect();
      fake.rateLimit('conversations.history', 5);
      const cursor = `earlier:9:${seen.ts}`;
      const signal = AbortSignal.timeout(5_000);
      await expect(adapter.receive(cursor, signal)).rejects.toMatchObject({
        kind: 'rate_limited',
        retryAfterMs: 5_000,
      });
      const updates = await adapter.receive(cursor, signal);
      // The newest CATCH_UP_PER_CONVERSATION, oldest first: older ones (and `seen`, at the cursor's ts) are beyond the bound.
      const texts = updates.map((update) => update.message?.text);
      expect(texts).toEqual(sent.slice(-CATCH_UP_PER_CONVERSATION).map((message) => message.text));
      expect(updates.at(-1)!.cursorAfter.split(':')[2]).toBe(sent.at(-1)!.ts);
      expect(fake.calls.filter((call) => call.method === 'conversations.history').map((call) => call.status)).toEqual([
        429, 200,
      ]);
    } finally {
      await adapter.close();
      await fake.close();
    }
  });
});
