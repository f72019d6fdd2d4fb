/** `heartbeat.status`. */
import type { RpcHandlers } from '../rpc-router.js';

/** The heartbeat method group. */
export const heartbeatMethods: RpcHandlers<'heartbeat.status'> = {
  'heartbeat.status': (_params, { runtime }) => runtime.status(),
};
