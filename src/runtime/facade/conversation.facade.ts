/** The facade's conversation area: `agent.send` (accept, wake, preempt, ack) and `conversation.list`. */
import { resetsAt } from '../../actors/budget/budget.reducer.js';
import { VigilError } from '../../errors.js';
import type { SendParams, SendResult } from '../../protocol/agent.schema.js';
import type { TokenScope } from '../../protocol/token-scopes.js';
import type {
  ConversationEntry,
  ConversationListParams,
  ConversationMessage,
} from '../../protocol/conversation.schema.js';
import type { VigilBatchOp } from '../../subsystems/store/vigil-db.js';
import { iso, type RuntimeCore } from '../runtime-core.js';

export { searchConversation } from './conversation-search.facade.js';

/** The short acknowledgement a preempting message gets at once (seed 002's "one moment"). */
export const ACK_TEXT = "One moment — I'm finishing something up, then I'll answer you.";

/** The start of the acknowledgement a message gets while the agent sleeps over its budget; the wake time follows. */
export const SLEEPING_ACK_TEXT = "I'm resting: today's budget is spent. I'll answer when I wake at";

/**
 * `agent.send`: the message is synced to the conversation log (the turn is accepted), then handed to the heartbeat,
 * which wakes for it; the turn ends in exactly one `agent.reply` or `agent.unanswered`. A message arriving during
 * autonomous work preempts it (`agent.preempted`, then `agent.ack`); one arriving during a user turn follows the busy
 * strategy: interrupt (answer both next), enqueue (after this turn) or reject. Asleep over the budget: an ack saying
 * when it wakes, and the answer after. `scope` is the sender's: the turn carries it, so what the agent does for the
 * message (the offline thinker's `/tool`, `/schedule`) is what that sender may do. `alongside` (an A2A task's
 * record) is written in the message's own batch, given the turn's id and the seq the message will have.
 */
export async function sendMessage(
  core: RuntimeCore,
  params: SendParams,
  scope: TokenScope,
  alongside?: (turnId: string, seq: number) => VigilBatchOp[],
): Promise<SendResult> {
  core.assertRunning();
  const { conversation, clock, ids, bus, deps } = core.parts;
  const strategy = deps.options.busyStrategy;
  const before = core.actor.getSnapshot();
  if (
    strategy === 'reject' &&
    before.matches({ running: 'think' }) &&
    before.context.beat.plan?.reason === 'user_message'
  ) {
    throw new VigilError('AGENT_BUSY', 'The agent is answering another message; send again when it has replied.', {
      data: { strategy: 'reject' },
    });
  }
  const turnId = `t-${ids.next()}`;
  const from = params.from ?? 'user';
  return core.exclusive.run(async () => {
    const at = clock.now();
    // Held until the heartbeat has it: a checkpoint in between must not count the message as seen.
    // The scope is logged with the message: a turn replayed after a crash acts with the scope it was sent with.
    // Appends number their messages at the call: this is the seq the message below will have.
    const ops = alongside?.(turnId, conversation.nextSeq()) ?? [];
    const stored = await conversation.append({ turnId, role: 'user', text: params.text, from, scope, at }, ops, {
      hold: true,
    });
    try {
      bus.emit('agent.message', { turnId, text: params.text, from });
      core.actor.send({ type: 'USER_MESSAGE', message: { turnId, text: params.text, from, scope, at } });
    } finally {
      conversation.release(stored.seq);
    }
    const ack = sleepingAck(core);
    // No API call now, but the sender hears at once when the answer will come.
    if (ack !== undefined) bus.emit('agent.ack', { turnId, text: ack });
    else if (preemptFor(core, turnId)) bus.emit('agent.ack', { turnId, text: ACK_TEXT });
    return { turnId };
  });
}

/** While the agent sleeps over its budget: the acknowledgement a message gets, saying when it wakes. */
export function sleepingAck(core: RuntimeCore): string | undefined {
  const now = core.actor.getSnapshot();
  if (!now.matches('dormant')) return undefined;
  const wakeAt = iso(resetsAt(now.context.refs.budget.getSnapshot().context));
  return `${SLEEPING_ACK_TEXT} ${wakeAt}, or sooner if the budget is topped up.`;
}

/**
 * A think already running for other work (the message could not start its own) yields to turn `turnId`, as the busy
 * strategy says; true when it was told to.
 */
export function preemptFor(core: RuntimeCore, turnId: string): boolean {
  const now = core.actor.getSnapshot();
  if (!now.matches({ running: 'think' }) || now.context.beat.handledTurnIds.includes(turnId)) return false;
  const autonomous = now.context.beat.plan?.reason !== 'user_message';
  if (!autonomous && core.parts.deps.options.busyStrategy !== 'interrupt') return false;
  core.actor.send({
    type: 'PREEMPT',
    reason: autonomous ? `user message ${turnId}` : `another user message ${turnId}`,
  });
  return true;
}

/** `conversation.list`: the newest `limit` entries before `before` (a seq), newest last. */
export async function listConversation(
  core: RuntimeCore,
  params: ConversationListParams = {},
): Promise<ConversationEntry[]> {
  const messages = await core.parts.conversation.readBefore(params.before, params.limit ?? 50);
  return messages.map(conversationEntry);
}

function conversationEntry(message: ConversationMessage): ConversationEntry {
  return {
    seq: message.seq,
    turnId: message.turnId,
    role: message.role === 'user' ? 'user' : 'agent',
    ...(message.from === undefined ? {} : { from: message.from }),
    text: message.text,
    at: iso(message.at),
    ...(message.unanswered === undefined ? {} : { unanswered: message.unanswered }),
  };
}
