/** The working-memory actor: XState logic hosting the pure working-memory reducer; an invalid event crashes it for the heartbeat to supervise. */
import { fromTransition } from 'xstate';
import { workingMemoryReducer } from './working-memory.reducer.js';
import { WorkingMemoryEventSchema } from './working-memory.schema.js';
import type { WorkingMemoryState, WorkingMemoryEvent } from './working-memory.schema.js';

/** The working-memory logic: its input is the state to start from (fresh or restored from a checkpoint). */
export const workingMemoryLogic = fromTransition(
  (state: WorkingMemoryState, event: WorkingMemoryEvent): WorkingMemoryState =>
    // XState feeds its own events (xstate.stop) through the transition; they are not ours to validate.
    event.type.startsWith('xstate.') ? state : workingMemoryReducer(state, WorkingMemoryEventSchema.parse(event)),
  ({ input }: { input: WorkingMemoryState }) => input,
);
