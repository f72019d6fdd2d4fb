/** The facade's status area: `heartbeat.status` read from the heartbeat's snapshot. */
import type { BudgetState } from '../../actors/budget/budget.schema.js';
import type { HeartbeatStatus } from '../../protocol/heartbeat.schema.js';
import { iso, type RuntimeCore } from '../runtime-core.js';

/** `heartbeat.status`. */
export function heartbeatStatus(core: RuntimeCore): HeartbeatStatus {
  const snapshot = core.actor.getSnapshot();
  const { context } = snapshot;
  return {
    beatCount: context.beatCount,
    phase: core.stopped ? 'stopped' : phaseOf(snapshot.value),
    state: snapshot.matches('dormant') ? 'dormant' : 'awake',
    activity: activityOf(snapshot.matches({ running: 'think' }), context.refs.budget.getSnapshot().context),
    intervalMs: context.intervalMs,
    startedAt: iso(core.startedAt),
    restoredFrom: context.restoredFrom,
    unreadReplies: context.turns.unreadReplies,
    pendingMessages: context.turns.pending.length,
    consecutiveFailures: context.consecutiveFailures,
    thinker: core.parts.deps.thinker.kind,
    version: core.parts.deps.runtimeVersion,
  };
}

/** Seed 002's agent status: working while a think runs, wrapping up once told to wind down, else idle. */
function activityOf(thinking: boolean, budget: BudgetState): HeartbeatStatus['activity'] {
  if (!thinking) return 'idle';
  return budget.windDownNotified && !budget.sleeping ? 'wrapping_up' : 'working';
}

function phaseOf(value: unknown): HeartbeatStatus['phase'] {
  if (value === 'paused') return 'paused';
  if (typeof value === 'object' && value !== null && 'dormant' in value) return 'dormant';
  if (typeof value === 'object' && value !== null && 'running' in value) {
    const running = value.running;
    const phase = typeof running === 'string' ? running : Object.keys(running as object)[0];
    if (phase === 'sense' || phase === 'think' || phase === 'integrate' || phase === 'sleep') return phase;
  }
  return 'sleep';
}
