/**
 * The heartbeat's steps for events that arrive between or during beats (a user message, the ledger failing or coming
 * back), as plain functions of the context like `heartbeat.actions.ts`: the patch to assign, then the effects to run.
 */
import type { PendingMessage } from '../protocol/conversation.schema.js';
import { persistTurn, type BeatStep } from './heartbeat.actions.js';
import type { HeartbeatContext } from './heartbeat.types.js';
import { openTurn } from './turn-book.js';

/** A message opens its turn and wakes the heartbeat: the beat that thinks about it starts now. */
export function receiveMessage(context: HeartbeatContext, message: PendingMessage): BeatStep {
  const turns = openTurn(context.turns, message);
  return {
    patch: { turns, lastUserActivityAt: message.at, wakeRequested: true },
    effects: [() => persistTurn(context.deps, turns)],
  };
}

/** A charge could not be written: the ledger is down from now, and nothing thinks until a probe write succeeds. */
export function ledgerFailed(context: HeartbeatContext, reason: string): BeatStep {
  const { bus, clock } = context.deps;
  return {
    patch: { ledger: { down: true, since: clock.now(), probing: false } },
    effects: [() => bus.emit('budget.ledger_failed', { reason })],
  };
}

/** A probe write came back: on success the ledger is up again (announced if it was down); on failure it may be probed again. */
export function ledgerProbed(context: HeartbeatContext, ok: boolean): BeatStep {
  const { ledger, deps } = context;
  if (!ok) return { patch: { ledger: { ...ledger, probing: false } }, effects: [] };
  const effects: Array<() => void> = [];
  if (ledger.down) {
    const downForMs = Math.max(0, deps.clock.now() - ledger.since);
    effects.push(() => deps.bus.emit('budget.ledger_recovered', { downForMs }));
  }
  return { patch: { ledger: { down: false, since: 0, probing: false } }, effects };
}
