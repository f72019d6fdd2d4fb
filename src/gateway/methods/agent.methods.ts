/** The agent's mind and mouth: `goals.*`, `memory.list`, `affect.get`, `agent.send`, `conversation.list`. */
import type { RpcHandlers } from '../rpc-router.js';

type AgentMethod =
  'goals.list' | 'goals.add' | 'goals.complete' | 'memory.list' | 'affect.get' | 'agent.send' | 'conversation.list';

/** The agent method group. */
export const agentMethods: RpcHandlers<AgentMethod> = {
  'goals.list': (_params, { runtime }) => runtime.listGoals(),
  'goals.add': (params, { runtime }) => runtime.addGoal(params),
  'goals.complete': (params, { runtime }) => runtime.completeGoal(params.id),
  'memory.list': (_params, { runtime }) => runtime.listMemory(),
  'affect.get': (_params, { runtime }) => runtime.getAffect(),
  // With the caller's scope: a talk token's message cannot make the agent do what only operate may (CONTRACT §14).
  'agent.send': (params, { runtime, caller }) => runtime.send(params, caller.scope),
  'conversation.list': (params, { runtime }) => runtime.listConversation(params),
};
