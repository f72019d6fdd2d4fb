/** The budget actor's public surface: schema, calendar, reducer and XState logic. */
export * from './budget.schema.js';
export * from './budget-calendar.js';
export * from './budget.reducer.js';
export * from './budget.actor.js';
