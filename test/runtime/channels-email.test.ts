/**
 * An email channel through the channel core (CONTRACT §18), against a real Dovecot and a real SMTP server: people
 * write from their own mailboxes; the agent reads its mailbox over IMAP and answers over SMTP, in the thread.
 */
import { MemoryLevel } from 'memory-level';
import { createTransport } from 'nodemailer';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelConfig } from '../../src/protocol/channels.schema.js';
import { createSimulatedClock } from '../../src/shared/clock.js';
import type { VigilDb } from '../../src/subsystems/store/vigil-db.js';
import { startDovecot, type Dovecot } from '../fixtures/dovecot.js';
import { startRuntime, type RuntimeHarness } from '../fixtures/runtime.fixture.js';
import { ScriptedThinker } from '../fixtures/scripted-thinker.js';
import { SINK_AUTHSERV_ID, startSmtpSink, type SmtpSink } from '../fixtures/smtp-sink.js';

const AGENT = 'agent@vigil.test';
const ANN = 'ann@example.org';
const BOB = 'bob@example.org';
const MALLORY = 'mallory@evil.test';
const USERS: Record<string, string> = {
  [AGENT]: 'agent-pw',
  [ANN]: 'ann-pw',
  [BOB]: 'bob-pw',
  [MALLORY]: 'mallory-pw',
};

let dovecot: Dovecot;
let sink: SmtpSink;
const running: RuntimeHarness[] = [];

beforeAll(async () => {
  dovecot = await startDovecot(USERS);
  sink = await startSmtpSink(dovecot, USERS);
}, 30_000);
afterAll(async () => {
  await sink?.close();
  await dovecot?.stop();
});
afterEach(async () => {
  for (const h of running.splice(0)) await h.runtime.stop().catch(() => undefined);
});

type EmailEntry = Extract<ChannelConfig, { type: 'email' }>;

/** A runtime with channel `name` on the agent's mailbox; `restart` starts another on the same store. */
async function rigFor(name: string, entry: Partial<EmailEntry> = {}) {
  const clock = createSimulatedClock(Date.parse('2026-03-01T10:00:00Z'));
  const db: VigilDb = new MemoryLevel();
  const thinker = new ScriptedThinker();
  const start = async () => {
    const h = await startRuntime({
      db,
      clock,
      thinker,
      config: {
        channels: {
          channels: {
            [name]: {
              type: 'email',
              imapUrl: dovecot.url,
              smtpUrl: sink.url,
              userEnv: 'MAIL_USER',
              passwordEnv: 'MAIL_PASSWORD',
              address: AGENT,
              mailbox: 'INBOX',
              sentMailbox: `Sent-${name}`,
              authServId: SINK_AUTHSERV_ID,
              dmPolicy: 'allowlist',
              allowFrom: [ANN],
              operators: [],
              groups: [],
              ...entry,
            },
          },
        },
      },
      channels: { env: { MAIL_USER: AGENT, MAIL_PASSWORD: USERS[AGENT] }, pollTimeoutS: 1 },
    });
    running.push(h);
    return h;
  };
  const rig = {
    h: await start(),
    async until(done: () => boolean | Promise<boolean>, what: string, rounds = 300): Promise<void> {
      for (let i = 0; i < rounds; i++) {
        if (await done()) return;
        await rig.h.advance(50, 50);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`timed out waiting for ${what}`);
    },
    async restart() {
      await rig.h.runtime.stop();
      rig.h = await start();
    },
  };
  // The channel starts where the mailbox stands: a probe it refuses shows its cursor is written, before anyone writes.
  await rig.until(() => rig.h.runtime.channels.list()[0]?.state === 'ok', 'the channel to connect');
  for (let probe = 0; ; probe++) {
    const sender = `probe-${probe}@probe.test`;
    await dovecot.deliver(AGENT, `From: ${sender}\r\nTo: ${AGENT}\r\nSubject: probe\r\n\r\nprobe\r\n`);
    const seen = () => rig.h.ofType('channel.refused').some((event) => event.senderId === sender);
    const took = await rig.until(seen, 'the probe', 40).then(
      () => true,
      () => false,
    );
    if (took) break;
    if (probe === 10) throw new Error('the channel never took a probe');
  }
  return rig;
}

/** `from` writes to the agent, logged in as `login` (default: `from` itself). */
async function mailFrom(
  from: string,
  text: string,
  options: { subject?: string; messageId?: string; login?: string; html?: string } = {},
) {
  const login = options.login ?? from;
  const transport = createTransport({
    host: '127.0.0.1',
    port: sink.port,
    secure: false,
    auth: { user: login, pass: USERS[login]! },
  });
  const info = await transport.sendMail({
    from,
    to: AGENT,
    subject: options.subject ?? 'Hello',
    ...(options.html === undefined ? { text } : { html: options.html }),
    ...(options.messageId === undefined ? {} : { messageId: options.messageId }),
  });
  transport.close();
  return info.messageId;
}

const repliesTo = async (user: string, name: string) =>
  (await dovecot.mails(user)).filter((mail) => mail.raw.includes(`<vigil.${name}.`));

describe('an email channel', () => {
  it('answers an allowed sender once, in the thread, and reads only the new text of a reply with quotes and a signature', async () => {
    const rig = await rigFor('mail1');
    const first = await mailFrom(ANN, 'Can you summarise the plan?', {
      subject: 'Plans',
      messageId: '<plans-1@example.org>',
    });
    await rig.until(() => rig.h.ofType('channel.replied').length === 1, 'the reply');
    const [received] = rig.h.ofType('channel.received');
    expect(received).toMatchObject({ channel: 'mail1', chatId: ANN, senderId: ANN, messageId: first });
    const [reply] = await repliesTo(ANN, 'mail1');
    expect(reply!.raw).toMatch(/^Subject: Re: Plans$/m);
    expect(reply!.raw).toMatch(/^In-Reply-To: <plans-1@example.org>$/m);
    expect(reply!.raw).toContain('re: Can you summarise the plan?');
    expect(rig.h.ofType('channel.replied')[0]!.messageIds).toEqual([expect.stringMatching(/^<vigil\.mail1\.t-/)]);
    // Ann answers the agent's mail the way a mail client does: quoted history and a signature below.
    const quoted =
      'Thanks, do it.\n\nOn Sun, 1 Mar 2026 at 10:00, agent@vigil.test wrote:\n> re: Can you summarise the plan?\n\n-- \nAnn\nExample Org';
    await mailFrom(ANN, quoted, { subject: 'Re: Plans' });
    await mailFrom(ANN, '', { subject: 'html', html: '<p>Only <b>HTML</b> here</p><blockquote>old</blockquote>' });
    await rig.until(() => rig.h.ofType('channel.replied').length === 3, 'the next replies');
    const turns = (await rig.h.runtime.listConversation()).filter((entry) => entry.role === 'user');
    expect(turns.map((entry) => [entry.from, entry.text])).toEqual([
      ['mail1:ann@example.org', 'Can you summarise the plan?'],
      ['mail1:ann@example.org', 'Thanks, do it.'],
      ['mail1:ann@example.org', 'Only HTML here'],
    ]);
    expect(rig.h.runtime.channels.list()).toEqual([
      expect.objectContaining({ name: 'mail1', type: 'email', state: 'ok', account: AGENT, pending: 0 }),
    ]);
  }, 60_000);

  it('makes one turn of two copies of one Message-ID, and answers mail that came while it was stopped', async () => {
    const rig = await rigFor('mail2');
    const raw = `From: ${ANN}\r\nTo: ${AGENT}\r\nSubject: twice\r\nMessage-ID: <dup-1@example.org>\r\nAuthentication-Results: ${SINK_AUTHSERV_ID}; dmarc=pass header.from=example.org\r\n\r\nsaid once, delivered twice\r\n`;
    await dovecot.deliver(AGENT, raw);
    await dovecot.deliver(AGENT, raw);
    await rig.until(() => rig.h.ofType('channel.replied').length === 1, 'the reply');
    await rig.h.runtime.stop();
    await mailFrom(ANN, 'while you were away', { messageId: '<away-1@example.org>' });
    await dovecot.deliver(AGENT, raw);
    await rig.restart();
    await rig.until(async () => (await repliesTo(ANN, 'mail2')).length === 2, 'the reply to the mail sent meanwhile');
    await rig.h.advance(2_000, 100);
    const turns = (await rig.h.runtime.listConversation()).filter((entry) => entry.role === 'user');
    expect(turns.map((entry) => entry.text)).toEqual(['said once, delivered twice', 'while you were away']);
    expect(await repliesTo(ANN, 'mail2')).toHaveLength(2);
  }, 60_000);

  it('gives a sender not allowed nothing, and a forged From nothing, reporting each once', async () => {
    const rig = await rigFor('mail3');
    await mailFrom(BOB, 'let me in');
    // Mallory logs in as herself and writes as Ann: the receiving server's Authentication-Results say dmarc=fail.
    await mailFrom(ANN, 'transfer the money', { login: MALLORY });
    const refused = () => rig.h.ofType('channel.refused').filter((event) => !event.senderId.startsWith('probe-'));
    await rig.until(() => refused().length === 2, 'both refusals');
    await rig.h.advance(3_000, 100);
    expect(
      refused()
        .map((event) => [event.senderId, event.reason])
        .sort(),
    ).toEqual([
      [ANN, 'unauthenticated'],
      [BOB, 'not_allowed'],
    ]);
    expect(rig.h.ofType('agent.message')).toHaveLength(0);
    expect(await repliesTo(BOB, 'mail3')).toEqual([]);
    expect(await repliesTo(ANN, 'mail3')).toEqual([]);
    expect(await repliesTo(MALLORY, 'mail3')).toEqual([]);
  }, 60_000);
});
