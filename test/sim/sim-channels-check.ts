/**
 * The chat channel's invariants, over a run's whole history (CONTRACT §18): every platform message admitted is
 * exactly one turn and none makes two; no update was confirmed before its message was durable (seen by the platform
 * on the disk as it confirmed, sim-chat-platform.ts); each turn's reply is shown in its chat once, and every ended
 * turn's reply is shown unless the platform refused it for good; the only placeholders left showing "…" are ones
 * whose send's answer was lost or cut by a crash; and what the platform saw as it happened (a 429's retry-after
 * honoured, no message over the limit); and a stranger hears from the bot at most once an hour.
 */
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import { splitReply } from '../../src/subsystems/channels/telegram/telegram-text.js';
import { SHOWN_PLACEHOLDER } from './sim-chat-platform.js';
import type { SimChatMessage, SimChatWorld } from './sim-chat-world.js';
import { SIM_CHANNEL, verdictOf, type SimChannelScenario } from './sim-chat-scenario.js';
import type { Violation } from './sim-checker.js';
import type { SimHistory } from './sim-history.js';

/** The channel's part of a run's history. */
export interface SimChannelHistory {
  world: SimChatWorld;
  /** The inbox records on disk at the end: each admitted message's turn. */
  inbox: { chatId: string; messageId: string; turnId: string }[];
  /** The channel's user turns in the conversation log at the end. */
  turns: { turnId: string; from: string }[];
  /**
   * Placeholders left showing "…" (`strays`; `refusedStrays` of them in replies the platform then refused for good),
   * and placeholder sends whose answer was lost, cut by a crash, or whose recording write failed (each may leave one
   * stray).
   */
  strays: number;
  refusedStrays: number;
  cutSends: number;
}

const ONE_TURN = 'a channel message is exactly one turn';
const SHOWN_ONCE = "a turn's reply is shown once in its chat";
const SHOWN = "every ended turn's reply is shown in its chat";
const STRAYS = 'a stray placeholder is one a lost answer left';
const NOBODY = 'a message the policy refuses costs nothing';

/** Every channel invariant over `history` (none without a channel). */
export function checkChannels(history: SimHistory, all: Map<number, VigilEvent>): Violation[] {
  const channel = history.channel;
  const scenario = history.scenario.channel;
  if (channel === null || scenario === null) return [];
  const settled = history.drained && history.stoppedCleanly;
  return [
    ...channel.world.violations,
    ...checkOneTurn(history, channel, all),
    ...checkAdmission(channel, scenario, all, settled),
    ...checkShown(channel, scenario, all, settled),
    ...checkStrangers(channel, all),
    ...(settled ? checkStrays(channel) : []),
  ];
}

/** Stray placeholders and cut sends of a channel's world, as the history reports them. */
export function strayCounts(world: SimChatWorld): { strays: number; refusedStrays: number; cutSends: number } {
  const bots = Object.values(world.chats)
    .flat()
    .filter((m) => m.kind === 'reply');
  return {
    strays: bots.filter(isStray).length,
    refusedStrays: bots.filter((m) => isStray(m) && m.editRefused === true).length,
    cutSends: bots.filter((m) => m.answer !== undefined && m.answer !== 'delivered').length,
  };
}

function checkOneTurn(history: SimHistory, channel: SimChannelHistory, all: Map<number, VigilEvent>): Violation[] {
  const violations: Violation[] = [];
  const byMessage = new Map<string, Set<string>>();
  for (const event of all.values()) {
    if (event.type !== 'channel.received' || event.channel !== SIM_CHANNEL) continue;
    const key = `${event.chatId}/${event.messageId}`;
    byMessage.set(key, (byMessage.get(key) ?? new Set()).add(event.turnId));
  }
  for (const [key, turns] of byMessage)
    if (turns.size > 1)
      violations.push({
        invariant: ONE_TURN,
        detail: `message ${key} made ${turns.size} turns: ${[...turns].join(', ')}`,
      });
  const recorded = new Set<string>();
  for (const { chatId, messageId, turnId } of channel.inbox) {
    recorded.add(turnId);
    const received = byMessage.get(`${chatId}/${messageId}`);
    if (received === undefined)
      violations.push({
        invariant: ONE_TURN,
        detail: `message ${chatId}/${messageId} has an inbox record (turn ${turnId}) and no channel.received`,
      });
    else if (!received.has(turnId))
      violations.push({
        invariant: ONE_TURN,
        detail: `message ${chatId}/${messageId}'s inbox record names turn ${turnId}, channel.received ${[...received].join(', ')}`,
      });
  }
  // Every turn from the channel, in the log or announced, is an admitted message's.
  const fromChannel = new Map<string, string>(channel.turns.map((t) => [t.turnId, t.from]));
  for (const event of all.values())
    if (event.type === 'agent.message' && event.from.startsWith(`${SIM_CHANNEL}:`))
      fromChannel.set(event.turnId, event.from);
  for (const [turnId, from] of fromChannel)
    if (!recorded.has(turnId))
      violations.push({ invariant: ONE_TURN, detail: `turn ${turnId} from ${from} belongs to no inbox record` });
  // A recorded turn the rest of the checker may not know (no agent.message, not in the log) still ends exactly once.
  const known = new Set([...history.loggedTurnIds, ...fromChannel.keys()]);
  const ends = endings(all);
  for (const turnId of recorded)
    if (!known.has(turnId) && history.drained && (ends.get(turnId)?.length ?? 0) !== 1)
      violations.push({
        invariant: ONE_TURN,
        detail: `admitted turn ${turnId} ended ${ends.get(turnId)?.length ?? 0} times`,
      });
  return violations;
}

// What the policy admits is admitted once the run settles; what it refuses never is (a stranger costs nothing).
function checkAdmission(
  channel: SimChannelHistory,
  scenario: SimChannelScenario,
  all: Map<number, VigilEvent>,
  settled: boolean,
): Violation[] {
  const violations: Violation[] = [];
  const admitted = new Set(channel.inbox.map((r) => `${r.chatId}/${r.messageId}`));
  const paired = new Set<string>();
  for (const event of all.values()) if (event.type === 'channel.paired') paired.add(event.senderId);
  for (const message of people(channel.world)) {
    const verdict = verdictOf(scenario, { ...message, senderId: message.from });
    const key = `${message.chatId}/${message.messageId}`;
    if (verdict === 'admit' && settled && !admitted.has(key))
      violations.push({
        invariant: ONE_TURN,
        detail: `message ${key} from ${message.from} (${iso(message.at)}) was never admitted`,
      });
    const mayAdmit = verdict === 'admit' || (verdict === 'stranger' && paired.has(message.from));
    if (!mayAdmit && admitted.has(key))
      violations.push({ invariant: NOBODY, detail: `message ${key} from ${message.from} (${verdict}) was admitted` });
  }
  if (settled) {
    const open = channel.world.updates.filter((u) => u.confirmedAt === undefined);
    if (open.length > 0)
      violations.push({
        invariant: ONE_TURN,
        detail: `${open.length} updates never confirmed, from update ${open[0]!.updateId}`,
      });
  }
  return violations;
}

// Per chat, the texts its bot messages finally show against the texts its turns' endings (and acks) call for.
function checkShown(
  channel: SimChannelHistory,
  scenario: SimChannelScenario,
  all: Map<number, VigilEvent>,
  settled: boolean,
): Violation[] {
  const violations: Violation[] = [];
  const admitted = new Map(channel.inbox.map((r) => [r.turnId, { chatId: r.chatId, messageId: r.messageId }]));
  for (const event of all.values())
    if (event.type === 'channel.received' && event.channel === SIM_CHANNEL)
      admitted.set(event.turnId, { chatId: event.chatId, messageId: event.messageId });
  const failed = new Set<string>();
  for (const event of all.values()) if (event.type === 'channel.send_failed') failed.add(event.turnId);
  const ends = endings(all);
  const acks = new Map<string, string[]>();
  for (const event of all.values())
    if (event.type === 'agent.ack' && admitted.has(event.turnId))
      acks.set(event.turnId, [...(acks.get(event.turnId) ?? []), event.text]);
  // Per chat and text: the turns that may show it (at most), and those that must (at least).
  const may = new Map<string, string[]>();
  const must = new Map<string, string[]>();
  const add = (into: Map<string, string[]>, key: string, turnId: string) =>
    into.set(key, [...(into.get(key) ?? []), turnId]);
  for (const [turnId, { chatId }] of admitted) {
    const ending = ends.get(turnId)?.[0];
    const texts = [
      ...(ending === undefined ? [] : partsOf(ending, scenario.maxMessageLength)),
      ...(acks.get(turnId) ?? []),
    ];
    for (const text of texts) {
      add(may, keyOf(chatId, text), turnId);
      if (!failed.has(turnId)) add(must, keyOf(chatId, text), turnId);
    }
  }
  const shown = new Map<string, SimChatMessage[]>();
  for (const message of Object.values(channel.world.chats).flat()) {
    if (message.kind !== 'reply' || message.deletedAt !== undefined || isStray(message)) continue;
    const key = keyOf(message.chatId, message.texts.at(-1)!);
    shown.set(key, [...(shown.get(key) ?? []), message]);
  }
  for (const [key, messages] of shown) {
    const [chatId, text] = split(key);
    const turns = may.get(key) ?? [];
    const where = messages.map((m) => m.messageId).join(', ');
    // A preview may show part of a reply while it is open; once the run settles, only whole parts remain.
    if (turns.length === 0 && settled && !messages.every((m) => m.editRefused === true))
      violations.push({
        invariant: SHOWN_ONCE,
        detail: `chat ${chatId} messages ${where} show "${cut(text)}", which is no turn's reply`,
      });
    else if (turns.length > 0 && messages.length > turns.length)
      violations.push({
        invariant: SHOWN_ONCE,
        detail: `chat ${chatId} shows "${cut(text)}" (turn ${turns.join(', ')}) in ${messages.length} messages: ${where}`,
      });
  }
  if (!settled) return violations;
  for (const [key, turns] of must) {
    const count = shown.get(key)?.length ?? 0;
    if (count >= turns.length) continue;
    const [chatId, text] = split(key);
    violations.push({
      invariant: SHOWN,
      detail: `chat ${chatId} never showed "${cut(text)}" of turn ${turns.join(', ')} (shown ${count} times) and no channel.send_failed`,
    });
  }
  // The first message of a reply (and of an ack) replies to the message it answers.
  for (const [turnId, { chatId, messageId }] of admitted) {
    const ending = ends.get(turnId)?.[0];
    if (ending === undefined || failed.has(turnId)) continue;
    for (const first of [partsOf(ending, scenario.maxMessageLength)[0]!, ...(acks.get(turnId) ?? [])]) {
      const messages = shown.get(keyOf(chatId, first)) ?? [];
      if (messages.length === 0 || messages.some((m) => m.replyTo === messageId)) continue;
      violations.push({
        invariant: SHOWN,
        detail: `chat ${chatId} shows "${cut(first)}" of turn ${turnId} in message ${messages.map((m) => m.messageId).join(', ')}, none replying to message ${messageId}`,
      });
    }
  }
  return violations;
}

/**
 * How often a stranger hears from the bot: at most one pairing reply, and one channel.refused, per hour (an approval
 * between two replies ends the first pairing: once revoked, the sender is a new stranger).
 */
function checkStrangers(channel: SimChannelHistory, all: Map<number, VigilEvent>): Violation[] {
  const violations: Violation[] = [];
  const pairedAt = new Map<string, number[]>();
  for (const event of all.values())
    if (event.type === 'channel.paired')
      pairedAt.set(event.senderId, [...(pairedAt.get(event.senderId) ?? []), Date.parse(event.at)]);
  for (const [chatId, messages] of Object.entries(channel.world.chats)) {
    const notices = messages.filter((m) => m.kind === 'notice');
    for (let i = 1; i < notices.length; i += 1) {
      const [before, after] = [notices[i - 1]!.at, notices[i]!.at];
      const approvedBetween = (pairedAt.get(chatId) ?? []).some((at) => at >= before && at <= after);
      if (after - before < HOUR_MS && !approvedBetween)
        violations.push({
          invariant: NOBODY,
          detail: `chat ${chatId} got pairing replies at ${iso(before)} and ${iso(after)}, within an hour`,
        });
    }
  }
  const refused = new Map<string, number>();
  for (const event of all.values()) {
    if (event.type !== 'channel.refused') continue;
    const at = Date.parse(event.at);
    const before = refused.get(event.senderId);
    if (before !== undefined && at - before < HOUR_MS)
      violations.push({
        invariant: NOBODY,
        detail: `channel.refused for sender ${event.senderId} at ${iso(before)} and seq ${event.seq} ${event.at}, within an hour`,
      });
    refused.set(event.senderId, at);
  }
  return violations;
}

function checkStrays(channel: SimChannelHistory): Violation[] {
  const violations: Violation[] = [];
  for (const message of Object.values(channel.world.chats).flat()) {
    if (message.kind !== 'reply' || !isStray(message)) continue;
    if (message.answer !== 'delivered' || message.editRefused === true) continue;
    violations.push({
      invariant: STRAYS,
      detail: `placeholder ${message.chatId}/${message.messageId} (placed ${iso(message.at)} by incarnation ${message.placedBy}, its id delivered and recorded) still shows "${SHOWN_PLACEHOLDER}"`,
    });
  }
  return violations;
}

/** A bot message never edited: it still shows its placeholder. */
function isStray(message: SimChatMessage): boolean {
  return message.kind === 'reply' && message.deletedAt === undefined && message.texts.length === 1;
}

/** Each turn's ending texts (agent.reply's text, agent.unanswered's reason), in seq order. */
function endings(all: Map<number, VigilEvent>): Map<string, string[]> {
  const ends = new Map<string, string[]>();
  for (const event of all.values()) {
    const end =
      event.type === 'agent.reply'
        ? { turnId: event.turnId, text: event.text }
        : event.type === 'agent.unanswered'
          ? { turnId: event.turnId, text: event.reason }
          : null;
    if (end !== null) ends.set(end.turnId, [...(ends.get(end.turnId) ?? []), end.text]);
  }
  return ends;
}

/** The messages an ending is shown in: split to the platform's limit, as the outbox splits it. */
function partsOf(text: string, limit: number): string[] {
  const parts = splitReply(text, limit);
  return parts.length > 0 ? parts : ['(no reply)'];
}

function people(world: SimChatWorld): SimChatMessage[] {
  return Object.values(world.chats)
    .flat()
    .filter((m) => m.kind === 'person');
}

const HOUR_MS = 3_600_000;
const keyOf = (chatId: string, text: string) => `${chatId}\u0000${text}`;
const split = (key: string): [string, string] => {
  const at = key.indexOf('\u0000');
  return [key.slice(0, at), key.slice(at + 1)];
};
const cut = (text: string) => (text.length > 60 ? `${text.slice(0, 57)}…` : text);
const iso = (ms: number) => new Date(ms).toISOString();
