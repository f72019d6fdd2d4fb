/** Prometheus metrics (prom-client): fed by the event bus, plus hooks the gateway calls; served at `GET /metrics`. */
import type { Subscription } from 'rxjs';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { EventBus } from '../../events/event-bus.js';
import type { VigilEvent } from '../../protocol/events.schema.js';
import type { EmbeddingObserver } from '../embeddings/embedding-spend.js';
import { BeatTally } from './beat-tally.js';
import { buildMetrics } from './metric-table.js';
import { VIGIL_METRIC_TABLE } from './vigil-metric-table.js';

const NON_COUNTER_TOTALS = [
  'vigil_nodejs_active_handles_total',
  'vigil_nodejs_active_requests_total',
  'vigil_nodejs_active_resources_total',
];

/** Every metric Vigil exports, in one registry of its own (so embedding programs keep theirs). */
export class VigilMetrics {
  readonly registry = new Registry();
  private subscription: Subscription | undefined;
  private lastBeatEnd: { at: number; intervalMs: number } | undefined;

  private readonly tally = new BeatTally();
  // Each metric the tally feeds flushes it before it is read: a scrape reads metrics in turn, and whichever comes first
  // must already show the whole tally.
  private readonly metric = buildMetrics(VIGIL_METRIC_TABLE, this.registry, {
    events: () => this.tally.flush(),
    beats: () => this.tally.flush(),
    beatDuration: () => this.tally.flush(),
    beatDelay: () => this.tally.flush(),
  });
  private cacheShareSource: (() => number) | undefined;
  // Read when scraped, so the share is today's even after midnight passed without a think.
  private readonly cacheReadShare = new Gauge({
    name: 'vigil_cache_read_today_ratio',
    help: 'Share (0 to 1) of today’s prompt tokens read from the prompt cache.',
    registers: [this.registry],
    collect: () => {
      if (this.cacheShareSource !== undefined) this.cacheReadShare.set(this.cacheShareSource());
    },
  });

  constructor(options: { defaultMetrics?: boolean } = {}) {
    this.tally.useTargets(this.metric);
    if (options.defaultMetrics !== false) {
      collectDefaultMetrics({ register: this.registry, prefix: 'vigil_' });
      // prom-client names three gauges `_total`, which Prometheus keeps for counters; each is the sum of its by-type
      // gauge (`sum(vigil_nodejs_active_handles)`), so they go rather than being exported under a misleading name.
      for (const name of NON_COUNTER_TOTALS) this.registry.removeSingleMetric(name);
    }
  }

  /** Starts counting what `bus` emits. */
  observe(bus: EventBus): void {
    this.subscription = bus.events$.subscribe((event) => this.onEvent(event));
  }

  /** Stops observing the bus. */
  close(): void {
    this.subscription?.unsubscribe();
  }

  /** The Prometheus text exposition. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** The content type of `text()`. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Where the cache-read share of today comes from (the runtime's ledger). */
  readCacheShareWith(source: () => number): void {
    this.cacheShareSource = source;
  }

  /** A gateway connection opened (+1) or closed (−1). */
  connectionDelta(delta: 1 | -1): void {
    this.metric.connections.inc(delta);
  }

  /** A WebSocket, SSE or /mcp connection refused at a connection cap. */
  connectionRefused(reason: 'gateway_full' | 'token_full'): void {
    this.metric.connectionsRefused.inc({ reason });
  }

  /** A request or upgrade refused (429) because its address sent too many wrong tokens. */
  authThrottled(): void {
    this.metric.authThrottled.inc();
  }

  /** One JSON-RPC request answered, with its error code (0 for success). */
  requestHandled(method: string, code: number): void {
    this.metric.requests.inc({ method, code: String(code) });
  }

  /** Events dropped for a slow subscriber. */
  eventsDropped(count: number): void {
    this.metric.dropped.inc(count);
  }

  /** How many schedules will fire again (the schedule runner sets it whenever they change). */
  schedulesActive(count: number): void {
    this.metric.schedulesActive.set(count);
  }

  /** `count` messages of channel `channel` went `direction` (the channel's metrics sink). */
  channelMessages(channel: string, direction: 'in' | 'out', count: number): void {
    this.metric.channelMessages.inc({ channel, direction }, count);
  }

  /** A reply of channel `channel` was refused for good. */
  channelSendFailed(channel: string): void {
    this.metric.channelSendFailures.inc({ channel });
  }

  /** Channel `channel` has `replies` replies not yet delivered. */
  channelPending(channel: string, replies: number): void {
    this.metric.channelPending.set({ channel }, replies);
  }

  /** Channel `channel` reaches its platform, or not. */
  channelUp(channel: string, up: boolean): void {
    this.metric.channelUp.set({ channel }, up ? 1 : 0);
  }

  /** One webhook delivery attempt to endpoint `endpointId` ended (the outbox's metrics sink). */
  webhookAttempt(endpointId: string, outcome: 'delivered' | 'failed' | 'timeout', seconds: number): void {
    this.metric.webhookDeliveries.inc({ endpoint: endpointId, outcome });
    this.metric.webhookAttemptDuration.observe(seconds);
  }

  /** Events endpoint `endpointId` has not yet received. */
  webhookBacklog(endpointId: string, events: number): void {
    this.metric.webhookBacklog.set({ endpoint: endpointId }, events);
  }

  /** Endpoint `endpointId` was removed: its series go. */
  webhookRemoved(endpointId: string): void {
    this.metric.webhookBacklog.remove({ endpoint: endpointId });
    for (const outcome of ['delivered', 'failed', 'timeout'])
      this.metric.webhookDeliveries.remove({ endpoint: endpointId, outcome });
  }

  /** Spans the OpenTelemetry collector accepted. */
  otelSpansExported(count: number): void {
    this.metric.spansExported.inc(count);
  }

  /** Spans lost on the way to the OpenTelemetry collector. */
  otelSpansDropped(reason: 'queue_full' | 'export_failed', count: number): void {
    this.metric.spansDroppedTotal.inc({ reason }, count);
  }

  /** What semantic search reports: its requests by purpose and outcome, their tokens, the records waiting for a vector. */
  embeddingObserver(): EmbeddingObserver {
    return {
      requested: (purpose, outcome) => this.metric.embeddingRequests.inc({ purpose, outcome }),
      tokens: (count) => this.metric.embeddingTokens.inc(count),
      pending: (corpus, count) => this.metric.embeddingsPending.set({ corpus }, count),
    };
  }

  private onEvent(event: VigilEvent): void {
    this.tally.event(event.type);
    switch (event.type) {
      case 'heartbeat.beat': {
        const { sense, think, integrate } = event.phaseMs;
        const duration = sense + think + integrate;
        // The beat began `duration` ago; it was due one interval after the previous beat ended.
        const now = performance.now();
        const last = this.lastBeatEnd;
        const delay = last === undefined ? undefined : Math.max(0, now - duration - (last.at + last.intervalMs)) / 1000;
        this.tally.beat(duration / 1000, delay);
        this.lastBeatEnd = { at: now, intervalMs: event.intervalMs };
        break;
      }
      case 'think.completed':
        this.metric.thinks.inc({ outcome: 'completed' });
        this.metric.tokens.inc({ kind: 'input' }, event.inputTokens);
        this.metric.tokens.inc({ kind: 'output' }, event.outputTokens);
        this.metric.tokens.inc({ kind: 'cache_read' }, event.cacheReadTokens);
        this.metric.tokens.inc({ kind: 'cache_write' }, event.cacheWriteTokens);
        break;
      case 'think.failed':
        this.metric.thinks.inc({ outcome: 'failed' });
        break;
      case 'agent.budget_updated':
        this.metric.spentToday.set(event.spentTodayUsd);
        this.metric.dailyCap.set(event.dailyCapUsd);
        this.metric.budgetRatio.set(event.budgetPct / 100);
        break;
      case 'checkpoint.created':
        this.metric.checkpointsCreated.inc();
        this.metric.checkpointSave.observe(event.durationMs / 1000);
        this.metric.checkpointSize.set(event.sizeBytes);
        break;
      case 'checkpoint.failed':
        this.metric.checkpointsFailed.inc();
        break;
      case 'checkpoint.restored':
        this.metric.checkpointsRestored.inc();
        break;
      case 'checkpoint.corrupt':
        this.metric.checkpointsCorrupt.inc();
        break;
      case 'actor.crashed':
        this.metric.actorCrashes.inc({ actor: event.actor });
        break;
      case 'mcp.server_up':
        this.metric.mcpUp.set({ server: event.server }, 1);
        this.metric.mcpAttempts.inc({ server: event.server, outcome: 'connected' });
        this.metric.mcpTools.set({ server: event.server }, event.tools);
        break;
      case 'mcp.server_down':
        this.metric.mcpUp.set({ server: event.server }, 0);
        // A server that was up and went away is a loss, not an attempt; the attempts that follow count as attempts.
        if (event.wasUp) this.metric.mcpLost.inc({ server: event.server });
        else this.metric.mcpAttempts.inc({ server: event.server, outcome: 'failed' });
        break;
      case 'tool.completed':
        this.metric.toolCalls.inc({ tool: event.name, outcome: event.ok ? 'ok' : 'failed' });
        this.metric.toolDuration.observe({ tool: event.name }, event.durationMs / 1000);
        break;
      case 'tool.interrupted':
        this.metric.toolInterrupted.inc({ tool: event.name });
        break;
      case 'tool.approval_requested':
        this.metric.toolApprovals.inc({ tool: event.name, decision: 'requested' });
        break;
      case 'tool.approval_decided':
        this.metric.toolApprovals.inc({ tool: event.name, decision: event.approved ? 'approved' : 'denied' });
        break;
      case 'schedule.fired':
        this.metric.scheduleFirings.inc({ kind: event.catchUp ? 'catch_up' : 'on_time' });
        break;
      case 'schedule.missed':
        this.metric.scheduleMissed.inc({ policy: event.policy }, event.count);
        break;
      case 'auth.denied':
        this.metric.authDenied.inc({ scope: event.scope });
        break;
      case 'mcp.tools_changed':
        this.metric.mcpTools.set({ server: event.server }, event.tools);
        break;
      // Held until the operator signs in: not connected (the authorization URL is no label, never a metric).
      case 'mcp.auth_required':
        this.metric.mcpUp.set({ server: event.server }, 0);
        break;
      default:
        break;
    }
  }
}
