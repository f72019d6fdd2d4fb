/** The sense phase's decision: is there something to think about this beat, and what? Pure. */
import { dueGoals, mostUrgentGoal } from '../actors/goals/goals.reducer.js';
import type { GoalsState } from '../actors/goals/goals.schema.js';
import { unconsumedResults } from '../actors/swarms/swarms.reducer.js';
import type { SwarmsState } from '../actors/swarms/swarms.schema.js';
import type { PendingMessage, ThinkReason } from '../subsystems/thinking/thinker.schema.js';

/** What the think phase will do this beat. */
export interface BeatPlan {
  reason: ThinkReason;
  /** The user turn being answered, or null for autonomous work (the heartbeat names the turn). */
  turnId: string | null;
  focusGoalId?: string;
  swarmTaskIds: string[];
  /** Work a user message interrupted, taken up again. */
  resumed?: boolean;
}

/** What sense looks at. */
export interface PlanInputs {
  now: number;
  beatCount: number;
  pending: readonly PendingMessage[];
  goals: GoalsState;
  swarms: SwarmsState;
  /** The beat of the last autonomous goal think (or -Infinity). */
  lastGoalWorkBeat: number;
  /** Beats between autonomous goal thinks, so steady goal work doesn't think on every beat. */
  goalWorkEveryBeats: number;
  /** A debrief is owed and may run now. */
  debriefReady: boolean;
  /** False while winding down: finish what is pending, start nothing new. */
  autonomyAllowed: boolean;
  /** Autonomous work a user message interrupted, if any. */
  deferred?: BeatPlan | null;
}

/**
 * User messages first (all pending ones in one think), then swarm results, then interrupted work, then an owed debrief, then a due goal,
 * then (paced) the most urgent goal; else null: an idle beat, which calls no thinker.
 */
export function planBeat(inputs: PlanInputs): BeatPlan | null {
  const firstPending = inputs.pending[0];
  if (firstPending !== undefined) {
    return { reason: 'user_message', turnId: firstPending.turnId, swarmTaskIds: [] };
  }
  const results = unconsumedResults(inputs.swarms);
  if (results.length > 0) {
    return { reason: 'swarm_results', turnId: null, swarmTaskIds: results.map((task) => task.id) };
  }
  if (!inputs.autonomyAllowed) return null;
  if (inputs.deferred != null) return { ...inputs.deferred, resumed: true };
  if (inputs.debriefReady) return { reason: 'debrief', turnId: null, swarmTaskIds: [] };
  const due = dueGoals(inputs.goals, inputs.now)[0];
  if (due !== undefined) {
    return { reason: 'goal_work', turnId: null, focusGoalId: due.id, swarmTaskIds: [] };
  }
  if (inputs.beatCount - inputs.lastGoalWorkBeat >= inputs.goalWorkEveryBeats) {
    const urgent = mostUrgentGoal(inputs.goals, inputs.now);
    if (urgent !== undefined) return { reason: 'goal_work', turnId: null, focusGoalId: urgent.id, swarmTaskIds: [] };
  }
  return null;
}
