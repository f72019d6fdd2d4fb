/**
 * One message of a reply into a platform that cannot edit (email): no placeholder, the whole text sent once it is
 * known. The slot is written `placing` before the send goes and `written` with the platform's id after; the send
 * carries a key made from the turn and the slot, the same on every try, so after a crash (the slot still `placing`)
 * the platform recognises its own earlier send instead of the core guessing, and reports when one may have gone twice.
 */
import type { ReplyRecord } from '../../protocol/channel-records.schema.js';
import type { Clock } from '../../shared/clock.js';
import { ChannelCallError, type ChannelAdapter } from './channel-adapter.js';
import type { ReplyAction, ReplyInput } from './reply.machine.js';

/** The send action of a reply on a platform that cannot edit. */
export type SendAction = Extract<ReplyAction, { kind: 'send' }>;

/** The key of a reply's message: the same for every try of it, whatever crashed in between. */
export function sendKey(turnId: string, slot: number): string {
  return `${turnId}.${slot}`;
}

/** Sends slot `action.slot` of `reply` whole; each step written through `change`. Throws `ChannelCallError`. */
export async function sendWhole(
  adapter: ChannelAdapter,
  reply: ReplyRecord,
  action: SendAction,
  change: (input: ReplyInput) => Promise<void>,
  clock: Clock,
): Promise<void> {
  if (adapter.send === undefined) throw new ChannelCallError('refused', 'the platform can neither edit nor send');
  await change({ type: 'placing', slot: action.slot, at: clock.now() });
  const replyTo = action.replyTo || adapter.threadsReplies === true ? reply.replyTo : undefined;
  let sent;
  try {
    sent = await adapter.send(reply.chatId, action.text, replyTo, sendKey(reply.turnId, action.slot));
  } catch (err) {
    const failure =
      err instanceof ChannelCallError
        ? err
        : new ChannelCallError('unreachable', err instanceof Error ? err.message : String(err));
    // Back to pending, not counted as a stray: the next try carries the same key, and the platform tells then. If
    // this write fails, the slot stays `placing` and the lane's next step resolves it the same way.
    await change({ type: 'place_failed', slot: action.slot, unknown: false, at: clock.now() }).catch(() => undefined);
    throw failure;
  }
  await change({ type: 'sent', slot: action.slot, messageId: sent.messageId, doubled: sent.doubled, at: clock.now() });
}
