/** `tools.list`. */
import type { RpcHandlers } from '../rpc-router.js';

/** The tools method group. */
export const toolsMethods: RpcHandlers<'tools.list'> = {
  'tools.list': (_params, { runtime }) => runtime.listTools(),
};
