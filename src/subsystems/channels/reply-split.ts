/**
 * A reply cut into the parts a platform takes: first to its character limit, then, where the adapter measures its
 * rendered form (Slack counts the bytes of its escaped text), each part that still does not fit is cut again at half
 * the limit, so no part is ever one the platform refuses as too long.
 */
import type { ChannelAdapter } from './channel-adapter.js';
import { MIN_SPLIT_LIMIT, splitReply } from './telegram/telegram-text.js';

/** `markdown` as parts within `adapter`'s limit and, when it measures them, its rendered size. */
export function splitForAdapter(
  markdown: string,
  adapter: Pick<ChannelAdapter, 'maxMessageLength' | 'fits'>,
): string[] {
  return cut(markdown, adapter.maxMessageLength, adapter.fits?.bind(adapter));
}

function cut(markdown: string, limit: number, fits: ((part: string) => boolean) | undefined): string[] {
  const parts = splitReply(markdown, limit);
  if (fits === undefined) return parts;
  const smaller = Math.max(MIN_SPLIT_LIMIT, Math.floor(limit / 2));
  return parts.flatMap((part) => (fits(part) || smaller === limit ? [part] : cut(part, smaller, fits)));
}
