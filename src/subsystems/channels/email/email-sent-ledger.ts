/**
 * The Sent mailbox as the ledger of what was sent, so a send a crash cut short is not blindly repeated (SMTP has no
 * idempotency key). A reply is appended to Sent flagged `\Draft` BEFORE it is handed to SMTP, and the flag is taken
 * off once the SMTP server accepted it. Before a send the ledger is read by the reply's Message-ID:
 * - absent: no earlier try got as far as SMTP; send.
 * - there without `\Draft`: the server took it; do not send again.
 * - there with `\Draft`: an earlier try may or may not have reached the server (a crash between handing it over and
 *   hearing back); send again under the same Message-ID and report it `doubled` (a receiver that keeps one mail per
 *   Message-ID, as most do, shows it once).
 * A try the SMTP server answered with a refusal removes its draft, so a `\Draft` left behind always means unknown.
 */
import type { ImapFlow } from 'imapflow';

/** What Sent says of a reply's Message-ID. */
export type LedgerState = { kind: 'absent' } | { kind: 'sent'; uid: number } | { kind: 'unknown'; uid: number };

const DRAFT = '\\Draft';

/** Creates `mailbox` when the account has none of that name. */
export async function ensureMailbox(client: ImapFlow, mailbox: string): Promise<void> {
  const boxes = await client.list();
  if (boxes.some((box) => box.path === mailbox)) return;
  await client.mailboxCreate(mailbox);
}

/** The ledger's state for `messageId` in `mailbox`. */
export async function ledgerState(client: ImapFlow, mailbox: string, messageId: string): Promise<LedgerState> {
  const lock = await client.getMailboxLock(mailbox);
  try {
    const uids = (await client.search({ header: { 'message-id': messageId } }, { uid: true })) || [];
    let unknown: number | undefined;
    for (const uid of uids) {
      const found = await client.fetchOne(String(uid), { flags: true }, { uid: true });
      if (found === false) continue;
      if (!(found.flags?.has(DRAFT) ?? false)) return { kind: 'sent', uid };
      unknown = uid;
    }
    return unknown === undefined ? { kind: 'absent' } : { kind: 'unknown', uid: unknown };
  } finally {
    lock.release();
  }
}

/** Keeps `raw` in `mailbox` as a draft before it is sent. */
export async function keepDraft(client: ImapFlow, mailbox: string, raw: Buffer): Promise<void> {
  await client.append(mailbox, raw, ['\\Seen', DRAFT]);
}

/** The SMTP server took the mail: its copy in `mailbox` is no longer a draft. */
export async function markSent(client: ImapFlow, mailbox: string, messageId: string): Promise<void> {
  await withDrafts(client, mailbox, messageId, (uids) => client.messageFlagsRemove(uids, [DRAFT], { uid: true }));
}

/** The SMTP server refused the mail: its draft goes, so a draft left in `mailbox` always means an unknown outcome. */
export async function dropDraft(client: ImapFlow, mailbox: string, messageId: string): Promise<void> {
  await withDrafts(client, mailbox, messageId, (uids) => client.messageDelete(uids, { uid: true }));
}

async function withDrafts(
  client: ImapFlow,
  mailbox: string,
  messageId: string,
  act: (uids: string) => Promise<unknown>,
): Promise<void> {
  const lock = await client.getMailboxLock(mailbox);
  try {
    const uids = (await client.search({ header: { 'message-id': messageId }, draft: true }, { uid: true })) || [];
    if (uids.length > 0) await act(uids.join(','));
  } finally {
    lock.release();
  }
}
