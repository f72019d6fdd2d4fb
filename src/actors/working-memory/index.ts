/** The working-memory actor's public surface: schema, reducer and XState logic. */
export * from './working-memory.schema.js';
export * from './working-memory.reducer.js';
export * from './working-memory.actor.js';
