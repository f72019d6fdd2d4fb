/** `tools.list`, `tools.pending`, `tools.approve`, `tools.deny`, `tools.login`, `tools.logout`. */
import type { RpcHandlers } from '../rpc-router.js';

/** The tools method group. */
export const toolsMethods: RpcHandlers<
  'tools.list' | 'tools.pending' | 'tools.approve' | 'tools.deny' | 'tools.login' | 'tools.logout'
> = {
  'tools.list': (_params, { runtime, caller }) => runtime.mcpServers.list(caller.scope),
  'tools.pending': (_params, { runtime }) => runtime.pendingToolCalls(),
  'tools.approve': (params, { runtime }) => runtime.approveToolCall(params.callId),
  'tools.deny': (params, { runtime }) => runtime.denyToolCall(params),
  'tools.login': (params, { runtime }) => runtime.mcpServers.login(params.server),
  'tools.logout': (params, { runtime }) => runtime.mcpServers.logout(params.server),
};
