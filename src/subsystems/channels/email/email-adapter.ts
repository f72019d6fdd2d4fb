/**
 * Email as a channel: a mailbox read over IMAP with imapflow (IDLE while nothing is new, the core's cursor
 * `UIDVALIDITY:UID`), replies sent over SMTP with nodemailer. Mail cannot be edited, so the core sends each message of
 * a reply once, whole (`edits: false`), keyed by turn and part: the key becomes the Message-ID, and the Sent mailbox
 * is the ledger that tells after a crash whether that mail already went (see email-sent-ledger.ts).
 */
import { ImapFlow } from 'imapflow';
import { simpleParser } from 'mailparser';
import { createTransport, type Transporter } from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import {
  ChannelCallError,
  type ChannelAccount,
  type ChannelAdapter,
  type InboundUpdate,
  type WholeSend,
} from '../channel-adapter.js';
import { composeReply, parseReferences, replyMessageId, type OriginalMail } from './email-compose.js';
import { cursorAfter, planReceive } from './email-cursor.js';
import { imapFailure, mailEndpoint, smtpFailure, type MailEndpoint } from './email-failure.js';
import { inboundFromMail } from './email-inbound.js';
import { dropDraft, ensureMailbox, keepDraft, ledgerState, markSent } from './email-sent-ledger.js';

/** How an email channel is reached. */
export interface EmailAdapterOptions {
  channel: string;
  imapUrl: string;
  smtpUrl: string;
  user: string;
  password: string;
  /** The agent's address (its From; lower case). */
  address: string;
  mailbox: string;
  sentMailbox: string;
  authServId?: string;
  /** The longest one IDLE waits before the mailbox is searched again (default two minutes). */
  idleMs?: number;
  /** Mails taken per receive (default 20). */
  pageSize?: number;
}

/** A reply mail has no practical length limit: one reply is one mail. */
const EMAIL_MAX_MESSAGE_LENGTH = 200_000;

/** A mailbox as a channel adapter. */
export class EmailAdapter implements ChannelAdapter {
  readonly maxMessageLength = EMAIL_MAX_MESSAGE_LENGTH;
  readonly edits = false;
  /** Every mail of a reply (a long one's parts, an ack's answer) is in the thread of the mail it answers. */
  readonly threadsReplies = true;
  private readonly imap: MailEndpoint;
  private readonly smtp: Transporter;
  private inbox: ImapFlow | undefined;

  constructor(private readonly options: EmailAdapterOptions) {
    this.imap = mailEndpoint(options.imapUrl);
    const smtp = mailEndpoint(options.smtpUrl);
    this.smtp = createTransport({
      host: smtp.host,
      port: smtp.port,
      secure: smtp.secure,
      auth: { user: options.user, pass: options.password },
      connectionTimeout: 30_000,
      socketTimeout: 60_000,
    });
  }

  async connect(signal: AbortSignal): Promise<ChannelAccount> {
    await this.closeInbox();
    const client = await this.opened(signal);
    try {
      await ensureMailbox(client, this.options.sentMailbox);
    } catch (err) {
      throw imapFailure(err);
    }
    return { display: this.options.address };
  }

  async receive(cursor: string | undefined, signal: AbortSignal): Promise<InboundUpdate[]> {
    try {
      const client = await this.opened(signal);
      const box = client.mailbox === false ? undefined : client.mailbox;
      if (box === undefined) throw new ChannelCallError('unreachable', 'IMAP: no mailbox open');
      const uidValidity = String(box.uidValidity);
      const plan = planReceive(cursor, { uidValidity, uidNext: await this.uidNext(client, box.uidNext) });
      if (plan.kind === 'reset') return [{ cursorAfter: plan.cursor }];
      let uids = await this.newUids(client, plan.uid);
      if (uids.length === 0) {
        await this.idle(client, signal);
        if (signal.aborted) return [];
        uids = await this.newUids(client, plan.uid);
      }
      return await this.read(client, uids, uidValidity);
    } catch (err) {
      if (signal.aborted) return [];
      await this.closeInbox();
      throw imapFailure(err);
    } finally {
      // The channel stops: nothing keeps the connection (the cursor is the core's, on disk).
      if (signal.aborted) await this.closeInbox();
    }
  }

  place(): Promise<string> {
    return Promise.reject(new ChannelCallError('refused', 'email cannot edit a sent mail'));
  }

  edit(): Promise<void> {
    return Promise.reject(new ChannelCallError('refused', 'email cannot edit a sent mail'));
  }

  async notify(chatId: string, text: string): Promise<void> {
    try {
      await this.smtp.sendMail({ from: this.options.address, to: chatId, subject: 'Vigil', text });
    } catch (err) {
      throw smtpFailure(err).failure;
    }
  }

  async send(chatId: string, text: string, replyTo: string | undefined, key: string): Promise<WholeSend> {
    const { channel, address, sentMailbox } = this.options;
    const messageId = replyMessageId(channel, key, address);
    const client = this.newClient();
    try {
      await client.connect();
      const original = replyTo === undefined ? undefined : await this.original(client, replyTo);
      const options = composeReply({
        channel,
        key,
        from: address,
        to: chatId,
        text,
        ...(replyTo === undefined ? {} : { inReplyTo: replyTo }),
        ...(original === undefined ? {} : { original }),
      });
      const raw = await new MailComposer(options).compile().build();
      const ledger = await ledgerState(client, sentMailbox, messageId);
      if (ledger.kind === 'sent') return { messageId, doubled: false };
      if (ledger.kind === 'absent') await keepDraft(client, sentMailbox, raw);
      try {
        await this.smtp.sendMail({ envelope: { from: address, to: [chatId] }, raw });
      } catch (err) {
        const { failure, answered } = smtpFailure(err);
        if (answered) await dropDraft(client, sentMailbox, messageId).catch(() => undefined);
        throw failure;
      }
      await markSent(client, sentMailbox, messageId);
      return { messageId, doubled: ledger.kind === 'unknown' };
    } catch (err) {
      throw imapFailure(err);
    } finally {
      await client.logout().catch(() => client.close());
    }
  }

  /** Closes the receiving connection (the runtime stops, or a test is done). */
  async close(): Promise<void> {
    await this.closeInbox();
    this.smtp.close();
  }

  private async opened(signal: AbortSignal): Promise<ImapFlow> {
    if (this.inbox?.usable === true) return this.inbox;
    await this.closeInbox();
    const client = this.newClient();
    const onAbort = () => client.close();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await client.connect();
      await client.mailboxOpen(this.options.mailbox);
    } catch (err) {
      client.close();
      throw imapFailure(err);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    this.inbox = client;
    return client;
  }

  private newClient(): ImapFlow {
    const client = new ImapFlow({
      host: this.imap.host,
      port: this.imap.port,
      secure: this.imap.secure,
      auth: { user: this.options.user, pass: this.options.password },
      logger: false,
      disableAutoIdle: true,
      connectionTimeout: 30_000,
    });
    // A dropped connection is also an 'error' event: the call in flight reports it; unheard, it would end the process.
    client.on('error', () => undefined);
    return client;
  }

  private async closeInbox(): Promise<void> {
    const client = this.inbox;
    this.inbox = undefined;
    if (client === undefined) return;
    await client.logout().catch(() => client.close());
  }

  // Past the newest mail now (the UIDNEXT of the SELECT may be older than mail that came since).
  private async uidNext(client: ImapFlow, selected: number): Promise<number> {
    await client.noop(); // the server tells the session of mail that came since
    const all = (await client.search({ all: true }, { uid: true })) || [];
    return Math.max(selected, ...all.map((uid) => uid + 1));
  }

  // UIDs from `from` on, oldest first, one page (`N:*` also names the last mail when N is past it: filtered out).
  private async newUids(client: ImapFlow, from: number): Promise<number[]> {
    await client.noop();
    const found = (await client.search({ uid: `${from}:*` }, { uid: true })) || [];
    return found
      .filter((uid) => uid >= from)
      .sort((a, b) => a - b)
      .slice(0, this.options.pageSize ?? 20);
  }

  // Until the server says the mailbox grew, the wait is up, or the channel stops; the next command ends the IDLE.
  private async idle(client: ImapFlow, signal: AbortSignal): Promise<void> {
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        client.off('exists', done);
        client.off('close', done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, this.options.idleMs ?? 120_000);
      client.on('exists', done);
      client.on('close', done);
      signal.addEventListener('abort', done, { once: true });
      client.idle().catch(() => undefined);
    });
  }

  private async read(client: ImapFlow, uids: readonly number[], uidValidity: string): Promise<InboundUpdate[]> {
    if (uids.length === 0) return [];
    const updates: InboundUpdate[] = [];
    for await (const mail of client.fetch(uids.join(','), { uid: true, source: true }, { uid: true })) {
      // A mail that does not parse is passed over: left in the way, it would stop every mail after it.
      const parsed = await simpleParser(mail.source ?? Buffer.alloc(0)).catch(() => undefined);
      const message =
        parsed &&
        inboundFromMail(parsed, {
          address: this.options.address,
          ...(this.options.authServId === undefined ? {} : { authServId: this.options.authServId }),
          fallbackId: `<uid.${uidValidity}.${mail.uid}@${this.options.mailbox}>`,
          now: Date.now(),
        });
      updates.push({ cursorAfter: cursorAfter(uidValidity, mail.uid), ...(message === undefined ? {} : { message }) });
    }
    return updates.sort((a, b) => cursorUid(a.cursorAfter) - cursorUid(b.cursorAfter));
  }

  // The mail answered, looked up in the mailbox for its subject and references (gone: threaded by its id alone).
  private async original(client: ImapFlow, messageId: string): Promise<OriginalMail | undefined> {
    const lock = await client.getMailboxLock(this.options.mailbox);
    try {
      const [uid] = (await client.search({ header: { 'message-id': messageId } }, { uid: true })) || [];
      if (uid === undefined) return undefined;
      const found = await client.fetchOne(String(uid), { envelope: true, headers: ['references'] }, { uid: true });
      if (found === false) return undefined;
      const references = parseReferences(found.headers?.toString('utf8').replace(/^references:/i, ''));
      const subject = found.envelope?.subject;
      return { messageId, references, ...(subject === undefined ? {} : { subject }) };
    } finally {
      lock.release();
    }
  }
}

function cursorUid(cursor: string): number {
  return Number(cursor.slice(cursor.indexOf(':') + 1));
}
