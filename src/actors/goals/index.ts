/** The goals actor's public surface: schema, reducer and XState logic. */
export * from './goals.schema.js';
export * from './goals.reducer.js';
export * from './goals.actor.js';
