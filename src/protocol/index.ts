/** The protocol floor: every wire type (RPC params and results, events, errors, limits) as zod schemas, importing nothing above it. */
export * from './agent.schema.js';
export * from './budget.schema.js';
export * from './checkpoint-format.schema.js';
export * from './checkpoint-transfer.schema.js';
export * from './checkpoints.schema.js';
export * from './conversation.schema.js';
export * from './error-codes.js';
export * from './event-feed.schema.js';
export * from './events.schema.js';
export * from './goals.schema.js';
export * from './heartbeat.schema.js';
export * from './iso-time.js';
export * from './limits.js';
export * from './mcp-config.schema.js';
export * from './rpc-methods.js';
export * from './tools.schema.js';
export * from './zod-issues.js';
