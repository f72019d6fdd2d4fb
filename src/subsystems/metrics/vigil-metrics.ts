/** Prometheus metrics (prom-client): fed by the event bus, plus hooks the gateway calls; served at `GET /metrics`. */
import type { Subscription } from 'rxjs';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EventBus } from '../../events/event-bus.js';
import type { VigilEvent } from '../../protocol/events.schema.js';

const MS_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000];

/** Every metric Vigil exports, in one registry of its own (so embedding programs keep theirs). */
export class VigilMetrics {
  readonly registry = new Registry();
  private subscription: Subscription | undefined;
  private lastBeatEnd: { at: number; intervalMs: number } | undefined;

  private readonly beats = new Counter({ name: 'vigil_beats_total', help: 'Heartbeat beats completed.', registers: [this.registry] });
  private readonly beatDuration = new Histogram({
    name: 'vigil_beat_duration_ms',
    help: 'Time from sense to the end of integrate, per beat.',
    buckets: MS_BUCKETS,
    registers: [this.registry],
  });
  private readonly beatDelay = new Histogram({
    name: 'vigil_beat_delay_ms',
    help: 'How late a beat started against its scheduled time (event-loop lag and stalls).',
    buckets: MS_BUCKETS,
    registers: [this.registry],
  });
  private readonly thinks = new Counter({
    name: 'vigil_think_calls_total',
    help: 'Thinks by outcome.',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly tokens = new Counter({
    name: 'vigil_think_tokens_total',
    help: 'Tokens used by thinks, by kind.',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  private readonly spentToday = new Gauge({ name: 'vigil_budget_spent_today_usd', help: 'Money spent today.', registers: [this.registry] });
  private readonly dailyCap = new Gauge({ name: 'vigil_budget_daily_cap_usd', help: 'The daily cap.', registers: [this.registry] });
  private readonly budgetPct = new Gauge({ name: 'vigil_budget_pct', help: 'Spend as a percent of today’s allowance.', registers: [this.registry] });
  private readonly checkpointSave = new Histogram({
    name: 'vigil_checkpoint_save_duration_ms',
    help: 'Encoding plus the atomic write of a checkpoint.',
    buckets: MS_BUCKETS,
    registers: [this.registry],
  });
  private readonly checkpointSize = new Gauge({ name: 'vigil_checkpoint_size_bytes', help: 'Compressed size of the newest checkpoint.', registers: [this.registry] });
  private readonly checkpointsCreated = new Counter({ name: 'vigil_checkpoints_created_total', help: 'Checkpoints stored.', registers: [this.registry] });
  private readonly checkpointsFailed = new Counter({ name: 'vigil_checkpoints_failed_total', help: 'Checkpoint saves that failed.', registers: [this.registry] });
  private readonly checkpointsRestored = new Counter({ name: 'vigil_checkpoints_restored_total', help: 'Checkpoints restored (at boot or on request).', registers: [this.registry] });
  private readonly checkpointsCorrupt = new Counter({ name: 'vigil_checkpoints_corrupt_total', help: 'Corrupt checkpoints skipped.', registers: [this.registry] });
  private readonly actorCrashes = new Counter({
    name: 'vigil_actor_crashes_total',
    help: 'Supervised actor crashes, by actor.',
    labelNames: ['actor'] as const,
    registers: [this.registry],
  });
  private readonly connections = new Gauge({ name: 'vigil_gateway_connections', help: 'Open WebSocket and SSE connections.', registers: [this.registry] });
  private readonly requests = new Counter({
    name: 'vigil_gateway_requests_total',
    help: 'JSON-RPC requests by method and result code (0 = success).',
    labelNames: ['method', 'code'] as const,
    registers: [this.registry],
  });
  private readonly dropped = new Counter({ name: 'vigil_events_dropped_total', help: 'Events dropped for slow subscribers.', registers: [this.registry] });
  private readonly events = new Counter({
    name: 'vigil_events_total',
    help: 'Events emitted, by type.',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });

  private readonly mcpUp = new Gauge({
    name: 'vigil_mcp_server_up',
    help: 'An MCP server is connected (1) or down and being retried (0), by server.',
    labelNames: ['server'] as const,
    registers: [this.registry],
  });
  private readonly mcpAttempts = new Counter({
    name: 'vigil_mcp_connection_attempts_total',
    help: 'Attempts to start or connect an MCP server, by server and outcome (connected, failed).',
    labelNames: ['server', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly mcpLost = new Counter({
    name: 'vigil_mcp_server_lost_total',
    help: 'Times a connected MCP server went away (crashed, exited or stopped answering), by server.',
    labelNames: ['server'] as const,
    registers: [this.registry],
  });
  private readonly mcpTools = new Gauge({
    name: 'vigil_mcp_tools',
    help: 'Tools an MCP server offers (after allowedTools), by server.',
    labelNames: ['server'] as const,
    registers: [this.registry],
  });
  private readonly toolCalls = new Counter({
    name: 'vigil_tool_calls_total',
    help: 'MCP tool calls completed, by tool and outcome (ok, failed).',
    labelNames: ['tool', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly toolDuration = new Histogram({
    name: 'vigil_tool_call_duration_ms',
    help: 'How long MCP tool calls took, by tool.',
    labelNames: ['tool'] as const,
    buckets: [5, 25, 100, 500, 2000, 10_000, 60_000],
    registers: [this.registry],
  });
  private readonly toolInterrupted = new Counter({
    name: 'vigil_tool_calls_interrupted_total',
    help: 'MCP tool calls whose outcome a crash left unknown (reported at the next boot), by tool.',
    labelNames: ['tool'] as const,
    registers: [this.registry],
  });

  private readonly toolApprovals = new Counter({
    name: 'vigil_tool_approvals_total',
    help: 'Tool calls under requireApproval, by tool and step (requested, approved, denied).',
    labelNames: ['tool', 'decision'] as const,
    registers: [this.registry],
  });
  // The OpenTelemetry export (only with OTEL_EXPORTER_OTLP_ENDPOINT): what reached the collector and what was lost.
  private readonly spansExported = new Counter({
    name: 'vigil_otel_spans_exported_total',
    help: 'OpenTelemetry spans the collector accepted.',
    registers: [this.registry],
  });
  private readonly spansDroppedTotal = new Counter({
    name: 'vigil_otel_spans_dropped_total',
    help: 'OpenTelemetry spans lost, by reason: queue_full (the export queue was at OTEL_BSP_MAX_QUEUE_SIZE) or export_failed (the collector did not take the batch).',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private cacheShareSource: (() => number) | undefined;
  // Read when scraped, so the share is today's even after midnight passed without a think.
  private readonly cacheReadShare = new Gauge({
    name: 'vigil_cache_read_share_today',
    help: 'Share (0 to 1) of today’s prompt tokens read from the prompt cache.',
    registers: [this.registry],
    collect: () => {
      if (this.cacheShareSource !== undefined) this.cacheReadShare.set(this.cacheShareSource());
    },
  });

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'vigil_' });
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
    this.connections.inc(delta);
  }

  /** One JSON-RPC request answered, with its error code (0 for success). */
  requestHandled(method: string, code: number): void {
    this.requests.inc({ method, code: String(code) });
  }

  /** Events dropped for a slow subscriber. */
  eventsDropped(count: number): void {
    this.dropped.inc(count);
  }

  /** Spans the OpenTelemetry collector accepted. */
  otelSpansExported(count: number): void {
    this.spansExported.inc(count);
  }

  /** Spans lost on the way to the OpenTelemetry collector. */
  otelSpansDropped(reason: 'queue_full' | 'export_failed', count: number): void {
    this.spansDroppedTotal.inc({ reason }, count);
  }

  private onEvent(event: VigilEvent): void {
    this.events.inc({ type: event.type });
    switch (event.type) {
      case 'heartbeat.beat': {
        const { sense, think, integrate } = event.phaseMs;
        const duration = sense + think + integrate;
        this.beats.inc();
        this.beatDuration.observe(duration);
        // The beat began `duration` ago; it was due one interval after the previous beat ended.
        const now = performance.now();
        if (this.lastBeatEnd !== undefined) {
          const due = this.lastBeatEnd.at + this.lastBeatEnd.intervalMs;
          this.beatDelay.observe(Math.max(0, now - duration - due));
        }
        this.lastBeatEnd = { at: now, intervalMs: event.intervalMs };
        break;
      }
      case 'think.completed':
        this.thinks.inc({ outcome: 'completed' });
        this.tokens.inc({ kind: 'input' }, event.inputTokens);
        this.tokens.inc({ kind: 'output' }, event.outputTokens);
        this.tokens.inc({ kind: 'cache_read' }, event.cacheReadTokens);
        this.tokens.inc({ kind: 'cache_write' }, event.cacheWriteTokens);
        break;
      case 'think.failed':
        this.thinks.inc({ outcome: 'failed' });
        break;
      case 'agent.budget_updated':
        this.spentToday.set(event.spentTodayUsd);
        this.dailyCap.set(event.dailyCapUsd);
        this.budgetPct.set(event.budgetPct);
        break;
      case 'checkpoint.created':
        this.checkpointsCreated.inc();
        this.checkpointSave.observe(event.durationMs);
        this.checkpointSize.set(event.sizeBytes);
        break;
      case 'checkpoint.failed':
        this.checkpointsFailed.inc();
        break;
      case 'checkpoint.restored':
        this.checkpointsRestored.inc();
        break;
      case 'checkpoint.corrupt':
        this.checkpointsCorrupt.inc();
        break;
      case 'actor.crashed':
        this.actorCrashes.inc({ actor: event.actor });
        break;
      case 'mcp.server_up':
        this.mcpUp.set({ server: event.server }, 1);
        this.mcpAttempts.inc({ server: event.server, outcome: 'connected' });
        this.mcpTools.set({ server: event.server }, event.tools);
        break;
      case 'mcp.server_down':
        this.mcpUp.set({ server: event.server }, 0);
        // A server that was up and went away is a loss, not an attempt; the attempts that follow count as attempts.
        if (event.wasUp) this.mcpLost.inc({ server: event.server });
        else this.mcpAttempts.inc({ server: event.server, outcome: 'failed' });
        break;
      case 'tool.completed':
        this.toolCalls.inc({ tool: event.name, outcome: event.ok ? 'ok' : 'failed' });
        this.toolDuration.observe({ tool: event.name }, event.durationMs);
        break;
      case 'tool.interrupted':
        this.toolInterrupted.inc({ tool: event.name });
        break;
      case 'tool.approval_requested':
        this.toolApprovals.inc({ tool: event.name, decision: 'requested' });
        break;
      case 'tool.approval_decided':
        this.toolApprovals.inc({ tool: event.name, decision: event.approved ? 'approved' : 'denied' });
        break;
      case 'mcp.tools_changed':
        this.mcpTools.set({ server: event.server }, event.tools);
        break;
      default:
        break;
    }
  }
}
