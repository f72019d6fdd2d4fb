/**
 * Turns a model's Markdown reply into Telegram messages: parts within the text limit, each rendered as Telegram HTML,
 * with the part's own text as the fallback when Telegram refuses the HTML anyway.
 */
import { wellFormed } from './telegram-html-escape.js';

export { MIN_SPLIT_LIMIT, TELEGRAM_TEXT_LIMIT, splitReply } from './markdown-split.js';
export { markdownToTelegramHtml } from './telegram-html.js';

/** A part as Telegram shows it with no parse mode: the Markdown as written (lone surrogates aside), so nothing is lost. */
export function plainTextOf(markdown: string): string {
  return wellFormed(markdown);
}
