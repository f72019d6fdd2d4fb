/** The budget actor: XState logic hosting the pure budget reducer; an invalid event crashes it for the heartbeat to supervise. */
import { fromTransition } from 'xstate';
import { budgetReducer } from './budget.reducer.js';
import { BudgetEventSchema, type BudgetEvent, type BudgetState } from './budget.schema.js';

/** The budget logic: its input is the state to start from (fresh, or restored from a checkpoint and the ledger). */
export const budgetLogic = fromTransition(
  (state: BudgetState, event: BudgetEvent): BudgetState =>
    // XState feeds its own events (xstate.stop) through the transition; they are not ours to validate.
    event.type.startsWith('xstate.') ? state : budgetReducer(state, BudgetEventSchema.parse(event)),
  ({ input }: { input: BudgetState }) => input,
);
