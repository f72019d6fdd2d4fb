/** The affect actor's public surface: schema, reducer and XState logic. */
export * from './affect.schema.js';
export * from './affect.reducer.js';
export * from './affect.actor.js';
