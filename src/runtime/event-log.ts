/** Mirrors warning events into the log, so an operator reading only logs sees every corrupt checkpoint, crash and failed think. */
import type { Subscription } from 'rxjs';
import type { VigilLogger } from '../shared/logger.js';
import type { EventBus } from '../events/event-bus.js';
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
