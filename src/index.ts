/** Vigil as a library: `createRuntime(options)` embeds the agent runtime in another program. */
export { createRuntime, createThinker, type RuntimeOptions } from './runtime/create-runtime.js';
export { Runtime } from './runtime/runtime.js';
export type * from './protocol/index.js';
export { configFromDefaults, loadConfig, type VigilConfig } from './config.js';
export { VigilError, ERROR_CODES, isVigilError, type VigilErrorCode } from './errors.js';
export { systemClock, createSimulatedClock, type Clock } from './shared/clock.js';
export { SimulatedClock } from './shared/simulated-clock.js';
export { EventBus } from './events/event-bus.js';
export { ALL_EVENT_TYPES, VigilEventSchema, type EventType, type VigilEvent } from './protocol/events.schema.js';
export { typeMatcher, ofTypes } from './events/event-filter.js';
export type { Thinker } from './subsystems/thinking/thinker.js';
export type * from './subsystems/thinking/thinker.schema.js';
export { OfflineThinker } from './subsystems/thinking/offline-thinker.js';
export { AnthropicThinker } from './subsystems/thinking/anthropic-thinker.js';
export { OpenAiThinker, type OpenAiThinkerOptions } from './subsystems/thinking/openai-thinker.js';
export { resolvePrice, costMicroUsd, usdToMicroUsd, microUsdToUsd } from './subsystems/thinking/pricing.js';
export { BudgetLedger } from './subsystems/budget/budget-ledger.js';
export { dayKeyIn, nextMidnightIn } from './actors/budget/budget-calendar.js';
export {
  CognitiveCheckpointSchema,
  CHECKPOINT_FORMAT_VERSION,
  type CognitiveCheckpoint,
} from './protocol/checkpoint-format.schema.js';
export { openVigilDb, type VigilDb } from './subsystems/store/vigil-db.js';
export {
  connect,
  rpcUrl,
  VigilClient,
  type ConnectOptions,
  type ClientState,
  type ReconnectOptions,
} from './client/vigil-client.js';
export { RpcError } from './client/rpc-error.js';
export type { TypedMethods } from './client/client-methods.js';
export {
  startGateway,
  MAX_FRAME_BYTES,
  type Gateway,
  type GatewayOptions,
  type RouteHandler,
} from './gateway/http-server.js';
export { readTokenFile, tokenFilePath, ensureTokenFile } from './shared/token-file.js';
export { RPC_METHODS, type RpcMethodName, type RpcParams, type RpcResult } from './protocol/rpc-methods.js';
export { TOKEN_SCOPES, scopeAllows, type TokenScope } from './protocol/token-scopes.js';
export type {
  DroppedNotification,
  EventNotification,
  SubscribeParams,
  HistoryParams,
} from './protocol/event-feed.schema.js';
export { buildOpenRpcDocument } from './gateway/openrpc.js';
export { exportCheckpoint, importCheckpoint } from './runtime/checkpoint-transfer.js';
export {
  CheckpointExportSchema,
  type CheckpointExport,
  type ImportResult,
} from './protocol/checkpoint-transfer.schema.js';
export { McpConfigFileSchema } from './protocol/mcp-config.schema.js';
