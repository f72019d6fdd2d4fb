/**
 * Traces each think as the think phase ends it: builds its trace, stores it (retention pruned in the same batch) and
 * announces it as `think.traced`. Tracing never fails a think: a trace that cannot be stored is logged and lost.
 */
import { describeError } from '../../errors.js';
import type { EventBus } from '../../events/event-bus.js';
import type { IdFactory } from '../../shared/ids.js';
import type { VigilLogger } from '../../shared/logger.js';
import { buildThinkTrace, type SettledThink } from './think-trace-builder.js';
import type { ThinkTraceStore } from './think-trace-store.js';

export type { SettledThink };

/** Where the heartbeat hands each finished think (`HeartbeatDeps.traces`). */
export interface ThinkTraceSink {
  /** Records the think; resolves once stored (or once storing failed, which is logged): never rejects. */
  record(think: SettledThink): Promise<void>;
}

/** What the tracer needs. */
export interface ThinkTracerOptions {
  store: ThinkTraceStore;
  /** Time-ordered ids (`th-…`), observed past the newest stored one. */
  ids: IdFactory;
  /** `VIGIL_TRACE_CONTENT`: keep the prompt's and the answers' text. */
  includeContent: boolean;
  bus: EventBus;
  log: VigilLogger;
  now: () => number;
}

/** The runtime's `ThinkTraceSink`. */
export class ThinkTracer implements ThinkTraceSink {
  constructor(private readonly options: ThinkTracerOptions) {}

  async record(think: SettledThink): Promise<void> {
    const { store, ids, includeContent, bus, log, now } = this.options;
    const trace = buildThinkTrace(ids.next(), think, includeContent);
    try {
      await store.add(trace, now());
    } catch (err) {
      log.error({ err: describeError(err), thinkId: trace.id }, 'a think trace could not be stored');
      return;
    }
    bus.emit('think.traced', { thinkId: trace.id, costUsd: trace.costUsd, durationMs: trace.durationMs });
  }
}
