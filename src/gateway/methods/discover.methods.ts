/** `rpc.discover`: the OpenRPC document. */
import type { RpcHandlers } from '../rpc-router.js';

/** The discovery method group. */
export const discoverMethods: RpcHandlers<'rpc.discover'> = {
  'rpc.discover': (_params, { discover }) => discover(),
};
