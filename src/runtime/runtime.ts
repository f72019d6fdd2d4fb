/**
 * The `Runtime` facade: the one object the daemon, the gateway and tests drive. Each method is a named, typed entry
 * into one area (status, checkpoints, conversation, goals, mind, budget, events, metrics, tools) under `./facade/`; nothing
 * behind it (stores, bus, actors) is handed out.
 */
import type { Observable } from 'rxjs';
import type { AffectView, MemoryItemView, SendParams, SendResult } from '../protocol/agent.schema.js';
import type { BudgetStatus, SetCapParams, TopUpParams } from '../protocol/budget.schema.js';
import type { ActorStates, CognitiveCheckpoint } from '../protocol/checkpoint-format.schema.js';
import type { CheckpointExport, ImportResult } from '../protocol/checkpoint-transfer.schema.js';
import type { CheckpointCreated, CheckpointRestored, CheckpointSummary } from '../protocol/checkpoints.schema.js';
import type { ConversationListParams, ConversationSearchParams } from '../protocol/conversation.schema.js';
import type { VigilEvent } from '../protocol/events.schema.js';
import type { AddGoalParams, GoalView } from '../protocol/goals.schema.js';
import type { HeartbeatStatus } from '../protocol/heartbeat.schema.js';
import type { TokenScope } from '../protocol/token-scopes.js';
import type { MemoryForgetResult, MemorySearchHit, MemorySearchParams } from '../protocol/memory.schema.js';
import { forgetMemory, searchMemory } from './facade/memory.facade.js';
import type { JournalQuery } from '../subsystems/journal/event-journal.js';
import { BudgetFacade } from './facade/budget.facade.js';
import { createCheckpoint, exportOne, getCheckpoint, importOne, listCheckpoints } from './facade/checkpoints.facade.js';
import { listConversation, searchConversation, sendMessage } from './facade/conversation.facade.js';
import { EventsFacade } from './facade/events.facade.js';
import { GoalsFacade } from './facade/goals.facade.js';
import type { MetricsFacade } from './facade/metrics.facade.js';
import { actorStates, getAffect, listMemory } from './facade/mind.facade.js';
import { RestoreFacade } from './facade/restore.facade.js';
import { heartbeatStatus } from './facade/status.facade.js';
import { approveToolCall, denyToolCall, McpServersFacade, pendingToolCalls } from './facade/tools.facade.js';
import type { DenyToolCallParams, PendingToolCall, ToolDecision } from '../protocol/tool-approvals.schema.js';
import { getThink, listThinks, onThinkTrace } from './facade/thinks.facade.js';
import type { ThinkTrace, ThinkTraceSummary } from '../protocol/think-trace.schema.js';
import type { ThinksListParams } from '../protocol/thinks.schema.js';
import { TasksFacade } from './facade/tasks.facade.js';
import { SchedulesFacade } from './facade/schedules.facade.js';
import type { ScheduleView } from '../protocol/schedules.schema.js';
import type { TaskView } from '../protocol/tasks.schema.js';
import type { LiveEvent } from '../protocol/live-events.schema.js';
import { TokensFacade } from './facade/tokens.facade.js';
import { WebhooksFacade } from './facade/webhooks.facade.js';
import { ChannelsFacade } from './facade/channels.facade.js';
import { RuntimeCore } from './runtime-core.js';
import { a2aHostOf, type A2aHost } from './a2a/a2a-host.js';
import type { RuntimeParts } from './runtime-parts.js';

export { ACK_TEXT, SLEEPING_ACK_TEXT } from './facade/conversation.facade.js';
export type { RuntimeParts } from './runtime-parts.js';

/** A running agent: status, checkpoints, goals, memory, affect, messages, budget, tools, and the event feed. */
export class Runtime {
  /** Every event, as it happens. */
  readonly events$: Observable<VigilEvent>;
  /** Live-only events (`agent.reply_delta`): no seq, never journaled, for feeds that name their type. */
  readonly liveEvents$: Observable<LiveEvent>;
  /** The counters the gateway reports into, and the `/metrics` text. */
  readonly metrics: MetricsFacade;
  /** The scoped gateway tokens: `tokens.*`, authentication, and the notice of a token that ended. */
  readonly tokens: TokensFacade;
  /** The MCP servers: `tools.list`, and their OAuth sign-ins (`tools.login`, `tools.logout`, `/oauth/callback`). */
  readonly mcpServers: McpServersFacade;
  /** The webhook endpoints (`webhooks.*`) and the outbox that delivers to them beside the heartbeat. */
  readonly webhooks: WebhooksFacade;
  /** The chat channels (`channels.*`, CONTRACT §18): inboxes and outboxes beside the heartbeat. */
  readonly channels: ChannelsFacade;
  readonly a2a: A2aHost;
  private readonly core: RuntimeCore;
  private readonly goals: GoalsFacade;
  private readonly budget: BudgetFacade;
  private readonly restorer: RestoreFacade;
  private readonly events: EventsFacade;
  private readonly tasks: TasksFacade;
  private readonly schedules: SchedulesFacade;

  constructor(parts: RuntimeParts) {
    this.core = new RuntimeCore(parts);
    this.goals = new GoalsFacade(this.core);
    this.budget = new BudgetFacade(this.core);
    this.restorer = new RestoreFacade(this.core, this.budget);
    this.events = new EventsFacade(this.core);
    this.events$ = this.events.live$;
    this.liveEvents$ = this.events.liveOnly$;
    this.tasks = new TasksFacade(this.core);
    this.schedules = new SchedulesFacade(this.core, parts.schedules);
    this.webhooks = new WebhooksFacade(this.core);
    this.channels = new ChannelsFacade(this.core);
    this.a2a = a2aHostOf(this.core);
    this.metrics = parts.metrics;
    this.tokens = new TokensFacade({ store: parts.tokens, bus: parts.bus, clock: parts.clock, log: parts.log });
    this.mcpServers = new McpServersFacade(this.core);
  }

  /** The current beat number. */
  get beatCount(): number {
    return this.core.context().beatCount;
  }

  /** The runtime's clock, read (epoch ms): rate limits and timestamps at the edge use the agent's own time. */
  now(): number {
    return this.core.parts.clock.now();
  }

  /** Starts beating; emits `checkpoint.restored` first when resuming from a checkpoint. */
  start(): void {
    this.core.start();
    // After the heartbeat: what fell due while down is caught up now (or after the wake, when asleep over the budget).
    this.schedules.start();
    // Beside the heartbeat: the bus only wakes the outbox, which no beat, turn or feed ever waits for.
    this.webhooks.start();
    this.channels.start();
  }

  /** Stops at a beat boundary, writes a final checkpoint, and closes the store. Safe to call twice. */
  async stop(reason = 'stopped'): Promise<void> {
    await this.schedules.stop();
    await this.webhooks.stop();
    await this.channels.stop();
    this.tokens.stop();
    await this.core.stop(reason);
  }

  /** Resolves once every checkpoint save started so far has finished (stored or failed). */
  flush(): Promise<void> {
    return this.core.parts.checkpoints.flush();
  }

  /** `heartbeat.status`. */
  status(): HeartbeatStatus {
    return heartbeatStatus(this.core);
  }

  /** `events.history`: past events from the persisted journal, oldest first. */
  history(query: JournalQuery = {}): Promise<VigilEvent[]> {
    return this.events.history(query);
  }

  /** The newest journaled event seq (0 when none). */
  lastEventSeq(): Promise<number> {
    return this.events.lastSeq();
  }

  /** `checkpoint.list`: newest first. */
  listCheckpoints(options: { limit?: number } = {}): Promise<CheckpointSummary[]> {
    return listCheckpoints(this.core, options);
  }

  /** `checkpoint.create`: taken at the next beat boundary, resolved once stored. */
  createCheckpoint(): Promise<CheckpointCreated> {
    return createCheckpoint(this.core);
  }

  /** `checkpoint.get`: the whole decoded checkpoint. */
  getCheckpoint(id: string): Promise<CognitiveCheckpoint> {
    return getCheckpoint(this.core, id);
  }

  /** `checkpoint.restore`: needs `confirm: true`; swaps the running state at a beat boundary. */
  restoreCheckpoint(id: string, options: { confirm?: boolean } = {}): Promise<CheckpointRestored> {
    return this.restorer.restore(id, options);
  }

  /** `checkpoint.export`: a portable document with the checkpoint and its conversation. */
  exportCheckpoint(id: string): Promise<CheckpointExport> {
    return exportOne(this.core, id);
  }

  /** `checkpoint.import`: stores an export document under a new id. */
  importCheckpoint(document: unknown): Promise<ImportResult> {
    return importOne(this.core, document);
  }

  /** `goals.list`: every goal, active first. */
  listGoals(): GoalView[] {
    return this.goals.list();
  }

  /** `goals.add`: the new goal. */
  addGoal(params: AddGoalParams): GoalView {
    return this.goals.add(params);
  }

  /** `goals.complete`: the completed goal; GOAL_NOT_FOUND for an unknown id. */
  completeGoal(id: string): GoalView {
    return this.goals.complete(id);
  }

  /** `memory.list`: working-memory items, most salient first. */
  listMemory(): MemoryItemView[] {
    return listMemory(this.core);
  }

  /** `memory.search`: long-term memories best matching `query`, best first. */
  searchMemory(params: MemorySearchParams): Promise<MemorySearchHit[]> {
    return searchMemory(this.core, params);
  }

  /** `memory.forget`: removes a long-term memory from the store, the index and every later prompt. */
  forgetMemory(id: string): Promise<MemoryForgetResult> {
    return forgetMemory(this.core, id);
  }

  /** `affect.get`: dimensions, emotion label and baseline. */
  getAffect(): AffectView {
    return getAffect(this.core);
  }

  /** Every actor's state now. */
  actorStates(): ActorStates {
    return actorStates(this.core);
  }

  /**
   * `agent.send`: accepted once synced; the turn ends in exactly one `agent.reply` or `agent.unanswered`. `scope`: the
   * sender's (the gateway passes its caller's); a program embedding the runtime holds `operate`, as the daemon's token.
   */
  send(params: SendParams, scope: TokenScope = 'operate'): Promise<SendResult> {
    return sendMessage(this.core, params, scope);
  }

  /** `conversation.list`: the newest `limit` entries before `before` (a seq), newest last. */
  readonly listConversation = (params: ConversationListParams = {}) => listConversation(this.core, params);
  /** `conversation.search`: the messages best matching `query` (within `before`/`after`), best first. */
  readonly searchConversation = (params: ConversationSearchParams) => searchConversation(this.core, params);

  /** `budget.status`: today's cap, spend and state. */
  readonly budgetStatus = (): BudgetStatus => this.budget.status();
  /** `budget.topUp`: more allowance for today; a sleeper wakes at once. */
  readonly topUp = (params: TopUpParams): Promise<BudgetStatus> => this.budget.topUp(params);
  /** `budget.setCap`: a new daily cap. */
  readonly setCap = (params: SetCapParams): Promise<BudgetStatus> => this.budget.setCap(params);

  /** `tools.pending`: tool calls waiting for an operator's approval, oldest first. */
  pendingToolCalls(): PendingToolCall[] {
    return pendingToolCalls(this.core);
  }

  /** `tools.approve`: the call runs now and its result goes to its turn; TOOL_CALL_NOT_FOUND, TOOL_CALL_NOT_PENDING. */
  approveToolCall(callId: string): Promise<ToolDecision> {
    return approveToolCall(this.core, callId);
  }

  /** `tools.deny`: the call is not run and its turn is told why; TOOL_CALL_NOT_FOUND, TOOL_CALL_NOT_PENDING. */
  denyToolCall(params: DenyToolCallParams): Promise<ToolDecision> {
    return denyToolCall(this.core, params);
  }

  /** True while user turn `turnId` waits for its answer. */
  isTurnOpen(turnId: string): boolean {
    return this.core.parts.openTurns.isOpen(turnId);
  }

  /** `thinks.list`: the newest thinks' traces (calls, tool calls, totals), newest first, paging back with `before`. */
  listThinks(params: ThinksListParams = {}): Promise<ThinkTraceSummary[]> {
    return listThinks(this.core, params);
  }

  /** `thinks.get`: one think's trace with the prompt's sections; THINK_NOT_FOUND for an id not kept. */
  getThink(id: string): Promise<ThinkTrace> {
    return getThink(this.core, id);
  }

  /** Calls `listener` with each think's trace once stored (an exporter's hook); returns the function that stops it. */
  onThinkTrace(listener: (trace: ThinkTrace) => void): () => void {
    return onThinkTrace(this.core, listener);
  }

  /** `schedules.list`: every schedule, oldest first. */
  listSchedules(): ScheduleView[] {
    return this.schedules.list();
  }

  /** `schedules.add`: the new schedule; RPC_INVALID_PARAMS naming the field, SCHEDULE_LIMIT. */
  addSchedule(params: unknown): Promise<ScheduleView> {
    return this.schedules.add(params);
  }

  /** `schedules.remove`: true; SCHEDULE_NOT_FOUND. */
  removeSchedule(id: string): Promise<true> {
    return this.schedules.remove(id);
  }

  /** `schedules.pause` / `schedules.resume`: the schedule; SCHEDULE_NOT_FOUND. */
  readonly pauseSchedule = (id: string): Promise<ScheduleView> => this.schedules.pause(id);
  readonly resumeSchedule = (id: string): Promise<ScheduleView> => this.schedules.resume(id);

  /** Resolves once every schedule firing asked for so far has been written (tests wait on it). */
  schedulesSettled(): Promise<void> {
    return this.schedules.settled();
  }

  /** `tasks.list`: the sub-agent tasks, oldest first, with their spend, deadline and cap. */
  listTasks(): TaskView[] {
    return this.tasks.list();
  }

  /** `tasks.cancel`: drops a queued task or aborts a running one, recorded durably as cancelled. */
  cancelTask(id: string): Promise<TaskView> {
    return this.tasks.cancel(id);
  }
}
