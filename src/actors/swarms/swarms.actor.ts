/** The swarms actor: XState logic hosting the pure swarms reducer; an invalid event crashes it for the heartbeat to supervise. */
import { fromTransition } from 'xstate';
import { swarmsReducer } from './swarms.reducer.js';
import { SwarmsEventSchema } from './swarms.schema.js';
import type { SwarmsState, SwarmsEvent } from './swarms.schema.js';

/** The swarms logic: its input is the state to start from (fresh or restored from a checkpoint). */
export const swarmsLogic = fromTransition(
  (state: SwarmsState, event: SwarmsEvent): SwarmsState =>
    // XState feeds its own events (xstate.stop) through the transition; they are not ours to validate.
    event.type.startsWith('xstate.') ? state : swarmsReducer(state, SwarmsEventSchema.parse(event)),
  ({ input }: { input: SwarmsState }) => input,
);
