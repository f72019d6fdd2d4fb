/** Every metric Vigil exports but one (the cache-read share, read when scraped), one row each, by the key the code uses. */
import type { MetricTable } from './metric-table.js';

// Prometheus' base unit of time is the second: 100 µs to 10 s, the span of a beat's phases and a checkpoint save.
const SECONDS_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/**
 * Vigil's metrics: kind, name, help text, labels and buckets exactly as exported (the names are part of the contract).
 * Prometheus' conventions, checked by `promtool check metrics` in a test: base units (seconds, bytes, ratios 0–1),
 * and `_total` on counters only.
 */
export const VIGIL_METRIC_TABLE = {
  beats: { type: 'counter', name: 'vigil_beats_total', help: 'Heartbeat beats completed.' },
  beatDuration: {
    type: 'histogram',
    name: 'vigil_beat_duration_seconds',
    help: 'Time from sense to the end of integrate, per beat.',
    buckets: SECONDS_BUCKETS,
  },
  beatDelay: {
    type: 'histogram',
    name: 'vigil_beat_delay_seconds',
    help: 'How late a beat started against its scheduled time (event-loop lag and stalls).',
    buckets: SECONDS_BUCKETS,
  },
  thinks: { type: 'counter', name: 'vigil_think_calls_total', help: 'Thinks by outcome.', labelNames: ['outcome'] },
  tokens: {
    type: 'counter',
    name: 'vigil_think_tokens_total',
    help: 'Tokens used by thinks, by kind.',
    labelNames: ['kind'],
  },
  spentToday: { type: 'gauge', name: 'vigil_budget_spent_today_usd', help: 'Money spent today.' },
  dailyCap: { type: 'gauge', name: 'vigil_budget_daily_cap_usd', help: 'The daily cap.' },
  budgetRatio: {
    type: 'gauge',
    name: 'vigil_budget_spent_ratio',
    help: 'Spend as a share (0 to 1, above 1 when overspent) of today’s allowance.',
  },
  checkpointSave: {
    type: 'histogram',
    name: 'vigil_checkpoint_save_duration_seconds',
    help: 'Encoding plus the atomic write of a checkpoint.',
    buckets: SECONDS_BUCKETS,
  },
  checkpointSize: {
    type: 'gauge',
    name: 'vigil_checkpoint_size_bytes',
    help: 'Compressed size of the newest checkpoint.',
  },
  checkpointsCreated: { type: 'counter', name: 'vigil_checkpoints_created_total', help: 'Checkpoints stored.' },
  checkpointsFailed: { type: 'counter', name: 'vigil_checkpoints_failed_total', help: 'Checkpoint saves that failed.' },
  checkpointsRestored: {
    type: 'counter',
    name: 'vigil_checkpoints_restored_total',
    help: 'Checkpoints restored (at boot or on request).',
  },
  checkpointsCorrupt: {
    type: 'counter',
    name: 'vigil_checkpoints_corrupt_total',
    help: 'Corrupt checkpoints skipped.',
  },
  actorCrashes: {
    type: 'counter',
    name: 'vigil_actor_crashes_total',
    help: 'Supervised actor crashes, by actor.',
    labelNames: ['actor'],
  },
  connections: { type: 'gauge', name: 'vigil_gateway_connections', help: 'Open WebSocket and SSE connections.' },
  authDenied: {
    type: 'counter',
    name: 'vigil_gateway_auth_denied_total',
    help: 'Gateway calls refused (-32003, HTTP 403) because the token lacked the scope they need, by that scope.',
    labelNames: ['scope'],
  },
  connectionsRefused: {
    type: 'counter',
    name: 'vigil_gateway_connections_refused_total',
    help: 'WebSocket, SSE and /mcp connections refused with HTTP 503 at a cap, by reason: gateway_full (VIGIL_MAX_CONNECTIONS in all) or token_full (half of it, the most for one token).',
    labelNames: ['reason'],
  },
  authThrottled: {
    type: 'counter',
    name: 'vigil_gateway_auth_throttled_total',
    help: 'Requests and upgrades refused with HTTP 429, unchecked, because their address had sent too many wrong tokens.',
  },
  requests: {
    type: 'counter',
    name: 'vigil_gateway_requests_total',
    help: 'JSON-RPC requests by method and result code (0 = success).',
    labelNames: ['method', 'code'],
  },
  dropped: { type: 'counter', name: 'vigil_events_dropped_total', help: 'Events dropped for slow subscribers.' },
  events: { type: 'counter', name: 'vigil_events_total', help: 'Events emitted, by type.', labelNames: ['type'] },
  mcpUp: {
    type: 'gauge',
    name: 'vigil_mcp_server_up',
    help: 'An MCP server is connected (1) or down and being retried (0), by server.',
    labelNames: ['server'],
  },
  mcpAttempts: {
    type: 'counter',
    name: 'vigil_mcp_connection_attempts_total',
    help: 'Attempts to start or connect an MCP server, by server and outcome (connected, failed).',
    labelNames: ['server', 'outcome'],
  },
  mcpLost: {
    type: 'counter',
    name: 'vigil_mcp_server_lost_total',
    help: 'Times a connected MCP server went away (crashed, exited or stopped answering), by server.',
    labelNames: ['server'],
  },
  mcpTools: {
    type: 'gauge',
    name: 'vigil_mcp_tools',
    help: 'Tools an MCP server offers (after allowedTools), by server.',
    labelNames: ['server'],
  },
  toolCalls: {
    type: 'counter',
    name: 'vigil_tool_calls_total',
    help: 'MCP tool calls completed, by tool and outcome (ok, failed).',
    labelNames: ['tool', 'outcome'],
  },
  toolDuration: {
    type: 'histogram',
    name: 'vigil_tool_call_duration_seconds',
    help: 'How long MCP tool calls took, by tool.',
    labelNames: ['tool'],
    buckets: [0.005, 0.025, 0.1, 0.5, 2, 10, 60],
  },
  toolInterrupted: {
    type: 'counter',
    name: 'vigil_tool_calls_interrupted_total',
    help: 'MCP tool calls whose outcome a crash left unknown (reported at the next boot), by tool.',
    labelNames: ['tool'],
  },
  toolApprovals: {
    type: 'counter',
    name: 'vigil_tool_approvals_total',
    help: 'Tool calls under requireApproval, by tool and step (requested, approved, denied).',
    labelNames: ['tool', 'decision'],
  },
  schedulesActive: {
    type: 'gauge',
    name: 'vigil_schedules_active',
    help: 'Schedules that will fire again (not paused, not a finished one-shot).',
  },
  scheduleFirings: {
    type: 'counter',
    name: 'vigil_schedule_firings_total',
    help: 'Turns opened by schedules, by kind (on_time, catch_up).',
    labelNames: ['kind'],
  },
  scheduleMissed: {
    type: 'counter',
    name: 'vigil_schedule_missed_total',
    help: 'Schedule firings that fell due while they could not fire (down, asleep, a clock jump), by catch-up policy.',
    labelNames: ['policy'],
  },
  // Webhook endpoints are labelled by id (wh_…), never by URL (which may carry a credential) or secret.
  webhookDeliveries: {
    type: 'counter',
    name: 'vigil_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by endpoint id and outcome (delivered: a 2xx; failed: another status or no connection; timeout: no answer within VIGIL_WEBHOOK_TIMEOUT_MS).',
    labelNames: ['endpoint', 'outcome'],
  },
  webhookBacklog: {
    type: 'gauge',
    name: 'vigil_webhook_backlog_events',
    help: 'Events of a webhook endpoint’s types it has not yet received (as last counted), by endpoint id.',
    labelNames: ['endpoint'],
  },
  webhookAttemptDuration: {
    type: 'histogram',
    name: 'vigil_webhook_attempt_duration_seconds',
    help: 'How long webhook delivery attempts took, to the answer or the timeout.',
    buckets: [0.005, 0.025, 0.1, 0.5, 1, 2.5, 5, 10, 30],
  },
  // Chat channels (only with VIGIL_CHANNELS_CONFIG), labelled by the channel's name in the file, never by a sender.
  channelMessages: {
    type: 'counter',
    name: 'vigil_channel_messages_total',
    help: 'Chat channel messages, by channel and direction (in: admitted as a turn; out: a reply message written into its chat).',
    labelNames: ['channel', 'direction'],
  },
  channelSendFailures: {
    type: 'counter',
    name: 'vigil_channel_send_failures_total',
    help: 'Replies a chat platform refused for good (channel.send_failed), by channel.',
    labelNames: ['channel'],
  },
  channelPending: {
    type: 'gauge',
    name: 'vigil_channel_pending_replies',
    help: 'Replies not yet delivered to their chats, by channel.',
    labelNames: ['channel'],
  },
  channelUp: {
    type: 'gauge',
    name: 'vigil_channel_up',
    help: 'Whether a chat channel reaches its platform (1) or is connecting or failing (0), by channel.',
    labelNames: ['channel'],
  },
  // The OpenTelemetry export (only with OTEL_EXPORTER_OTLP_ENDPOINT): what reached the collector and what was lost.
  spansExported: {
    type: 'counter',
    name: 'vigil_otel_spans_exported_total',
    help: 'OpenTelemetry spans the collector accepted.',
  },
  spansDroppedTotal: {
    type: 'counter',
    name: 'vigil_otel_spans_dropped_total',
    help: 'OpenTelemetry spans lost, by reason: queue_full (the export queue was at OTEL_BSP_MAX_QUEUE_SIZE) or export_failed (the collector did not take the batch).',
    labelNames: ['reason'],
  },
  // Semantic search (only with VIGIL_EMBEDDINGS_URL): requests to the embeddings endpoint and the vectors still to make.
  embeddingRequests: {
    type: 'counter',
    name: 'vigil_embedding_requests_total',
    help: 'Requests to the embeddings endpoint, by purpose (fill: vectors for records; query: a search) and outcome (ok, failed, budget_spent: not sent).',
    labelNames: ['purpose', 'outcome'],
  },
  embeddingTokens: {
    type: 'counter',
    name: 'vigil_embedding_tokens_total',
    help: 'Input tokens the embeddings endpoint reported (or Vigil estimated) for its requests.',
  },
  embeddingsPending: {
    type: 'gauge',
    name: 'vigil_embeddings_pending',
    help: 'Records waiting for a vector of the current embeddings model, by corpus.',
    labelNames: ['corpus'],
  },
} as const satisfies MetricTable;
