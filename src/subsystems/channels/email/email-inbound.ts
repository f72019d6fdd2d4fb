/**
 * A mail, parsed by mailparser, as the channel core's message: the sender's address is both the chat and the sender
 * (a reply goes back to it), the Message-ID the message id (two copies of one mail are one turn), the text without
 * quoted history or signature. Mail the agent must not answer is passed over: its own, and automatic mail (RFC 3834
 * `Auto-Submitted`, `Precedence: bulk|list|junk`), so two responders never answer each other forever.
 */
import type { ParsedMail } from 'mailparser';
import type { InboundMessage } from '../channel-adapter.js';
import { authVerdict } from './email-auth.js';
import { visibleMailText } from './email-text.js';

/** What decides how a mail is read. */
export interface InboundContext {
  /** The agent's own address (lower case). */
  address: string;
  authServId?: string;
  /** Names a mail with no Message-ID by where it lies (UIDVALIDITY and UID). */
  fallbackId: string;
  now: number;
}

/** The message a parsed mail makes, or undefined for mail to pass over. */
export function inboundFromMail(mail: ParsedMail, context: InboundContext): InboundMessage | undefined {
  const sender = mail.from?.value[0];
  const address = sender?.address?.toLowerCase();
  if (address === undefined || address === '' || address === context.address) return undefined;
  if (isAutomatic(mail)) return undefined;
  const verdict = authVerdict(headerValues(mail, 'authentication-results'), domainOf(address), context.authServId);
  return {
    chatId: address,
    chatType: 'direct',
    messageId: mail.messageId ?? context.fallbackId,
    senderId: address,
    ...(sender?.name === undefined || sender.name === '' ? {} : { senderName: sender.name }),
    text: visibleMailText(mail.text, mail.subject),
    mentionsBot: false,
    repliesToBot: false,
    at: mail.date?.getTime() ?? context.now,
    ...(verdict === 'fail' ? { unauthenticated: true } : {}),
  };
}

function isAutomatic(mail: ParsedMail): boolean {
  const submitted = headerValues(mail, 'auto-submitted')[0]?.trim().toLowerCase();
  if (submitted !== undefined && submitted !== 'no') return true;
  const precedence = headerValues(mail, 'precedence')[0]?.trim().toLowerCase();
  return precedence === 'bulk' || precedence === 'list' || precedence === 'junk';
}

// A header's values as written, topmost first (mailparser's `headerLines` keeps the order and every repeat).
function headerValues(mail: ParsedMail, key: string): string[] {
  return mail.headerLines.filter((line) => line.key === key).map((line) => line.line.replace(/^[^:]*:\s*/, ''));
}

function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1);
}
