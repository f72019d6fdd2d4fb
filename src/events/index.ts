/** The events subsystem: schemas, filters and the bus. */
export * from '../protocol/events.schema.js';
export * from './event-filter.js';
export * from './event-bus.js';
