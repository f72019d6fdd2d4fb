/** The goals actor: XState logic hosting the pure goals reducer; an invalid event crashes it for the heartbeat to supervise. */
import { fromTransition } from 'xstate';
import { goalsReducer } from './goals.reducer.js';
import { GoalsEventSchema } from './goals.schema.js';
import type { GoalsState, GoalsEvent } from './goals.schema.js';

/** The goals logic: its input is the state to start from (fresh or restored from a checkpoint). */
export const goalsLogic = fromTransition(
  (state: GoalsState, event: GoalsEvent): GoalsState =>
    // XState feeds its own events (xstate.stop) through the transition; they are not ours to validate.
    event.type.startsWith('xstate.') ? state : goalsReducer(state, GoalsEventSchema.parse(event)),
  ({ input }: { input: GoalsState }) => input,
);
