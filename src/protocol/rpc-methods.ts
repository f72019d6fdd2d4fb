/** Every JSON-RPC method's params and result schema: the one catalogue the server, the typed client and `rpc.discover` read. */
import { z } from 'zod';
import { AffectViewSchema, MemoryItemViewSchema, SendParamsSchema, SendResultSchema } from './agent.schema.js';
import { BudgetStatusSchema, SetCapParamsSchema, TopUpParamsSchema } from './budget.schema.js';
import {
  CheckpointCreatedSchema,
  CheckpointIdParamsSchema,
  CheckpointRestoredSchema,
  CheckpointSummarySchema,
  ListCheckpointsParamsSchema,
  RestoreParamsSchema,
} from './checkpoints.schema.js';
import {
  ConversationEntrySchema,
  ConversationListParamsSchema,
  ConversationSearchHitSchema,
  ConversationSearchParamsSchema,
} from './conversation.schema.js';
import { AddGoalParamsSchema, GoalIdParamsSchema, GoalViewSchema } from './goals.schema.js';
import { HeartbeatStatusSchema } from './heartbeat.schema.js';
import { CheckpointExportSchema, ImportParamsSchema, ImportResultSchema } from './checkpoint-transfer.schema.js';
import { CognitiveCheckpointSchema } from './checkpoint-format.schema.js';
import { ToolsListEntrySchema, ToolsLoginResultSchema, ToolsServerParamsSchema } from './tools.schema.js';
import {
  ApproveToolCallParamsSchema,
  DenyToolCallParamsSchema,
  PendingToolCallSchema,
  ToolDecisionSchema,
} from './tool-approvals.schema.js';
import { ThinkTraceSchema, ThinkTraceSummarySchema } from './think-trace.schema.js';
import { ThinkIdParamsSchema, ThinksListParamsSchema } from './thinks.schema.js';
import { TaskIdParamsSchema, TaskViewSchema } from './tasks.schema.js';
import {
  MemoryForgetParamsSchema,
  MemoryForgetResultSchema,
  MemorySearchHitSchema,
  MemorySearchParamsSchema,
} from './memory.schema.js';
import { VigilEventSchema } from './events.schema.js';
import { AddScheduleParamsSchema, ScheduleIdParamsSchema, ScheduleViewSchema } from './schedules.schema.js';
import { WEBHOOK_METHODS } from './webhook-methods.js';
import { CHANNEL_METHODS } from './channel-methods.js';
import { method, none } from './rpc-method-spec.js';
import {
  CreatedTokenSchema,
  CreateTokenParamsSchema,
  TokenNameParamsSchema,
  TokenViewSchema,
  WhoAmISchema,
  SignInLinkSchema,
} from './tokens.schema.js';
import {
  HistoryParamsSchema,
  SubscribeParamsSchema,
  SubscribeResultSchema,
  UnsubscribeParamsSchema,
} from './event-feed.schema.js';

export type { RpcMethodSpec } from './rpc-method-spec.js';

/** The methods of CONTRACT §4 (plus export/import, tokens, whoami), by name, each with the scope it needs. */
export const RPC_METHODS = {
  'heartbeat.status': method(
    'read',
    'The heartbeat: beat count, phase, interval, where it was restored from.',
    none,
    HeartbeatStatusSchema,
  ),
  'checkpoint.list': method(
    'read',
    'Stored checkpoints, newest first.',
    ListCheckpointsParamsSchema,
    z.array(CheckpointSummarySchema),
  ),
  'checkpoint.create': method(
    'operate',
    'Takes a checkpoint at the next beat boundary; answers once it is stored.',
    none,
    CheckpointCreatedSchema,
    ['RUNTIME_STOPPED', 'CHECKPOINT_SAVE_FAILED'],
  ),
  'checkpoint.get': method(
    'read',
    'The whole decoded checkpoint.',
    CheckpointIdParamsSchema,
    CognitiveCheckpointSchema,
    ['CHECKPOINT_NOT_FOUND', 'CHECKPOINT_CORRUPT', 'CHECKPOINT_FORMAT_UNSUPPORTED'],
  ),
  'checkpoint.restore': method(
    'operate',
    'Replaces the running state with a checkpoint; without confirm: true it answers -32001 describing the checkpoint.',
    RestoreParamsSchema,
    CheckpointRestoredSchema,
    [
      'CHECKPOINT_CONFIRMATION_REQUIRED',
      'CHECKPOINT_NOT_FOUND',
      'CHECKPOINT_CORRUPT',
      'CHECKPOINT_RESTORE_BUSY',
      'RUNTIME_STOPPED',
    ],
  ),
  'checkpoint.export': method(
    'operate',
    'A portable document with the checkpoint and its conversation up to the watermark.',
    CheckpointIdParamsSchema,
    CheckpointExportSchema,
    ['CHECKPOINT_NOT_FOUND', 'CHECKPOINT_CORRUPT', 'CHECKPOINT_FORMAT_UNSUPPORTED'],
  ),
  'checkpoint.import': method(
    'operate',
    'Stores an exported document under a new id (its messages appended to this log); restore that id to run it.',
    ImportParamsSchema,
    ImportResultSchema,
    ['CHECKPOINT_EXPORT_INVALID'],
  ),
  'budget.status': method('read', "Today's cap, spend, remaining allowance and state.", none, BudgetStatusSchema),
  'budget.topUp': method(
    'operate',
    'Adds allowance for today; a sleeping agent wakes at once. Answers the new budget.status.',
    TopUpParamsSchema,
    BudgetStatusSchema,
    ['RUNTIME_STOPPED'],
  ),
  'budget.setCap': method(
    'operate',
    'Sets the daily cap. Answers the new budget.status.',
    SetCapParamsSchema,
    BudgetStatusSchema,
    ['RUNTIME_STOPPED'],
  ),
  'goals.list': method('read', 'Every goal, active first.', none, z.array(GoalViewSchema)),
  'goals.add': method('talk', 'Adds a goal; answers the new goal.', AddGoalParamsSchema, GoalViewSchema, [
    'RUNTIME_STOPPED',
  ]),
  'goals.complete': method('talk', 'Marks a goal completed; answers the goal.', GoalIdParamsSchema, GoalViewSchema, [
    'GOAL_NOT_FOUND',
    'RUNTIME_STOPPED',
  ]),
  'memory.list': method('read', 'Working-memory items, most salient first.', none, z.array(MemoryItemViewSchema)),
  'memory.search': method(
    'read',
    'Long-term memories best matching the query (BM25, with prefix and fuzzy matches), best first; limit defaults to 10.',
    MemorySearchParamsSchema,
    z.array(MemorySearchHitSchema),
    ['STORE_IO'],
  ),
  'memory.forget': method(
    // Not in talk's list (read plus agent.send, goals.add, goals.complete): forgetting is for good, an operator's call.
    'operate',
    'Forgets a long-term memory: gone from the store, the search index and every later prompt.',
    MemoryForgetParamsSchema,
    MemoryForgetResultSchema,
    ['MEMORY_NOT_FOUND', 'RUNTIME_STOPPED', 'STORE_IO'],
  ),
  'affect.get': method('read', 'The affect dimensions, the derived emotion and the baseline.', none, AffectViewSchema),
  'agent.send': method(
    'talk',
    'Sends the agent a message; it preempts autonomous work and the answer comes as event agent.reply.',
    SendParamsSchema,
    SendResultSchema,
    ['RUNTIME_STOPPED'],
  ),
  'conversation.list': method(
    'read',
    'The conversation, newest last: the newest limit entries (default 50) before the seq given, so paging goes backwards.',
    ConversationListParamsSchema,
    z.array(ConversationEntrySchema),
  ),
  'conversation.search': method(
    'read',
    'Messages of the conversation (user and agent, all that retention keeps) best matching the query, best first: BM25 over stemmed whole words, the speaker and the day, with the messages around a hit lifted; before/after (ISO times) keep to a window; limit defaults to 10, at most 100.',
    ConversationSearchParamsSchema,
    z.array(ConversationSearchHitSchema),
    ['STORE_IO'],
  ),
  'events.subscribe': method(
    'read',
    'Starts an event subscription on this connection (notifications events.event, events.dropped); after replays from the journal.',
    SubscribeParamsSchema,
    SubscribeResultSchema,
    ['SUBSCRIPTION_LIMIT'],
  ),
  'events.unsubscribe': method(
    'read',
    'Ends an event subscription of this connection.',
    UnsubscribeParamsSchema,
    z.literal(true),
    ['SUBSCRIPTION_NOT_FOUND'],
  ),
  'events.history': method(
    'read',
    'Past events from the persisted journal, oldest first.',
    HistoryParamsSchema,
    z.array(VigilEventSchema),
  ),
  'tools.list': method(
    'read',
    'Every MCP tool the agent may use, by name (mcp__SERVER__TOOL), its server\'s state (up, down, needs_auth) and whether calls need approval; then one entry {server, state: "needs_auth"} per server waiting for the operator to sign in, with its authorizationUrl and expiresAt only for an operate token (the URL\'s state is the sign-in\'s credential); then one entry {server, state: "down", error, nextRetryAt} per server not connected since an attempt failed.',
    none,
    z.array(ToolsListEntrySchema),
  ),
  'tools.pending': method(
    'read',
    "Tool calls waiting for an operator's approval, oldest first.",
    none,
    z.array(PendingToolCallSchema),
  ),
  'tools.approve': method(
    'operate',
    'Approves a waiting tool call: it runs now, and its result goes to the next think of its turn.',
    ApproveToolCallParamsSchema,
    ToolDecisionSchema,
    ['TOOL_CALL_NOT_FOUND', 'TOOL_CALL_NOT_PENDING', 'RUNTIME_STOPPED'],
  ),
  'tools.login': method(
    'operate',
    'Starts a fresh OAuth sign-in to a remote MCP server: the authorization URL to open in a browser (it works once, for 10 minutes). Then mcp.auth_completed or mcp.auth_failed. A server that cannot be reached now: TOOL_UNAVAILABLE, with why and when it is tried again.',
    ToolsServerParamsSchema,
    ToolsLoginResultSchema,
    ['MCP_SERVER_NOT_FOUND', 'RPC_INVALID_PARAMS', 'TOOL_UNAVAILABLE'],
  ),
  'tools.logout': method(
    'operate',
    "Forgets a remote MCP server's OAuth tokens; it reconnects and, if it asks for a sign-in, is needs_auth.",
    ToolsServerParamsSchema,
    z.literal(true),
    ['MCP_SERVER_NOT_FOUND', 'RPC_INVALID_PARAMS', 'TOOL_UNAVAILABLE'],
  ),
  'tools.deny': method(
    'operate',
    'Denies a waiting tool call: it is not run, and the next think of its turn is told so, with the reason.',
    DenyToolCallParamsSchema,
    ToolDecisionSchema,
    ['TOOL_CALL_NOT_FOUND', 'TOOL_CALL_NOT_PENDING', 'RUNTIME_STOPPED'],
  ),
  'thinks.list': method(
    'read',
    "The newest thinks' traces, newest first: why each ran, its model calls and tool calls, tokens and cost (the sums of its calls).",
    ThinksListParamsSchema,
    z.array(ThinkTraceSummarySchema),
  ),
  'thinks.get': method(
    'read',
    "One think's trace: its calls, tool calls and the prompt's sections with their token counts (their text only with VIGIL_TRACE_CONTENT=true).",
    ThinkIdParamsSchema,
    ThinkTraceSchema,
    ['THINK_NOT_FOUND'],
  ),
  'tasks.list': method(
    'read',
    'Sub-agent tasks, oldest first: status, prompt, turn, tools, times, deadline, spend and money cap (finished ones are kept a while).',
    none,
    z.array(TaskViewSchema),
  ),
  'tasks.cancel': method(
    'operate',
    'Cancels a task: a queued one is dropped, a running one aborted (its model or tool call in flight too); recorded durably as cancelled, and its turn is told.',
    TaskIdParamsSchema,
    TaskViewSchema,
    ['TASK_NOT_FOUND', 'TASK_FINISHED', 'RUNTIME_STOPPED'],
  ),
  'schedules.list': method(
    'read',
    'Every schedule, oldest first: its timing (cron in its zone, everyMs or at), text, catch-up policy, next and last firing, who set it.',
    none,
    z.array(ScheduleViewSchema),
  ),
  'schedules.add': method(
    'operate',
    'Adds a schedule: exactly one of cron (5 fields, in timezone, default VIGIL_TIMEZONE), everyMs or at (one-shot). Each firing is a turn from schedule:<id>; catchUp (skip, once, all up to maxCatchUp) decides what fires for firings missed while down or asleep.',
    AddScheduleParamsSchema,
    ScheduleViewSchema,
    ['SCHEDULE_LIMIT', 'RUNTIME_STOPPED', 'STORE_IO'],
  ),
  'schedules.remove': method(
    'operate',
    'Removes a schedule; turns it already opened still end as usual.',
    ScheduleIdParamsSchema,
    z.literal(true),
    ['SCHEDULE_NOT_FOUND', 'RUNTIME_STOPPED', 'STORE_IO'],
  ),
  'schedules.pause': method(
    'operate',
    'Pauses a schedule: it fires no more (and counts nothing missed) until resumed. Answers the schedule.',
    ScheduleIdParamsSchema,
    ScheduleViewSchema,
    ['SCHEDULE_NOT_FOUND', 'RUNTIME_STOPPED', 'STORE_IO'],
  ),
  'schedules.resume': method(
    'operate',
    'Resumes a paused schedule from now on. Answers the schedule.',
    ScheduleIdParamsSchema,
    ScheduleViewSchema,
    ['SCHEDULE_NOT_FOUND', 'RUNTIME_STOPPED', 'STORE_IO'],
  ),
  'tokens.create': method(
    'operate',
    'Creates a token of a scope (read, talk or operate), optionally named and expiring; the answer carries its secret, shown this once.',
    CreateTokenParamsSchema,
    CreatedTokenSchema,
    ['TOKEN_NAME_TAKEN', 'TOKEN_LIMIT', 'RUNTIME_STOPPED', 'STORE_IO'],
  ),
  'tokens.list': method(
    'operate',
    'Every token: name, scope, when created, when it expires and when last used; never the secret.',
    none,
    z.array(TokenViewSchema),
  ),
  'tokens.revoke': method(
    'operate',
    'Revokes a token by name: refused at once, and connections and streams opened with it are closed. The name "daemon" signs every browser session out (sessions opened until now end, whatever their token; the daemon\'s own token stays).',
    TokenNameParamsSchema,
    z.literal(true),
    ['TOKEN_NOT_FOUND', 'RUNTIME_STOPPED', 'STORE_IO'],
  ),
  'auth.whoami': method(
    'read',
    "The caller's token: its name, scope and expiry, so a client shows only what it may use.",
    none,
    WhoAmISchema,
  ),
  'auth.signIn': method(
    'read',
    "A one-time link that signs a browser in to the dashboard with the caller's scope (good once, for two minutes): the token itself never enters a URL.",
    none,
    SignInLinkSchema,
    ['RUNTIME_STOPPED'],
  ),
  ...WEBHOOK_METHODS,
  ...CHANNEL_METHODS,
  'rpc.discover': method('read', 'This OpenRPC document.', none, z.record(z.string(), z.unknown())),
} as const;

/** Every method name. */
export type RpcMethodName = keyof typeof RPC_METHODS;

/** The params a caller passes to method `M` (before defaults). */
export type RpcParams<M extends RpcMethodName> = z.input<(typeof RPC_METHODS)[M]['params']>;

/** The result method `M` answers with. */
export type RpcResult<M extends RpcMethodName> = z.output<(typeof RPC_METHODS)[M]['result']>;

/** True when `name` is a method of the catalogue. */
export function isRpcMethodName(name: string): name is RpcMethodName {
  return Object.hasOwn(RPC_METHODS, name);
}
