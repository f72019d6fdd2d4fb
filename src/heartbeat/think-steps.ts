/**
 * The think phase's steps as plain functions of the context, like `heartbeat.actions.ts`: each returns the patch to
 * assign, the effects to run, and the events to raise; the machine only wires them to its transitions.
 */
import type { SettleOutcome } from './settle-think.js';
import type { BeatStep } from './heartbeat.actions.js';
import { phaseElapsed } from './heartbeat.actions.js';
import type { HeartbeatContext, HeartbeatEvent } from './heartbeat.types.js';
import { thinkFailure, THINKER_PAUSE_MAX_MS, THINKER_PAUSE_MIN_MS } from './think-failure.js';
import type { ThinkResult } from '../subsystems/thinking/thinker.schema.js';
import { awaitTasks, closeTurns, countUnanswered } from './turn-book.js';

/** A step that may also raise events to the machine itself. */
export interface RaisingStep extends BeatStep {
  raise: HeartbeatEvent[];
}

/** The think returned: keep its result; a pause for refused credentials is over. */
export function thinkDone(context: HeartbeatContext, result: ThinkResult): BeatStep {
  const effects: Array<() => void> = [];
  const pause = context.thinkerPause;
  if (pause !== null) {
    const pausedForMs = Math.max(0, context.deps.clock.now() - pause.since);
    effects.push(() => context.deps.bus.emit('thinker.resumed', { pausedForMs }));
  }
  return { patch: { thinkerPause: null, beat: { ...context.beat, result, thinkMs: phaseElapsed(context) } }, effects };
}

/**
 * The think threw. Announce it (a preemption is announced as `agent.preempted` instead); with the ledger down, stop
 * thinking until it writes again; with refused credentials, pause thinking and back off; keep what a preempted think
 * completed. Integrate then settles the turns it carried.
 */
export function thinkFailed(context: HeartbeatContext, error: unknown): RaisingStep {
  const { deps, beat } = context;
  const outcome = thinkFailure(error, beat.preempted);
  const { failure } = outcome;
  const effects: Array<() => void> = [];
  const raise: HeartbeatEvent[] = [];
  if (outcome.announce)
    effects.push(() => deps.bus.emit('think.failed', { reason: failure.reason, code: failure.code }));
  // Money that cannot be recorded must not be spent.
  if (failure.code === 'BUDGET_LEDGER_UNAVAILABLE') raise.push({ type: 'LEDGER_FAILED', reason: failure.reason });
  let thinkerPause = context.thinkerPause;
  if (failure.code === 'THINK_AUTH_FAILED') {
    const now = deps.clock.now();
    const backoffMs = Math.min(
      THINKER_PAUSE_MAX_MS,
      thinkerPause === null ? THINKER_PAUSE_MIN_MS : thinkerPause.backoffMs * 2,
    );
    thinkerPause = { since: thinkerPause?.since ?? now, retryAt: now + backoffMs, backoffMs };
    const retryAt = new Date(thinkerPause.retryAt).toISOString();
    effects.push(() => deps.bus.emit('thinker.paused', { code: failure.code, reason: failure.reason, retryAt }));
  }
  const failedBeat = {
    ...beat,
    failure,
    result: outcome.partial,
    failed: outcome.countsAsFailure,
    thinkMs: phaseElapsed(context),
  };
  return { patch: { thinkerPause, beat: failedBeat }, effects, raise };
}

/**
 * A user message preempts this think: it yields at its next safe point (its abort signal), what it completed is kept,
 * and interrupted autonomous work is resumed after the user's turn.
 */
export function preemptThink(context: HeartbeatContext, reason: string): BeatStep {
  const { beat } = context;
  const autonomous = beat.plan !== null && beat.plan.reason !== 'user_message';
  return {
    patch: { beat: { ...beat, preempted: true }, ...(autonomous ? { deferred: beat.plan } : {}) },
    effects: [
      () => context.deps.bus.emit('agent.preempted', { reason }),
      () => beat.preempt?.abort(new Error(`preempted: ${reason}`)),
    ],
  };
}

/** The think ran past the stuck-turn limit: it is abandoned; its turns count one try (TURN_STUCK on the last). */
export function thinkStuck(context: HeartbeatContext): BeatStep {
  const reason = `The turn was still thinking after ${context.deps.options.stuckTurnMs} ms and was reset as stuck.`;
  return {
    patch: {
      beat: { ...context.beat, failed: true, failure: { code: 'THINK_STUCK', reason }, thinkMs: phaseElapsed(context) },
      turns: { ...context.turns, turnInProgress: false },
    },
    effects: [() => context.deps.bus.emit('think.failed', { reason, code: 'THINK_STUCK' })],
  };
}

/** Settling wrote the endings: close those turns, count a try on the missed ones, and park those waiting on tasks. */
export function thinkSettled(context: HeartbeatContext, outcome: SettleOutcome): Partial<HeartbeatContext> {
  const closed = closeTurns(context.turns, [
    ...outcome.replied.map((turnId) => ({ turnId, replied: true })),
    ...outcome.unanswered.map((turnId) => ({ turnId, replied: false })),
  ]);
  return { turns: awaitTasks(countUnanswered(closed, outcome.missed).turns, outcome.awaiting) };
}
