/** The affect actor: XState logic hosting the pure affect reducer; an invalid event crashes it for the heartbeat to supervise. */
import { fromTransition } from 'xstate';
import { affectReducer } from './affect.reducer.js';
import { AffectEventSchema } from './affect.schema.js';
import type { AffectState, AffectEvent } from './affect.schema.js';

/** The affect logic: its input is the state to start from (fresh or restored from a checkpoint). */
export const affectLogic = fromTransition(
  (state: AffectState, event: AffectEvent): AffectState =>
    // XState feeds its own events (xstate.stop) through the transition; they are not ours to validate.
    event.type.startsWith('xstate.') ? state : affectReducer(state, AffectEventSchema.parse(event)),
  ({ input }: { input: AffectState }) => input,
);
