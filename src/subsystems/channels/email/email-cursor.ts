/**
 * The channel core's cursor for a mailbox: `UIDVALIDITY:UID`, every mail of that UIDVALIDITY below UID durable. A new
 * UIDVALIDITY (the server renumbered the mailbox: a restore, a migration) makes the old UIDs meaningless, so the
 * channel starts from the mailbox as it stands then: mail already there is not taken again as new turns (what was
 * answered keeps its Message-ID records, and nothing older is replayed).
 */

/** Where a mailbox stands when it is opened. */
export interface MailboxPosition {
  uidValidity: string;
  uidNext: number;
}

/** What a receive does: start the cursor at the mailbox's present state, or read from `uid` on. */
export type ReceivePlan = { kind: 'reset'; cursor: string } | { kind: 'from'; uid: number };

/** The cursor past mail `uid` of `uidValidity`. */
export function cursorAfter(uidValidity: string, uid: number): string {
  return `${uidValidity}:${uid + 1}`;
}

/** How to read on from `cursor` (undefined: never received) in a mailbox at `position`. */
export function planReceive(cursor: string | undefined, position: MailboxPosition): ReceivePlan {
  const parsed = parseCursor(cursor);
  if (parsed === undefined || parsed.uidValidity !== position.uidValidity) {
    return { kind: 'reset', cursor: `${position.uidValidity}:${Math.max(1, position.uidNext)}` };
  }
  return { kind: 'from', uid: parsed.uid };
}

function parseCursor(cursor: string | undefined): { uidValidity: string; uid: number } | undefined {
  const match = /^(\d+):(\d+)$/.exec(cursor ?? '');
  if (match === null) return undefined;
  return { uidValidity: match[1]!, uid: Math.max(1, Number(match[2])) };
}
