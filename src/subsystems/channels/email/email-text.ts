/**
 * What the model reads of a mail: the new text only. The quoted history a mail client adds under a reply ("On …
 * wrote:", `>` lines) and the signature after `-- ` are cut by `email-reply-parser` (Crisp's port of GitHub's
 * EmailReplyParser); an HTML-only mail arrives here already as text (mailparser renders it, a `<blockquote>` as `>`
 * lines, so the quote goes the same way).
 */
import EmailReplyParser from 'email-reply-parser';

/** The longest text a mail gives a turn: a pasted log or a forwarded thread is cut, not a day's budget. */
export const MAX_MAIL_TEXT = 20_000;

/** The new text of a mail body, without quoted history or signature; the subject stands in for an empty body. */
export function visibleMailText(body: string | undefined, subject: string | undefined): string {
  const text = new EmailReplyParser().parseReply(normaliseNewlines(body ?? '')).trim();
  const chosen = text === '' ? (subject ?? '').trim() : text;
  return chosen.length > MAX_MAIL_TEXT ? `${chosen.slice(0, MAX_MAIL_TEXT)}\n[… cut]` : chosen;
}

function normaliseNewlines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}
