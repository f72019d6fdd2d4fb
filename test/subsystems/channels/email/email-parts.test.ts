/** The email channel's pure parts: who vouches for a From, what text a turn gets, the cursor, the reply's headers. */
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { authVerdict } from '../../../../src/subsystems/channels/email/email-auth.js';
import {
  composeReply,
  parseReferences,
  replyMessageId,
  replySubject,
} from '../../../../src/subsystems/channels/email/email-compose.js';
import { cursorAfter, planReceive } from '../../../../src/subsystems/channels/email/email-cursor.js';
import { inboundFromMail } from '../../../../src/subsystems/channels/email/email-inbound.js';
import { MAX_MAIL_TEXT, visibleMailText } from '../../../../src/subsystems/channels/email/email-text.js';

describe('Authentication-Results', () => {
  it.each([
    [['mx.example.net; dmarc=pass (p=reject) header.from=example.org'], 'pass'],
    [['mx.example.net; spf=pass smtp.mailfrom=ann@example.org; dkim=fail header.d=example.org'], 'pass'],
    [['mx.example.net; dkim=pass header.d=example.org; spf=fail smtp.mailfrom=x@evil.test'], 'pass'],
    [['mx.example.net; dkim=pass header.i=@mail.example.org'], 'fail'],
    [['mx.example.net; dkim=pass header.d=evil.test; spf=pass smtp.mailfrom=x@evil.test'], 'fail'],
    [['mx.example.net; dmarc=fail header.from=example.org'], 'fail'],
    [['mx.example.net; dmarc=pass header.from=evil.test'], 'fail'],
    [['mx.example.net; none'], 'fail'],
    [[], 'unchecked'],
  ])('%j for a From at example.org is %s', (values, verdict) => {
    expect(authVerdict(values, 'example.org')).toBe(verdict);
  });

  it('trusts only the topmost header: one a sender wrote below it counts for nothing', () => {
    const values = ['mx.example.net; dmarc=fail header.from=example.org', 'forged; dmarc=pass header.from=example.org'];
    expect(authVerdict(values, 'example.org')).toBe('fail');
  });

  it('with the server pinned, counts only its header, and refuses a mail without one', () => {
    const forgedAbove = ['other.test; dmarc=pass header.from=example.org', 'mx.example.net; dmarc=fail'];
    expect(authVerdict(forgedAbove, 'example.org', 'mx.example.net')).toBe('fail');
    expect(authVerdict(['mx.example.net; spf=pass smtp.mailfrom=example.org'], 'example.org', 'MX.example.net')).toBe(
      'pass',
    );
    expect(authVerdict([], 'example.org', 'mx.example.net')).toBe('fail');
  });

  it('aligns a subdomain From with its organisation (relaxed)', () => {
    expect(authVerdict(['mx; dkim=pass header.d=example.org'], 'mail.example.org')).toBe('pass');
    expect(authVerdict(['mx; dkim=pass header.d=ample.org'], 'example.org')).toBe('fail');
  });
});

describe('the text a mail gives a turn', () => {
  it('drops quoted history and a signature', () => {
    const body = 'Yes, Friday.\r\n\r\nOn Mon, 2 Mar 2026, Agent <agent@x> wrote:\r\n> Friday?\r\n> \r\n\r\n-- \r\nAnn';
    expect(visibleMailText(body, 'Re: plans')).toBe('Yes, Friday.');
  });

  it('keeps a text with no quote whole, uses the subject when the body is empty, and cuts a very long one', () => {
    expect(visibleMailText('line one\nline two', 's')).toBe('line one\nline two');
    expect(visibleMailText('', 'call me')).toBe('call me');
    expect(visibleMailText('x'.repeat(MAX_MAIL_TEXT + 10), 's')).toHaveLength(MAX_MAIL_TEXT + '\n[… cut]'.length);
  });
});

describe('reading a mail', () => {
  const context = { address: 'agent@vigil.test', fallbackId: '<uid.1.7@INBOX>', now: 5 };
  const parse = (headers: string, body = 'hello') => simpleParser(`${headers}\r\n\r\n${body}\r\n`);

  it('makes the sender the chat, the Message-ID the message, and an HTML mail text', async () => {
    const mail = await parse(
      'From: "Ann" <Ann@Example.org>\r\nMessage-ID: <a1@example.org>\r\nSubject: hi\r\nContent-Type: text/html',
      '<p>Hello <b>there</b></p>',
    );
    expect(inboundFromMail(mail, context)).toMatchObject({
      chatId: 'ann@example.org',
      senderId: 'ann@example.org',
      senderName: 'Ann',
      messageId: '<a1@example.org>',
      text: 'Hello there',
      chatType: 'direct',
    });
  });

  it('marks a From its server did not vouch for, and names a mail without Message-ID by where it lies', async () => {
    const mail = await parse('From: ann@example.org\r\nAuthentication-Results: mx; dmarc=fail header.from=example.org');
    expect(inboundFromMail(mail, context)).toMatchObject({ unauthenticated: true, messageId: '<uid.1.7@INBOX>' });
  });

  it.each([
    ['its own mail', 'From: agent@vigil.test'],
    ['an auto-reply', 'From: ann@example.org\r\nAuto-Submitted: auto-replied'],
    ['a list mail', 'From: ann@example.org\r\nPrecedence: list'],
    ['a mail with no From', 'Subject: x'],
  ])('passes over %s', async (_what, headers) => {
    expect(inboundFromMail(await parse(headers), context)).toBeUndefined();
  });
});

describe('the cursor', () => {
  it('starts where the mailbox stands, reads on from itself, and starts again when UIDVALIDITY changes', () => {
    const position = { uidValidity: '1700', uidNext: 42 };
    expect(planReceive(undefined, position)).toEqual({ kind: 'reset', cursor: '1700:42' });
    expect(planReceive('garbage', position)).toEqual({ kind: 'reset', cursor: '1700:42' });
    expect(planReceive('1700:7', position)).toEqual({ kind: 'from', uid: 7 });
    expect(planReceive('1699:7', position)).toEqual({ kind: 'reset', cursor: '1700:42' });
    expect(cursorAfter('1700', 7)).toBe('1700:8');
  });
});

describe('the reply mail', () => {
  it('threads under the mail it answers, with a Message-ID made from the channel and the key', () => {
    const options = composeReply({
      channel: 'mail',
      key: 't-abc-0001-ff.0',
      from: 'agent@vigil.test',
      to: 'ann@example.org',
      text: 'At noon.',
      inReplyTo: '<q@example.org>',
      original: { messageId: '<q@example.org>', subject: 'Lunch', references: ['<root@example.org>'] },
    });
    expect(options).toMatchObject({
      messageId: '<vigil.mail.t-abc-0001-ff.0@vigil.test>',
      subject: 'Re: Lunch',
      inReplyTo: '<q@example.org>',
      references: ['<root@example.org>', '<q@example.org>'],
      headers: { 'Auto-Submitted': 'auto-replied' },
    });
    expect(replyMessageId('mail', 't-1.0', 'agent@vigil.test')).toBe(
      replyMessageId('mail', 't-1.0', 'agent@vigil.test'),
    );
    expect(replySubject('RE: Lunch')).toBe('RE: Lunch');
    expect(replySubject(undefined)).toBe('Re: your message');
    expect(parseReferences(' <a@x>\r\n <b@y> junk')).toEqual(['<a@x>', '<b@y>']);
  });
});
