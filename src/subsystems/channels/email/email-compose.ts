/**
 * The mail a reply goes out as: from the agent's address to the sender, `Re:` before the subject it answers,
 * `In-Reply-To` and `References` naming that mail (so every mail client threads it), and a Message-ID made from the
 * channel and the core's key for the message (turn and part), the same on every try: a resend after a crash is the
 * same mail, recognisable in the Sent mailbox and by any receiver that drops a Message-ID it already has.
 */
import type Mail from 'nodemailer/lib/mailer/index.js';

/** The mail being answered, as far as it is known. */
export interface OriginalMail {
  messageId: string;
  subject?: string;
  /** Its own `References`, oldest first. */
  references: readonly string[];
}

/** What a reply mail is made of. */
export interface ReplyMail {
  channel: string;
  key: string;
  from: string;
  to: string;
  text: string;
  /** The mail answered: by id always; subject and references when the mailbox still has it. */
  inReplyTo?: string;
  original?: OriginalMail;
}

/** The Message-ID of the reply message the core keys `key` on channel `channel`, for the agent at `address`. */
export function replyMessageId(channel: string, key: string, address: string): string {
  const domain = address.slice(address.lastIndexOf('@') + 1);
  const local = `vigil.${channel}.${key}`.replace(/[^A-Za-z0-9._-]/g, '_');
  return `<${local}@${domain}>`;
}

/** `Re: SUBJECT`, once: a subject already starting with `Re:` keeps its one. */
export function replySubject(subject: string | undefined): string {
  const trimmed = (subject ?? '').trim();
  if (trimmed === '') return 'Re: your message';
  return /^re:/i.test(trimmed) ? trimmed : `Re: ${trimmed}`;
}

/** The message ids a `References` header names, in order. */
export function parseReferences(value: string | undefined): string[] {
  return (value ?? '').match(/<[^<>\s]+>/g) ?? [];
}

/** The nodemailer options of the reply (composed to the raw mail that is both kept in Sent and sent). */
export function composeReply(mail: ReplyMail): Mail.Options {
  const messageId = replyMessageId(mail.channel, mail.key, mail.from);
  const parent = mail.original?.messageId ?? mail.inReplyTo;
  const references = parent === undefined ? [] : [...(mail.original?.references ?? []), parent];
  return {
    from: mail.from,
    to: mail.to,
    subject: replySubject(mail.original?.subject),
    text: mail.text,
    messageId,
    ...(parent === undefined ? {} : { inReplyTo: parent, references: [...new Set(references)] }),
    headers: { 'Auto-Submitted': 'auto-replied' },
  };
}
