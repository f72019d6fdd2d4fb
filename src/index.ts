/** Vigil as a library: `createRuntime(options)` embeds the agent runtime in another program. */
export { createRuntime, createThinker, type RuntimeOptions } from './runtime/create-runtime.js';
export { Runtime } from './runtime/runtime.js';
export type * from './runtime/runtime.schema.js';
export { configFromDefaults, loadConfig, type VigilConfig } from './config.js';
export { VigilError, ERROR_CODES, isVigilError, type VigilErrorCode } from './errors.js';
export { systemClock, createSimulatedClock, type Clock } from './shared/clock.js';
export { EventBus } from './subsystems/events/event-bus.js';
export { ALL_EVENT_TYPES, VigilEventSchema, type EventType, type VigilEvent } from './subsystems/events/event.schema.js';
export { typeMatcher, ofTypes } from './subsystems/events/event-filter.js';
export type { Thinker } from './subsystems/thinking/thinker.js';
export type * from './subsystems/thinking/thinker.schema.js';
export { OfflineThinker } from './subsystems/thinking/offline-thinker.js';
export { AnthropicThinker } from './subsystems/thinking/anthropic-thinker.js';
export { resolvePrice, costMicroUsd, usdToMicroUsd, microUsdToUsd } from './subsystems/thinking/pricing.js';
export { BudgetLedger } from './subsystems/budget/budget-ledger.js';
export { dayKeyIn, nextMidnightIn } from './actors/budget/budget-calendar.js';
export { CognitiveCheckpointSchema, CHECKPOINT_FORMAT_VERSION, type CognitiveCheckpoint } from './subsystems/checkpoint/checkpoint.schema.js';
export { openVigilDb, type VigilDb } from './subsystems/store/vigil-db.js';
