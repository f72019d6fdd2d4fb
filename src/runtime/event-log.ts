/** Mirrors warning events into the log, so an operator reading only logs sees every corrupt checkpoint, crash and failed think. */
import type { Subscription } from 'rxjs';
import type { VigilLogger } from '../shared/logger.js';
import { EventBus } from '../events/event-bus.js';
import type { Clock } from '../shared/clock.js';
import type { EventType } from '../protocol/events.schema.js';

/** Event types logged, and at which level (CONTRACT §2). */
export const LOGGED_EVENT_LEVELS: Partial<Record<EventType, 'warn' | 'error' | 'info'>> = {
  'checkpoint.corrupt': 'warn',
  'checkpoint.failed': 'error',
  'actor.crashed': 'warn',
  'actor.restarted': 'info',
  'think.failed': 'warn',
  'think.cache_prefix_short': 'warn',
  'think.cache_miss': 'warn',
  'think.usage_implausible': 'warn',
  'heartbeat.circuit_open': 'error',
  'heartbeat.circuit_closed': 'info',
  'checkpoint.restored': 'info',
  'checkpoint.created': 'info',
  'budget.ledger_failed': 'error',
  'budget.ledger_recovered': 'info',
  'mcp.server_up': 'info',
  'mcp.server_down': 'warn',
  'mcp.tools_changed': 'info',
  'mcp.auth_required': 'warn',
  'mcp.auth_completed': 'info',
  'mcp.auth_failed': 'warn',
  'tool.interrupted': 'warn',
  'swarm.task_interrupted': 'warn',
};

/** Logs each listed event with its type and payload; returns the subscription. */
export function logWarningEvents(bus: EventBus, log: VigilLogger): Subscription {
  return bus.events$.subscribe((event) => {
    const level = LOGGED_EVENT_LEVELS[event.type];
    if (level === undefined) return;
    const { seq: _seq, at: _at, ...fields } = event;
    log[level](fields, event.type);
  });
}

/** The runtime's own bus: subscriber errors and a feed held by a stuck write are logged, never thrown. */
export function createLoggedBus(clock: Clock, currentBeat: () => number, log: VigilLogger): EventBus {
  return new EventBus({
    clock,
    currentBeat,
    onSubscriberError: (err) => log.error({ err }, 'an event subscriber threw; the bus goes on'),
    onPublicationStuck: ({ seq, type, late }) =>
      late
        ? log.warn(
            { seq, type },
            'an event held past the publication limit was written after all: it is in events.history, not in the live feed',
          )
        : log.warn(
            { seq, type },
            'an event is still not written after the publication limit; the events behind it go out',
          ),
  });
}
