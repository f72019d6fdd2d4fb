/** The swarms actor's public surface: schema, reducer and XState logic. */
export * from './swarms.schema.js';
export * from './swarms.reducer.js';
export * from './swarms.actor.js';
