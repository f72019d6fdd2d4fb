/**
 * A reply's life in its chat as one pure transition function over the stored `ReplyRecord`, shared by every platform.
 * Every message of a reply is born as a placeholder whose platform id is recorded the moment it comes back, then
 * edited into its text: an edit can be repeated safely, a send cannot (Telegram has no idempotency key), so the only
 * send whose outcome a crash can leave unknown is a placeholder's, and the worst it costs is one stray placeholder,
 * counted in `strays`, never a reply shown twice or lost. A platform that cannot edit (email) skips the placeholder:
 * each message is sent once, whole, when its text is known, under a key the platform can recognise after a crash.
 */
import type { ReplyRecord, ReplySlot } from '../../protocol/channel-records.schema.js';

/** What a placeholder shows until its text is known. */
export const PLACEHOLDER_TEXT = '…';

/** What happens to a reply. */
export type ReplyInput =
  /** Texts to show, one per message (already split to the platform's limit); `final`: the turn's answer or ending. */
  | { type: 'fill'; texts: readonly string[]; final: boolean; ack: boolean; at: number }
  /** A placeholder's send is about to go (written before it goes). */
  | { type: 'placing'; slot: number; at: number }
  /** The platform answered the placeholder's send with its message id. */
  | { type: 'placed'; slot: number; messageId: string; at: number }
  /** The placeholder's send failed: `unknown` when no answer came (it may be in the chat after all). */
  | { type: 'place_failed'; slot: number; unknown: boolean; at: number }
  /** The slot's message now shows its text. */
  | { type: 'written'; slot: number; at: number }
  /** The slot's message is gone (deleted, or no longer editable): a new placeholder takes its place. */
  | { type: 'slot_lost'; slot: number; at: number }
  /** The platform refused the reply for good. */
  | { type: 'failed'; error: string; at: number }
  /**
   * A restart: every send in flight then has an unknown outcome. `whole` (a platform that cannot edit): the slot is
   * sent again under the same key, which lets the platform recognise its own earlier send, so no stray is counted here.
   */
  | { type: 'recovered'; at: number; whole?: boolean }
  /** A platform that cannot edit took the slot's whole text as message `messageId`; `doubled`: perhaps twice. */
  | { type: 'sent'; slot: number; messageId: string; doubled: boolean; at: number };

/** The next platform call a reply needs, if any. */
export type ReplyAction =
  | { kind: 'place'; slot: number; replyTo: boolean }
  /** A platform that cannot edit: the slot's message, sent once, whole. */
  | { kind: 'send'; slot: number; replyTo: boolean; text: string }
  | { kind: 'edit'; slot: number; messageId: string; text: string }
  | { kind: 'none' };

/** A new reply record for an admitted message, its first message to be placed at once (it shows the agent is on it). */
export function newReply(turnId: string, chatId: string, replyTo: string, userSeq: number, at: number): ReplyRecord {
  return {
    turnId,
    chatId,
    replyTo,
    userSeq,
    state: 'awaiting',
    slots: [{ status: 'pending', replyTo: true }],
    strays: 0,
    acked: false,
    at,
    updatedAt: at,
  };
}

/** True once nothing more will be sent for the reply. */
export function isOver(reply: ReplyRecord): boolean {
  return reply.state === 'sent' || reply.state === 'failed';
}

/** The reply after `input`; the same object when `input` changes nothing (a late or repeated report). */
export function replyTransition(reply: ReplyRecord, input: ReplyInput): ReplyRecord {
  if (isOver(reply) && input.type !== 'recovered') return reply;
  switch (input.type) {
    case 'fill':
      return fill(reply, input);
    case 'placing':
      return withSlot(reply, input.slot, 'pending', (slot) => ({ ...slot, status: 'placing' }), input.at);
    case 'placed':
      return withSlot(
        reply,
        input.slot,
        'placing',
        (slot) => ({ ...slot, status: 'placed', messageId: input.messageId }),
        input.at,
      );
    case 'place_failed': {
      const next = withSlot(reply, input.slot, 'placing', (slot) => ({ ...slot, status: 'pending' }), input.at);
      return next === reply || !input.unknown ? next : { ...next, strays: next.strays + 1 };
    }
    case 'sent': {
      const next = withSlot(
        reply,
        input.slot,
        'placing',
        (slot) => ({ ...slot, status: 'written', messageId: input.messageId }),
        input.at,
      );
      return settled(next === reply || !input.doubled ? next : { ...next, strays: next.strays + 1 });
    }
    case 'written':
      return settled(withSlot(reply, input.slot, 'placed', (slot) => ({ ...slot, status: 'written' }), input.at));
    case 'slot_lost':
      return withSlot(
        reply,
        input.slot,
        ['placed', 'written'],
        ({ text, replyTo }) => ({ status: 'pending', replyTo, ...(text === undefined ? {} : { text }) }),
        input.at,
      );
    case 'failed':
      return { ...reply, state: 'failed', error: input.error, updatedAt: input.at };
    case 'recovered': {
      const inFlight = reply.slots.filter((slot) => slot.status === 'placing').length;
      if (inFlight === 0) return reply;
      const slots = reply.slots.map((slot): ReplySlot =>
        slot.status === 'placing' ? { ...slot, status: 'pending' } : slot,
      );
      return { ...reply, slots, strays: reply.strays + (input.whole === true ? 0 : inFlight), updatedAt: input.at };
    }
  }
}

/**
 * The next call the reply needs: the first slot not yet showing its text decides, so a chat reads in order. `edits`
 * false (email): no placeholder; each message is sent once its text is known, whole.
 */
export function nextReplyAction(reply: ReplyRecord, edits = true): ReplyAction {
  if (isOver(reply)) return { kind: 'none' };
  const index = reply.slots.findIndex((slot) => slot.status !== 'written');
  if (index < 0) return { kind: 'none' };
  const slot = reply.slots[index]!;
  if (!edits) {
    if (slot.status !== 'pending' || slot.text === undefined) return { kind: 'none' };
    return { kind: 'send', slot: index, replyTo: slot.replyTo, text: slot.text };
  }
  if (slot.status === 'pending') return { kind: 'place', slot: index, replyTo: slot.replyTo };
  if (slot.status === 'placed' && slot.text !== undefined && slot.messageId !== undefined) {
    return { kind: 'edit', slot: index, messageId: slot.messageId, text: slot.text };
  }
  return { kind: 'none' };
}

/** The platform ids of the reply's messages, in order (those known). */
export function replyMessageIds(reply: ReplyRecord): string[] {
  return reply.slots.flatMap((slot) => (slot.messageId === undefined ? [] : [slot.messageId]));
}

// The answer's texts go first into the message already waiting for them (the placeholder), the rest into new ones.
function fill(reply: ReplyRecord, input: Extract<ReplyInput, { type: 'fill' }>): ReplyRecord {
  if (reply.state !== 'awaiting' || input.texts.length === 0) return reply;
  const slots = [...reply.slots];
  const texts = [...input.texts];
  const waiting = slots.findIndex((slot) => slot.status !== 'written' && slot.text === undefined);
  if (waiting >= 0) slots[waiting] = { ...slots[waiting]!, text: texts.shift()! };
  texts.forEach((text, i) => slots.push({ status: 'pending', text, replyTo: waiting < 0 && i === 0 }));
  return settled({
    ...reply,
    slots,
    state: input.final ? 'delivering' : 'awaiting',
    acked: reply.acked || input.ack,
    updatedAt: input.at,
  });
}

// A reply whose answer is known and whose every message shows its text is sent.
function settled(reply: ReplyRecord): ReplyRecord {
  if (reply.state !== 'delivering' || reply.slots.some((slot) => slot.status !== 'written')) return reply;
  return { ...reply, state: 'sent' };
}

function withSlot(
  reply: ReplyRecord,
  index: number,
  from: ReplySlot['status'] | ReadonlyArray<ReplySlot['status']>,
  change: (slot: ReplySlot) => ReplySlot,
  at: number,
): ReplyRecord {
  const slot = reply.slots[index];
  const allowed = typeof from === 'string' ? [from] : from;
  if (slot === undefined || !allowed.includes(slot.status)) return reply;
  const slots = [...reply.slots];
  slots[index] = change(slot);
  return { ...reply, slots, updatedAt: at };
}
