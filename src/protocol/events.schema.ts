/** One zod schema per event type (CONTRACT §5 plus Vigil's own), and the discriminated union of them all. */
import { z } from 'zod';
import { TurnEndingCodeSchema } from './conversation.schema.js';
import { ScheduleCatchUpSchema, ScheduleCreatorSchema } from './schedules.schema.js';
import { TokenScopeSchema } from './token-scopes.js';
import { CHANNEL_EVENT_PAYLOADS } from './channel-events.schema.js';

/** The fields every event carries: a seq that only grows (also across restarts), its type, when, and at which beat. */
export const EventEnvelopeSchema = z.object({
  seq: z.number().int().nonnegative(),
  at: z.string().datetime({ offset: true }),
  beat: z.number().int().nonnegative(),
});

const usd = z.number().nonnegative();

/** Payload schemas by event type; the single source of every event's shape. */
export const EVENT_PAYLOADS = {
  /** A beat finished: its number, the interval until the next one, and how long each phase took (ms). */
  'heartbeat.beat': z.object({
    beatCount: z.number().int().nonnegative(),
    intervalMs: z.number().nonnegative(),
    phaseMs: z.object({ sense: z.number(), think: z.number(), integrate: z.number() }),
  }),
  /** The heartbeat started, from the checkpoint it restored (null: a cold start) at that beat count. */
  'heartbeat.started': z.object({ restoredFrom: z.string().nullable(), beatCount: z.number().int() }),
  /** The heartbeat stopped (a clean stop finishes the beat and writes a final checkpoint first). */
  'heartbeat.stopped': z.object({ beatCount: z.number().int(), reason: z.string() }),
  /** Ten beats in a row failed: the interval now doubles per further failure, up to 15 minutes. */
  'heartbeat.circuit_open': z.object({ consecutiveFailures: z.number().int(), intervalMs: z.number() }),
  /** A beat succeeded after failures: the interval is back to normal. */
  'heartbeat.circuit_closed': z.object({ afterFailures: z.number().int() }),
  /** A checkpoint is stored (one synced batch with its index entry and the prunes). */
  'checkpoint.created': z.object({
    checkpointId: z.string(),
    beatCount: z.number().int(),
    sizeBytes: z.number().int(),
    /** How long encoding and the atomic write took. */
    durationMs: z.number().nonnegative(),
  }),
  /** The runtime runs from a checkpoint (at boot, or after `checkpoint.restore`); `ageSeconds` is how old it was. */
  'checkpoint.restored': z.object({
    checkpointId: z.string(),
    beatsRecovered: z.number().int(),
    ageSeconds: z.number(),
  }),
  /** Saving a checkpoint failed; the beat goes on and the next one is tried as usual. */
  'checkpoint.failed': z.object({ reason: z.string() }),
  /** A stored checkpoint failed to decompress, parse, validate or migrate: skipped, the next older one is tried. */
  'checkpoint.corrupt': z.object({ checkpointId: z.string(), reason: z.string() }),
  /** Money was charged or the cap or top-up changed; `budgetPct` is of today's allowance (cap plus top-ups). */
  'agent.budget_updated': z.object({ budgetPct: z.number(), spentTodayUsd: usd, dailyCapUsd: usd }),
  /** The agent sleeps over its budget (dormant: no thinks, slow beats) until `wakeAt` or a top-up. */
  'agent.sleeping': z.object({ reason: z.string(), wakeAt: z.string().nullable() }),
  /** The agent wakes: the daily reset at local midnight, a top-up, or a manual wake. */
  'agent.waking': z.object({ reason: z.enum(['top_up', 'daily_reset', 'manual']) }),
  /** Spend reached `VIGIL_HARD_STOP_PCT`: the think in flight is aborted and never applied. */
  'agent.budget_exceeded': z.object({ spentTodayUsd: usd, dailyCapUsd: usd }),
  /** A user message interrupted autonomous work; the work resumes after the user's turn. */
  'agent.preempted': z.object({ reason: z.string() }),
  /** A short acknowledgement: "one moment" when a message preempts work, or when a sleeping agent will wake. */
  'agent.ack': z.object({ turnId: z.string(), text: z.string() }),
  /** The answer to a turn: one of its two terminal events (the other is `agent.unanswered`). */
  'agent.reply': z.object({ turnId: z.string(), text: z.string() }),
  /** A turn that ends without an answer: refused for good, never answered after several thinks, stuck, or cancelled. */
  'agent.unanswered': z.object({ turnId: z.string(), code: TurnEndingCodeSchema, reason: z.string() }),
  /** Autonomous work (a goal step, a debrief, a task digest) that the API refused for good was dropped; the goal stays. */
  'agent.work_dropped': z.object({
    reason: z.string(),
    work: z.string(),
    goalId: z.string().optional(),
    code: z.string(),
  }),
  /** A debrief think ran for a turn that lasted `VIGIL_DEBRIEF_AFTER_S` or longer. */
  'agent.debrief': z.object({ turnId: z.string() }),
  /** A message was logged and its turn opened (`agent.send`); `from` is its sender. */
  'agent.message': z.object({ turnId: z.string(), text: z.string(), from: z.string() }),
  /** A think succeeded: its model, tokens (cache reads and writes apart) and cost, charged to the ledger. */
  'think.completed': z.object({
    model: z.string(),
    inputTokens: z.number().int().nonnegative(),
    outputTokens: z.number().int().nonnegative(),
    cacheReadTokens: z.number().int().nonnegative(),
    cacheWriteTokens: z.number().int().nonnegative(),
    costUsd: usd,
  }),
  /** A think failed after the SDK's retries, or was refused, stuck or aborted (`code` says which); the beat goes on. */
  'think.failed': z.object({ reason: z.string(), code: z.string() }),
  /** A think's trace was stored: `thinks.get {id: thinkId}` reads it. */
  'think.traced': z.object({ thinkId: z.string(), costUsd: usd, durationMs: z.number().nonnegative() }),
  /**
   * The prompt's cached prefix (tools and system) is shorter than the model's minimum cacheable length, so it is never
   * cached. Reported at boot and whenever the prefix changes; `prefixTokens` is Vigil's conservative estimate (or, with
   * `source: "api"`, a prefix the API wrote and read nothing of); `minimumTokens` is null when the model's is unknown.
   */
  'think.cache_prefix_short': z.object({
    model: z.string(),
    prefix: z.enum(['think', 'task']),
    prefixTokens: z.number().int().nonnegative(),
    minimumTokens: z.number().int().positive().nullable(),
    source: z.enum(['estimate', 'api']),
  }),
  /**
   * A model call that should have read the prompt cache did not: `expected` tokens were cached by an earlier call
   * within the cache's lifetime, `got` were read. `reason`: `prefix_changed` (the prefix is not the one cached) or
   * `not_read` (the same prefix, yet the API read less than it had cached).
   */
  'think.cache_miss': z.object({
    model: z.string(),
    prefix: z.enum(['think', 'task']),
    expected: z.number().int().nonnegative(),
    got: z.number().int().nonnegative(),
    reason: z.enum(['prefix_changed', 'not_read']),
  }),
  /**
   * A model call's reported input tokens (cache reads and writes included) are more than any tokenizer could make of
   * the request: over three tokens per estimated token (one per byte) plus the API's own overhead. The report is not
   * used to calibrate the prompt bound; `estimated` is Vigil's plain estimate of the request.
   */
  'think.usage_implausible': z.object({
    reported: z.number().int().nonnegative(),
    estimated: z.number().int().nonnegative(),
  }),
  /** The API refused the credentials: no thinks until `retryAt`, then one try; pending turns wait, they are not failed. */
  'thinker.paused': z.object({ code: z.string(), reason: z.string(), retryAt: z.string() }),
  /** A think succeeded after a pause: the key works again. */
  'thinker.resumed': z.object({ pausedForMs: z.number().nonnegative() }),
  /** The ledger cannot be written: thinking stops until it can, so no money is spent unrecorded. */
  'budget.ledger_failed': z.object({ reason: z.string() }),
  /** The ledger can be written again after `budget.ledger_failed`: thinking resumes. */
  'budget.ledger_recovered': z.object({ downForMs: z.number().nonnegative() }),
  /** A goal was added (by a client or by the agent). */
  'goal.added': z.object({ goalId: z.string(), title: z.string(), priority: z.number() }),
  /** A goal's progress or status changed. */
  'goal.updated': z.object({ goalId: z.string(), progress: z.number(), status: z.string() }),
  /** Working memory took an item, pushing out `evictedId` when it was full. */
  'memory.admitted': z.object({ itemId: z.string(), salience: z.number(), evictedId: z.string().nullable() }),
  /**
   * Long-term memory went past VIGIL_MEMORY_MAX_COUNT: the memories least worth keeping (low salience, long since
   * kept) were forgotten, in the write that kept a new one; `ids` are theirs.
   */
  'memory.evicted': z.object({ ids: z.array(z.string()), count: z.number().int().positive() }),
  /** A sub-agent task was queued for a turn (`spawn_task`). */
  'swarm.task_spawned': z.object({ taskId: z.string(), turnId: z.string() }),
  /** A sub-agent task ended: done, failed or cancelled; its turn's next think gets the result. */
  'swarm.task_finished': z.object({ taskId: z.string(), status: z.enum(['done', 'failed', 'cancelled']) }),
  /**
   * A task a crash cut off while it ran: `requeued` when it had made no call to a non-idempotent tool (it runs again
   * from the start), else `failed` and never run again blindly; `callIds` are its tool calls, oldest first.
   */
  'swarm.task_interrupted': z.object({
    taskId: z.string(),
    turnId: z.string(),
    outcome: z.enum(['requeued', 'failed']),
    callIds: z.array(z.string()),
  }),
  /** An MCP server (re)connected; `tools` is how many of its tools are offered (after `allowedTools`). */
  'mcp.server_up': z.object({
    server: z.string(),
    tools: z.number().int().nonnegative(),
    attempt: z.number().int().positive(),
  }),
  /**
   * An MCP server could not be reached or went away; it is tried again in `retryInMs`. `wasUp`: it had been connected
   * (a crash or a dropped connection), rather than a connection attempt that failed. `reason`: what happened, the exit
   * code or signal and the error's class, never the server's stderr or error text (those are logged at debug).
   */
  'mcp.server_down': z.object({
    server: z.string(),
    reason: z.string(),
    wasUp: z.boolean(),
    retryInMs: z.number().int().nonnegative(),
  }),
  /** A connected server's tool list changed (`notifications/tools/list_changed`); `tools` is the new count. */
  'mcp.tools_changed': z.object({ server: z.string(), tools: z.number().int().nonnegative() }),
  /**
   * An MCP server needs the operator to sign in (OAuth): run `vigil tools login SERVER` (or follow the link
   * `tools.list` shows an operate token). Emitted once each time a sign-in becomes needed, never per retry. It names
   * no URL: an authorization URL's `state` is the sign-in's credential, and events are read with a read token.
   */
  'mcp.auth_required': z.object({ server: z.string() }),
  /** A sign-in finished: the server's tokens are stored and it is connected again. */
  'mcp.auth_completed': z.object({ server: z.string() }),
  /** A sign-in failed (refused by the operator or the authorization server, or the code exchange failed), or Vigil refused to sign in (the server's protected resource metadata names another resource; the server is then held, not retried); `error` says how, never a token. */
  'mcp.auth_failed': z.object({ server: z.string(), error: z.string() }),
  /** A tool call is about to run; its intent is on disk first. `argsBytes`: the size of its JSON arguments. */
  'tool.called': z.object({
    callId: z.string(),
    turnId: z.string().optional(),
    taskId: z.string().optional(),
    name: z.string(),
    argsBytes: z.number().int().nonnegative(),
  }),
  /** A tool call ended: `ok` false for a tool error or a call that could not be made (bad arguments, timeout, server down). */
  'tool.completed': z.object({
    callId: z.string(),
    name: z.string(),
    ok: z.boolean(),
    durationMs: z.number().nonnegative(),
    resultBytes: z.number().int().nonnegative(),
  }),
  /** A call whose intent was written but whose result never was: a crash left its outcome unknown. Emitted once. */
  'tool.interrupted': z.object({ callId: z.string(), name: z.string() }),
  /** A call to a tool under `requireApproval` waits for an operator (`tools.approve` / `tools.deny`); its intent is on disk. */
  'tool.approval_requested': z.object({
    callId: z.string(),
    name: z.string(),
    args: z.unknown(),
    turnId: z.string().optional(),
    taskId: z.string().optional(),
  }),
  /** An operator decided on a waiting call: approved (it runs now: `tool.called`, `tool.completed` follow) or denied. */
  'tool.approval_decided': z.object({
    callId: z.string(),
    name: z.string(),
    approved: z.boolean(),
    reason: z.string().optional(),
  }),
  /**
   * A schedule fired: turn `turnId` (a message from `schedule:<id>`) is open and ends in exactly one `agent.reply` or
   * `agent.unanswered`. Written in one sync batch with the turn and the schedule's next due time. `catchUp`: a firing
   * made after downtime under the schedule's catch-up policy (see `schedule.missed`).
   */
  'schedule.fired': z.object({ scheduleId: z.string(), turnId: z.string(), dueAt: z.string(), catchUp: z.boolean() }),
  /**
   * Firings that fell due while the agent could not fire them (down, asleep over its budget, a clock that jumped),
   * reported whatever the policy: `fired` turns were fired for them (skip 0, once 1, all up to maxCatchUp). `exact`
   * false: `count` is a lower bound (a frequent cron over a long downtime).
   */
  'schedule.missed': z.object({
    scheduleId: z.string(),
    count: z.number().int().positive(),
    firstDueAt: z.string(),
    lastDueAt: z.string(),
    policy: ScheduleCatchUpSchema,
    fired: z.number().int().nonnegative(),
    exact: z.boolean(),
  }),
  /** A schedule was added, removed, paused or resumed (by an operator or by the model). */
  'schedule.changed': z.object({
    scheduleId: z.string(),
    change: z.enum(['added', 'removed', 'paused', 'resumed']),
    createdBy: ScheduleCreatorSchema,
  }),
  /**
   * A gateway call was refused (-32003 / HTTP 403) and changed nothing: token `tokenName`, holding `tokenScope`, lacks
   * `scope`, the scope `method` (an RPC method, or an HTTP path) needs. Never the token itself.
   */
  'auth.denied': z.object({
    method: z.string(),
    scope: TokenScopeSchema,
    tokenName: z.string(),
    tokenScope: TokenScopeSchema,
  }),
  /** A scoped token was created (`tokens.create`, `vigil tokens create`); its secret appears nowhere but the answer. */
  'auth.token_created': z.object({ name: z.string(), scope: TokenScopeSchema }),
  /** A token was revoked: refused from now on, and the connections and streams opened with it are closed. */
  'auth.token_revoked': z.object({ name: z.string() }),
  /** Every browser session signed out (`tokens.revoke {name: "daemon"}`): those opened at or before `signedOutAt` ended. */
  'auth.sessions_revoked': z.object({ signedOutAt: z.string() }),
  /** Webhook endpoint `id` left ok: an attempt failed (emitted once; `webhook.recovered` ends it). Never the secret. */
  'webhook.failing': z.object({ id: z.string(), error: z.string() }),
  /**
   * Webhook endpoint `id` gets nothing more until `webhooks.enable`: the event with seq `failedSeq` failed past the
   * retry window, or got a 410. (Not `seq`: a payload field of that name would replace the envelope's own seq.)
   */
  'webhook.disabled': z.object({ id: z.string(), failedSeq: z.number().int().nonnegative(), error: z.string() }),
  /** Webhook endpoint `id` had a 2xx again after failing. */
  'webhook.recovered': z.object({ id: z.string() }),
  /**
   * `count` events of endpoint `id`'s types, seqs `fromSeq` to `toSeq`, left the journal before it received them (its
   * backlog passed the journal's cap); its cursor moved past them. Nothing is dropped without this.
   */
  'webhook.gap': z.object({
    id: z.string(),
    fromSeq: z.number().int().nonnegative(),
    toSeq: z.number().int().nonnegative(),
    count: z.number().int().positive(),
  }),
  /**
   * Sent by `webhooks.test` to endpoint `id` alone, at once; never on the bus, the feed or the journal (its seq is 0,
   * its `webhook-id` `evt_test_…`).
   */
  'webhook.test': z.object({ id: z.string() }),
  ...CHANNEL_EVENT_PAYLOADS,
  /** A supervised actor threw; it is restarted from its last good state. */
  'actor.crashed': z.object({ actor: z.string(), error: z.string().optional() }),
  /** A crashed actor runs again from its last good state. */
  'actor.restarted': z.object({ actor: z.string(), error: z.string().optional() }),
} as const;

/** Every event type Vigil emits. */
export type EventType = keyof typeof EVENT_PAYLOADS;

/** The payload of event type `T`. */
export type EventPayload<T extends EventType> = z.infer<(typeof EVENT_PAYLOADS)[T]>;

/** The full schema (envelope + type + payload) of one event type. */
function eventSchema<T extends EventType>(type: T) {
  return EventEnvelopeSchema.extend({ type: z.literal(type) }).extend(EVENT_PAYLOADS[type].shape);
}

const EVENT_TYPES = Object.keys(EVENT_PAYLOADS) as EventType[];

/**
 * Every event on the bus, the WebSocket feed and SSE: `{seq, type, at, beat, …payload}`. Typed as a schema of
 * `VigilEvent`: what zod infers from the mapped options pairs every type literal with every payload (a union of some
 * 3,700 members), which made each cast of an `events.history` answer cost the compiler up to a minute.
 */
export const VigilEventSchema = z.discriminatedUnion(
  'type',
  EVENT_TYPES.map((type) => eventSchema(type)) as unknown as [
    ReturnType<typeof eventSchema<EventType>>,
    ...ReturnType<typeof eventSchema<EventType>>[],
  ],
) as unknown as z.ZodType<VigilEvent>;

/** An event of type `T`, fully typed. */
export type VigilEventOf<T extends EventType> = z.infer<typeof EventEnvelopeSchema> & { type: T } & EventPayload<T>;

/** Any Vigil event. */
export type VigilEvent = { [T in EventType]: VigilEventOf<T> }[EventType];

/** True when `type` is a known event type. */
export function isEventType(type: string): type is EventType {
  return Object.hasOwn(EVENT_PAYLOADS, type);
}

/** All known event types, for filters, docs and the dashboard. */
export const ALL_EVENT_TYPES: readonly EventType[] = EVENT_TYPES;
