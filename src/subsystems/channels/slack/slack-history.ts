/**
 * The Web API calls a catch-up reads history with (`conversations.list`, `.history`, `.replies`), through the
 * adapter's client and its translation of failures; each page's `response_metadata.next_cursor` is the next page.
 */
import type { WebClient } from '@slack/web-api';
import type { HistoryMessage, HistoryReader, SlackPage } from './slack-catch-up.js';

/** A call made through the adapter: its failure as a `ChannelCallError`. */
export type SlackCall = <T>(method: string, request: () => Promise<T>) => Promise<T>;

/** `web`'s history calls as a catch-up reads them. */
export function historyReader(web: WebClient, call: SlackCall): HistoryReader {
  const from = (cursor: string | undefined) => (cursor === undefined ? {} : { cursor });
  return {
    async directChannels(cursor) {
      const page = await call('conversations.list', () =>
        web.conversations.list({ types: 'im', limit: 200, exclude_archived: true, ...from(cursor) }),
      );
      return pageOf(
        (page.channels ?? []).flatMap((each) => (each.id === undefined ? [] : [each.id])),
        page,
      );
    },
    async history(channel, oldest, limit, cursor) {
      const page = await call('conversations.history', () =>
        web.conversations.history({ channel, limit, ...(oldest === undefined ? {} : { oldest }), ...from(cursor) }),
      );
      return pageOf((page.messages ?? []) as HistoryMessage[], page);
    },
    async replies(channel, threadTs, cursor) {
      const page = await call('conversations.replies', () =>
        web.conversations.replies({ channel, ts: threadTs, limit: 200, ...from(cursor) }),
      );
      return pageOf((page.messages ?? []) as HistoryMessage[], page);
    },
  };
}

function pageOf<T>(items: T[], answer: { response_metadata?: { next_cursor?: string } }): SlackPage<T> {
  const next = answer.response_metadata?.next_cursor;
  return next === undefined || next === '' ? { items } : { items, next };
}
