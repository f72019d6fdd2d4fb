/** `budget.status`, `budget.topUp` and `budget.setCap`. */
import type { RpcHandlers } from '../rpc-router.js';

/** The budget method group. */
export const budgetMethods: RpcHandlers<'budget.status' | 'budget.topUp' | 'budget.setCap'> = {
  'budget.status': (_params, { runtime }) => runtime.budgetStatus(),
  'budget.topUp': (params, { runtime }) => runtime.topUp(params),
  'budget.setCap': (params, { runtime }) => runtime.setCap(params),
};
