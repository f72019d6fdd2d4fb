/** Every method group together; the type makes a method of the catalogue without a handler a compile error. */
import type { RpcHandlers } from '../rpc-router.js';
import { agentMethods } from './agent.methods.js';
import { budgetMethods } from './budget.methods.js';
import { checkpointMethods } from './checkpoint.methods.js';
import { discoverMethods } from './discover.methods.js';
import { eventsMethods } from './events.methods.js';
import { heartbeatMethods } from './heartbeat.methods.js';
import { toolsMethods } from './tools.methods.js';
import { thinksMethods } from './thinks.methods.js';
import { tasksMethods } from './tasks.methods.js';
import { memoryMethods } from './memory.methods.js';
import { conversationMethods } from './conversation.methods.js';
import { schedulesMethods } from './schedules.methods.js';
import { tokensMethods } from './tokens.methods.js';
import { webhooksMethods } from './webhooks.methods.js';
import { channelsMethods } from './channels.methods.js';

/** The handler of every method. */
export const ALL_METHODS: RpcHandlers = {
  ...heartbeatMethods,
  ...checkpointMethods,
  ...budgetMethods,
  ...agentMethods,
  ...eventsMethods,
  ...toolsMethods,
  ...thinksMethods,
  ...tasksMethods,
  ...memoryMethods,
  ...conversationMethods,
  ...schedulesMethods,
  ...tokensMethods,
  ...webhooksMethods,
  ...channelsMethods,
  ...discoverMethods,
};
