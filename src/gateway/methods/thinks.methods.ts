/** `thinks.list`, `thinks.get`: the think traces (CONTRACT §10). */
import type { RpcHandlers } from '../rpc-router.js';

/** The think traces method group. */
export const thinksMethods: RpcHandlers<'thinks.list' | 'thinks.get'> = {
  'thinks.list': (params, { runtime }) => runtime.listThinks(params),
  'thinks.get': (params, { runtime }) => runtime.getThink(params.id),
};
