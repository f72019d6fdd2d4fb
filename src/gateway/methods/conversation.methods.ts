/** The conversation's search: `conversation.search` (CONTRACT §17). */
import type { RpcHandlers } from '../rpc-router.js';

/** The conversation search method group (`conversation.list` is with the agent's methods). */
export const conversationMethods: RpcHandlers<'conversation.search'> = {
  'conversation.search': (params, { runtime }) => runtime.searchConversation(params),
};
