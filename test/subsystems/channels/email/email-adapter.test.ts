/**
 * The email adapter against a real Dovecot and a real SMTP server (smtp-server delivering into Dovecot): the cursor,
 * threading, and the Sent mailbox as the ledger that keeps a send a crash cut short from going twice.
 */
import { createTransport } from 'nodemailer';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ChannelCallError } from '../../../../src/subsystems/channels/channel-adapter.js';
import { EmailAdapter } from '../../../../src/subsystems/channels/email/email-adapter.js';
import { replyMessageId } from '../../../../src/subsystems/channels/email/email-compose.js';
import { startDovecot, type Dovecot } from '../../../fixtures/dovecot.js';
import { startSmtpSink, SINK_AUTHSERV_ID, type SmtpSink } from '../../../fixtures/smtp-sink.js';

const AGENT = 'agent@vigil.test';
const ANN = 'ann@example.org';
const USERS = { [AGENT]: 'agent-pw', [ANN]: 'ann-pw' };

let dovecot: Dovecot;
let sink: SmtpSink;
const adapters: EmailAdapter[] = [];

beforeAll(async () => {
  dovecot = await startDovecot(USERS);
  sink = await startSmtpSink(dovecot, USERS);
}, 30_000);
afterAll(async () => {
  await sink?.close();
  await dovecot?.stop();
});
afterEach(async () => {
  for (const adapter of adapters.splice(0)) await adapter.close();
});

function adapterFor(channel: string): EmailAdapter {
  const adapter = new EmailAdapter({
    channel,
    imapUrl: dovecot.url,
    smtpUrl: sink.url,
    user: AGENT,
    password: USERS[AGENT],
    address: AGENT,
    mailbox: 'INBOX',
    sentMailbox: 'Sent',
    authServId: SINK_AUTHSERV_ID,
    idleMs: 2_000,
  });
  adapters.push(adapter);
  return adapter;
}

async function annSends(subject: string, text: string, messageId: string): Promise<void> {
  const transport = createTransport({
    host: '127.0.0.1',
    port: sink.port,
    secure: false,
    auth: { user: ANN, pass: USERS[ANN] },
  });
  await transport.sendMail({ from: ANN, to: AGENT, subject, text, messageId });
  transport.close();
}

const signal = new AbortController().signal;

describe('the email adapter', () => {
  it('starts its cursor where the mailbox stands, then reads new mail from it, IDLE waking it', async () => {
    const adapter = adapterFor('a1');
    await adapter.connect(signal);
    await annSends('old', 'before the channel', '<old-1@example.org>');
    const [start] = await adapter.receive(undefined, signal);
    expect(start?.message).toBeUndefined();
    const cursor = start!.cursorAfter;
    expect(cursor).toMatch(/^\d+:\d+$/);
    // Nothing new: the receive waits in IDLE until a mail comes.
    const waiting = adapter.receive(cursor, signal);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await annSends('Plans', 'are we on for Friday?\n\n-- \nAnn', '<new-1@example.org>');
    const updates = await waiting;
    expect(updates).toHaveLength(1);
    expect(updates[0]!.message).toMatchObject({
      chatId: ANN,
      senderId: ANN,
      messageId: '<new-1@example.org>',
      text: 'are we on for Friday?',
      chatType: 'direct',
    });
    expect(updates[0]!.message!.unauthenticated).toBeUndefined();
    // A cursor of another UIDVALIDITY (the mailbox was renumbered) starts again from now: nothing replayed.
    const [reset] = await adapter.receive(`1:1`, signal);
    expect(reset).toEqual({ cursorAfter: updates[0]!.cursorAfter });
  }, 30_000);

  it('sends a reply threaded under the mail it answers, kept in Sent, and never twice for one key', async () => {
    const adapter = adapterFor('a2');
    await adapter.connect(signal);
    await annSends('Lunch', 'where?', '<lunch-1@example.org>');
    const before = sink.accepted();
    const sent = await adapter.send(ANN, 'At noon.', '<lunch-1@example.org>', 't-1.0');
    expect(sent).toEqual({ messageId: replyMessageId('a2', 't-1.0', AGENT), doubled: false });
    const again = await adapter.send(ANN, 'At noon.', '<lunch-1@example.org>', 't-1.0');
    expect(again).toEqual(sent);
    expect(sink.accepted()).toBe(before + 1);
    const reply = (await dovecot.mails(ANN)).find((mail) => mail.raw.includes(sent.messageId))!;
    expect(reply.raw).toMatch(/^Subject: Re: Lunch$/m);
    expect(reply.raw).toMatch(/^In-Reply-To: <lunch-1@example.org>$/m);
    expect(reply.raw).toMatch(/^References: <lunch-1@example.org>$/m);
    expect(reply.raw).toMatch(/^From: agent@vigil.test$/m);
    const kept = (await dovecot.mails(AGENT, 'Sent')).filter((mail) => mail.raw.includes(sent.messageId));
    expect(kept).toHaveLength(1);
    expect(kept[0]!.flags).not.toContain('\\Draft');
  }, 30_000);

  it('sends again a reply whose draft a crash left in Sent, reporting it doubled', async () => {
    const adapter = adapterFor('a3');
    await adapter.connect(signal);
    const messageId = replyMessageId('a3', 't-2.0', AGENT);
    // A crash after the draft was kept and before the SMTP server's answer was heard.
    const draft = `From: ${AGENT}\r\nTo: ${ANN}\r\nSubject: Re: x\r\nMessage-ID: ${messageId}\r\n\r\nhi\r\n`;
    const imap = await dovecot.client(AGENT);
    await imap.append('Sent', draft, ['\\Seen', '\\Draft']);
    await imap.logout();
    const before = sink.accepted();
    const sent = await adapter.send(ANN, 'hi', undefined, 't-2.0');
    expect(sent).toEqual({ messageId, doubled: true });
    expect(sink.accepted()).toBe(before + 1);
    const kept = (await dovecot.mails(AGENT, 'Sent')).filter((mail) => mail.raw.includes(messageId));
    expect(kept.map((mail) => mail.flags.includes('\\Draft'))).toEqual([false]);
  }, 30_000);

  it('reports a refusal for good, and leaves no draft that would later read as an unknown outcome', async () => {
    const adapter = adapterFor('a4');
    await adapter.connect(signal);
    sink.refuseNext(1, 550);
    const failure = await adapter.send(ANN, 'nope', undefined, 't-3.0').catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(ChannelCallError);
    expect(failure).toMatchObject({ kind: 'refused' });
    const messageId = replyMessageId('a4', 't-3.0', AGENT);
    expect((await dovecot.mails(AGENT, 'Sent')).filter((mail) => mail.raw.includes(messageId))).toEqual([]);
    // A wrong password is `unauthorized`, and says nothing of the password.
    const wrong = new EmailAdapter({
      channel: 'a5',
      imapUrl: dovecot.url,
      smtpUrl: sink.url,
      user: AGENT,
      password: 'not-the-password',
      address: AGENT,
      mailbox: 'INBOX',
      sentMailbox: 'Sent',
    });
    adapters.push(wrong);
    const refused = await wrong.connect(signal).catch((err: unknown) => err);
    expect(refused).toMatchObject({ kind: 'unauthorized' });
    expect(String((refused as Error).message)).not.toContain('not-the-password');
  }, 30_000);
});
