/** `tasks.list`, `tasks.cancel`. */
import type { RpcHandlers } from '../rpc-router.js';

/** The tasks method group. */
export const tasksMethods: RpcHandlers<'tasks.list' | 'tasks.cancel'> = {
  'tasks.list': (_params, { runtime }) => runtime.listTasks(),
  'tasks.cancel': (params, { runtime }) => runtime.cancelTask(params.id),
};
