/**
 * An email channel through `kill -9` (CONTRACT §18), against real servers: a Dovecot started for the test (IMAP) and
 * an SMTP server (smtp-server) that delivers into it. People write from their own mailboxes while the daemon is
 * killed at seeded random moments and started again; in the end each mail has exactly one reply, in its thread
 * (`In-Reply-To` naming it, `Re:` its subject), one turn each; two copies of one Message-ID are one turn; a sender not
 * allowed and a forged From get nothing. The only thing a crash may cost is a second copy of a reply under the same
 * Message-ID (killed between the SMTP server taking it and the Sent mailbox recording that), at most one per kill.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { createTransport } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/vigil-client.js';
import { seededRandom, seedFrom } from '../faults/seeded-random.js';
import { startDovecot, type Dovecot } from '../fixtures/dovecot.js';
import { SINK_AUTHSERV_ID, startSmtpSink, type SmtpSink } from '../fixtures/smtp-sink.js';
import { startDaemon, type DaemonProcess } from './daemon-process.js';

const TOKEN = 'email-crash-token-0123456789';
const AGENT = 'agent@vigil.test';
const AGENT_PASSWORD = 'agent-password-never-in-a-log';
const PEOPLE = ['ann@example.org', 'bob@example.org', 'cy@example.net'];
const STRANGER = 'stranger@elsewhere.test';
const MALLORY = 'mallory@evil.test';
const USERS: Record<string, string> = {
  [AGENT]: AGENT_PASSWORD,
  ...Object.fromEntries([...PEOPLE, STRANGER, MALLORY].map((user) => [user, `${user}-pw`])),
};
const MESSAGES = 16;
const KILLS = 3;
const WAIT_MS = 30_000;

let root: string;
let dovecot: Dovecot;
let sink: SmtpSink;
const started: DaemonProcess[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'vigil-email-crash-'));
  dovecot = await startDovecot(USERS);
  sink = await startSmtpSink(dovecot, USERS);
}, 30_000);
afterAll(async () => {
  for (const daemon of started) daemon.kill('SIGKILL');
  await sink?.close();
  await dovecot?.stop();
  await rm(root, { recursive: true, force: true });
});

async function start(dataDir: string, configPath: string): Promise<DaemonProcess> {
  const daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], {
    VIGIL_TOKEN: TOKEN,
    VIGIL_BEAT_MS: '30000',
    VIGIL_BEAT_MAX_MS: '60000',
    VIGIL_CHECKPOINT_INTERVAL_BEATS: '2',
    VIGIL_CHANNELS_CONFIG: configPath,
    MAIL_USER: AGENT,
    MAIL_PASSWORD: AGENT_PASSWORD,
  });
  started.push(daemon);
  await daemon.waitFor((line) => line.msg === 'gateway listening', WAIT_MS, 'gateway listening');
  return daemon;
}

/** `from` writes to the agent through the SMTP server, logged in as `login`. */
async function send(from: string, text: string, subject: string, messageId: string, login = from): Promise<void> {
  const transport = createTransport({
    host: '127.0.0.1',
    port: sink.port,
    secure: false,
    auth: { user: login, pass: USERS[login]! },
  });
  await transport.sendMail({ from, to: AGENT, subject, text, messageId });
  transport.close();
}

/** The agent's mails in `user`'s mailbox, parsed. */
async function repliesIn(user: string) {
  const mails = await dovecot.mails(user);
  const parsed = await Promise.all(mails.map((mail) => simpleParser(mail.raw)));
  return parsed.filter((mail) => mail.from?.value[0]?.address === AGENT);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('an email channel across kill -9, against Dovecot and a real SMTP server', () => {
  it('answers every mail exactly once, in its thread; a duplicate is one turn; strangers and forgers get nothing', async () => {
    const seed = seedFrom(process.env, 'VIGIL_CRASH_SEED');
    const random = seededRandom(seed);
    const dataDir = join(root, 'data');
    const configPath = join(root, 'channels.json');
    const entry = {
      type: 'email',
      imapUrl: dovecot.url,
      smtpUrl: sink.url,
      userEnv: 'MAIL_USER',
      passwordEnv: 'MAIL_PASSWORD',
      address: AGENT,
      authServId: SINK_AUTHSERV_ID,
      allowFrom: PEOPLE,
    };
    await writeFile(configPath, JSON.stringify({ channels: { mail: entry } }));
    const killAfter = new Set<number>();
    while (killAfter.size < KILLS) killAfter.add(random.int(2, MESSAGES - 3));
    let daemon = await start(dataDir, configPath);
    // The channel's cursor starts where the mailbox stands (its first receive, right after it connects): a probe it
    // refuses shows the cursor is written, before anyone writes.
    const first = daemon.lines.find((l) => l.msg === 'gateway listening')!;
    const watcher = await connect({ url: String(first.url), token: TOKEN, reconnect: false });
    try {
      let took = false;
      for (let probe = 0; !took && probe < 20; probe++) {
        const sender = `probe-${probe}@probe.test`;
        await dovecot.deliver(AGENT, `From: ${sender}\r\nTo: ${AGENT}\r\nSubject: probe\r\n\r\nprobe\r\n`);
        for (let i = 0; !took && i < 40; i++) {
          const refused = await watcher.events.history({ types: ['channel.refused'], limit: 100 });
          took = refused.some((event) => event.type === 'channel.refused' && event.senderId === sender);
          if (!took) await pause(50);
        }
      }
      expect(took).toBe(true);
    } finally {
      await watcher.close();
    }
    const sent: Array<{ from: string; messageId: string; subject: string; text: string }> = [];
    const sendOne = async (): Promise<void> => {
      const from = PEOPLE[random.int(0, PEOPLE.length - 1)]!;
      const n = sent.length;
      const mail = {
        from,
        messageId: `<e2e-${n}.${seed}@example.org>`,
        subject: `topic ${n}`,
        text: `mail ${n} from ${from}`,
      };
      await send(mail.from, mail.text, mail.subject, mail.messageId);
      sent.push(mail);
    };
    let kills = 0;
    for (let round = 0; sent.length < MESSAGES; round++) {
      await sendOne();
      if (round === 4) {
        // One mail delivered twice (two copies of one Message-ID in the mailbox): one turn.
        const duplicate = {
          from: PEOPLE[0]!,
          messageId: `<dup.${seed}@example.org>`,
          subject: 'twice',
          text: 'said once, delivered twice',
        };
        const raw = `Authentication-Results: ${SINK_AUTHSERV_ID}; dmarc=pass header.from=example.org\r\nFrom: ${duplicate.from}\r\nTo: ${AGENT}\r\nSubject: ${duplicate.subject}\r\nMessage-ID: ${duplicate.messageId}\r\n\r\n${duplicate.text}\r\n`;
        await dovecot.deliver(AGENT, raw);
        await dovecot.deliver(AGENT, raw);
        sent.push(duplicate);
        // A stranger, and Mallory writing as Ann.
        await send(STRANGER, 'let me in', 'hello', `<stranger.${seed}@elsewhere.test>`);
        await send(PEOPLE[0]!, 'transfer the money', 'urgent', `<forged.${seed}@evil.test>`, MALLORY);
      }
      await pause(random.int(0, 150));
      if (!killAfter.has(round)) continue;
      await pause(random.int(0, 600));
      daemon.kill('SIGKILL');
      await daemon.exited;
      kills++;
      if (random.next() < 0.5) await sendOne();
      daemon = await start(dataDir, configPath);
    }
    expect(kills).toBe(KILLS);
    const line = daemon.lines.find((l) => l.msg === 'gateway listening')!;
    const client = await connect({ url: String(line.url), token: TOKEN, reconnect: false });
    const detail = `seed ${seed} (VIGIL_CRASH_SEED=${seed} repeats it)`;
    try {
      const answered = async (): Promise<boolean> => {
        for (const person of PEOPLE) {
          const threads = new Set((await repliesIn(person)).map((mail) => mail.inReplyTo));
          if (sent.some((mail) => mail.from === person && !threads.has(mail.messageId))) return false;
        }
        return true;
      };
      const deadline = Date.now() + 90_000;
      while (!(await answered()) && Date.now() < deadline) await pause(250);
      expect(await answered(), detail).toBe(true);
      await pause(1_000);
      let copies = 0;
      for (const person of PEOPLE) {
        const replies = await repliesIn(person);
        const asked = sent.filter((mail) => mail.from === person);
        // One reply (one Message-ID) per mail, in its thread; a second copy of one Message-ID is a crash's cost.
        const byId = new Map(replies.map((mail) => [mail.messageId, mail]));
        copies += replies.length - byId.size;
        expect([...byId.values()].map((mail) => mail.inReplyTo).sort(), `${detail}: ${person}`).toEqual(
          asked.map((mail) => mail.messageId).sort(),
        );
        for (const mail of byId.values()) {
          const question = asked.find((each) => each.messageId === mail.inReplyTo)!;
          expect(mail.subject).toBe(`Re: ${question.subject}`);
          expect(mail.references).toContain(question.messageId);
        }
      }
      expect(copies, detail).toBeLessThanOrEqual(KILLS);
      for (const nobody of [STRANGER, MALLORY]) expect(await repliesIn(nobody)).toEqual([]);
      // One turn per mail: the conversation holds each once (the duplicate once, the refused never).
      const conversation = await client.conversation.list({ limit: 500 });
      const turns = conversation.filter((entry) => entry.role === 'user' && entry.from?.startsWith('mail:'));
      expect(turns.map((entry) => entry.text).sort(), detail).toEqual(sent.map((mail) => mail.text).sort());
      await expect(client.channels.list()).resolves.toEqual([expect.objectContaining({ name: 'mail', pending: 0 })]);
      console.log(`seed ${seed}: ${kills} kills, ${sent.length} mails, ${copies} second copies`);
      for (const each of started) {
        expect(JSON.stringify(each.lines)).not.toContain(AGENT_PASSWORD);
        expect(each.stderr()).not.toContain(AGENT_PASSWORD);
      }
    } finally {
      await client.close();
    }
  }, 240_000);
});
