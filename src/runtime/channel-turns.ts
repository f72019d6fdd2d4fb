/**
 * The runtime as channels see it (`ChannelHost`): a page of admitted platform messages becomes turns in ONE synced
 * batch with the channel's inbox and reply records, their `channel.received` events and the cursor past the page,
 * then goes to the heartbeat as `agent.send` would. After `kill -9` either all of it exists (the turns are replayed
 * and answered once; the platform is told the page was received) or none does (the platform sends the page again).
 */
import type { ReplyRecord } from '../protocol/channel-records.schema.js';
import type { NewConversationMessage } from '../protocol/conversation.schema.js';
import type { VigilEvent } from '../protocol/events.schema.js';
import type { AdmittedTurn, ChannelHost, TurnEnding } from '../subsystems/channels/channel-host.js';
import type { ChannelStore } from '../subsystems/channels/channel-store.js';
import { newReply, replyTransition } from '../subsystems/channels/reply.machine.js';
import type { VigilBatchOp } from '../subsystems/store/vigil-db.js';
import { preemptFor, sleepingAck } from './facade/conversation.facade.js';
import type { RuntimeCore } from './runtime-core.js';

// How far a boot looks for a turn's ending after its message: more than any reply is ever behind its message.
const ENDING_SCAN_LIMIT = 20_000;
const ENDING_PAGE = 500;

/** Who a channel message is from, as the conversation shows it. */
export function channelSender(channel: string, senderId: string): string {
  return `${channel}:${senderId}`;
}

/** The `ChannelHost` of a running runtime. */
export function channelHostOf(core: RuntimeCore): ChannelHost {
  const { bus, journal, conversation, metrics } = core.parts;
  return {
    metrics,
    events: {
      stamp: (type, payload) => bus.stamp(type, payload),
      entryOp: (event) => journal.entryOp(event),
      publish: (event) => bus.publish(event),
      withdraw: (...events) => bus.withdraw(...events),
      emit: (type, payload) => bus.emit(type, payload),
    },
    admit: (channel, store, turns, cursor, alongside) =>
      core.exclusive.run(() => admitTurns(core, channel, store, turns, cursor, alongside)),
    async ending(turnId, afterSeq) {
      let after = Math.max(0, afterSeq - 1);
      for (let scanned = 0; scanned < ENDING_SCAN_LIMIT; scanned += ENDING_PAGE) {
        const page = await conversation.readAfter(after, ENDING_PAGE);
        const ending = page.find((message) => message.turnId === turnId && message.role === 'assistant');
        if (ending !== undefined) return { turnId, text: ending.text };
        if (page.length < ENDING_PAGE) return undefined;
        after = page.at(-1)!.seq;
      }
      return undefined;
    },
    onEnding(listener: (ending: TurnEnding) => void) {
      const subscription = bus.events$.subscribe((event) => {
        if (event.type === 'agent.reply') listener({ turnId: event.turnId, text: event.text });
        else if (event.type === 'agent.unanswered') listener({ turnId: event.turnId, text: event.reason });
      });
      return () => subscription.unsubscribe();
    },
    onReplyPiece(listener: (turnId: string, piece: string) => void) {
      const subscription = bus.liveEvents$.subscribe((event) => {
        if (event.type === 'agent.reply_delta') listener(event.turnId, event.text);
      });
      return () => subscription.unsubscribe();
    },
  };
}

async function admitTurns(
  core: RuntimeCore,
  channel: string,
  store: ChannelStore,
  turns: readonly AdmittedTurn[],
  cursor: string,
  alongside: readonly VigilBatchOp[],
): Promise<ReplyRecord[] | null> {
  if (core.stopped) return null;
  const { conversation, bus, ids, clock } = core.parts;
  const at = clock.now();
  const ack = sleepingAck(core);
  // Appends number their messages at the call: these are the seqs the messages below will have.
  const firstSeq = conversation.nextSeq();
  const planned = turns.map((turn, i) => {
    const turnId = `t-${ids.next()}`;
    const { chatId, messageId, threadId } = turn.message;
    let reply = newReply(turnId, chatId, threadId ?? messageId, firstSeq + i, at);
    if (ack !== undefined) reply = replyTransition(reply, { type: 'fill', texts: [ack], final: false, ack: true, at });
    return { turn, turnId, reply, from: channelSender(channel, turn.message.senderId) };
  });
  const messages = planned.map(({ turn, turnId, from }): NewConversationMessage => ({
    turnId,
    role: 'user',
    text: turn.text,
    from,
    scope: turn.scope,
    at,
  }));
  const events: VigilEvent[] = planned.map(({ turn, turnId }) =>
    bus.stamp('channel.received', {
      channel,
      chatId: turn.message.chatId,
      messageId: turn.message.messageId,
      senderId: turn.message.senderId,
      turnId,
    }),
  );
  const ops: VigilBatchOp[] = [
    ...planned.flatMap(({ turn, turnId, reply }) =>
      store.admissionOps(
        turn.message.chatId,
        turn.message.messageId,
        { turnId, senderId: turn.message.senderId, at },
        reply,
      ),
    ),
    store.cursorOp(cursor),
    ...alongside,
    ...events.map((event) => core.parts.journal.entryOp(event)),
  ];
  let stored;
  try {
    stored = await conversation.appendAll(messages, ops, { hold: true });
  } catch (err) {
    bus.withdraw(...events);
    throw err;
  }
  try {
    for (const event of events) bus.publish(event);
    for (const { turn, turnId, from } of planned) {
      bus.emit('agent.message', { turnId, text: turn.text, from });
      core.actor.send({
        type: 'USER_MESSAGE',
        message: { turnId, text: turn.text, from, scope: turn.scope, at },
      });
      if (ack !== undefined) bus.emit('agent.ack', { turnId, text: ack });
    }
    // A think already running for other work yields once to the page (one PREEMPT is enough for all its turns).
    if (ack === undefined && planned[0] !== undefined) preemptFor(core, planned[0].turnId);
  } finally {
    // The heartbeat has them: a checkpoint from now on counts them as seen.
    for (const message of stored) conversation.release(message.seq);
  }
  return planned.map(({ reply }) => reply);
}
