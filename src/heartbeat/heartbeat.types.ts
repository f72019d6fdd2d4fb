/** The heartbeat machine's context, events and dependencies. */
import type { ActorRefFrom } from 'xstate';
import type { affectLogic } from '../actors/affect/affect.actor.js';
import type { budgetLogic } from '../actors/budget/budget.actor.js';
import type { BudgetLimits } from '../actors/budget/budget.schema.js';
import type { goalsLogic } from '../actors/goals/goals.actor.js';
import type { swarmsLogic } from '../actors/swarms/swarms.actor.js';
import type { workingMemoryLogic } from '../actors/working-memory/working-memory.actor.js';
import type { TokenScope } from '../protocol/token-scopes.js';
import type { Clock } from '../shared/clock.js';
import type { IdFactory } from '../shared/ids.js';
import type { VigilLogger } from '../shared/logger.js';
import type { ActorStates, CognitiveCheckpoint } from '../protocol/checkpoint-format.schema.js';
import type { ConversationLog } from '../subsystems/conversation/conversation-log.js';
import type { EventBus } from '../events/event-bus.js';
import type { SwarmResultLog } from '../subsystems/swarm-results/swarm-result-log.js';
import type { SwarmTaskLog } from '../subsystems/swarm-results/swarm-task-log.js';
import type { ToolCallLog } from '../subsystems/tools/tool-call-log.js';
import type { BudgetLedger } from '../subsystems/budget/budget-ledger.js';
import type { TurnCloser } from '../subsystems/conversation/turn-closer.js';
import type { TurnTimersStore } from '../subsystems/conversation/turn-timers-store.js';
import type { Thinker } from '../subsystems/thinking/thinker.js';
import type { ApprovalWaits } from '../subsystems/tools/approval-waits.js';
import type { ThinkTraceSink } from '../subsystems/traces/think-tracer.js';
import type { ThinkContext } from '../subsystems/summary/think-context.js';
import type { LongTermMemory } from '../subsystems/memory/long-term-memory.js';
import type { ConversationSearch } from '../subsystems/conversation/conversation-search.js';
import type { PendingMessage, ThinkResult } from '../subsystems/thinking/thinker.schema.js';
import type { BeatPlan } from './beat-plan.js';
import type { TurnTimers } from './turn-tracker.js';

/** The supervised domain actors, by the name their state has in a checkpoint. */
export type DomainActorName = keyof ActorStates;
export const DOMAIN_ACTOR_NAMES: readonly DomainActorName[] = ['affect', 'goals', 'workingMemory', 'swarms', 'budget'];

/** Live references to the domain actors. */
export interface DomainActorRefs {
  affect: ActorRefFrom<typeof affectLogic>;
  goals: ActorRefFrom<typeof goalsLogic>;
  workingMemory: ActorRefFrom<typeof workingMemoryLogic>;
  swarms: ActorRefFrom<typeof swarmsLogic>;
  budget: ActorRefFrom<typeof budgetLogic>;
}

/** Tunables of the beat loop. */
export interface HeartbeatOptions {
  beatMs: number;
  beatMinMs: number;
  beatMaxMs: number;
  /** Beats between autonomous thinks on a goal that is not yet due. */
  goalWorkEveryBeats: number;
  /** Wind-down and hard-stop percentages. */
  budgetLimits: BudgetLimits;
  /** A turn at least this long earns a debrief at its end. */
  debriefAfterMs: number;
  /** A think running longer than this is reset as stuck. */
  stuckTurnMs: number;
  /** What a message arriving during a user turn does. */
  busyStrategy: 'interrupt' | 'enqueue' | 'reject';
  /** Sub-agent tasks' default deadline and money cap (VIGIL_TASK_DEADLINE_MS, VIGIL_TASK_MAX_COST_USD); task-spawn.ts defaults. */
  tasks?: { deadlineMs: number; maxCostMicroUsd: number };
  /** The bound on one prompt in tokens (`VIGIL_CONTEXT_TOKENS`); unset: the thinker's default. */
  contextTokens?: number;
}

/** Takes a checkpoint of a state the machine hands it, in the background; the beat never waits for the write. */
export interface CheckpointSink {
  /** True when a checkpoint should be taken at the end of this beat (interval reached or one requested). */
  isDue(beatCount: number): boolean;
  /** Stores `checkpoint` (id already assigned) without blocking the caller. */
  saveInBackground(checkpoint: CognitiveCheckpoint): void;
  /** A fresh checkpoint id. */
  newId(): string;
}

/** Everything the heartbeat needs from outside, injected once. */
export interface HeartbeatDeps {
  clock: Clock;
  bus: EventBus;
  log: VigilLogger;
  thinker: Thinker;
  identity: string;
  conversation: ConversationLog;
  swarmResults: SwarmResultLog;
  /** Where every task is recorded when spawned and when started, so a crash never loses one silently. */
  swarmTasks: SwarmTaskLog;
  /** The tool call log, read when a task starts again after being cut off (absent: no MCP tools were ever called). */
  toolCalls?: Pick<ToolCallLog, 'all'>;
  checkpoints: CheckpointSink;
  ids: IdFactory;
  runtimeVersion: string;
  options: HeartbeatOptions;
  /** Ends user turns: ending and event in one sync batch. */
  closer: TurnCloser;
  /** Where the debrief timers are recorded as they change. */
  turnTimers: TurnTimersStore;
  /** Where every think's and task's cost is recorded before its result is applied. */
  ledger: BudgetLedger;
  /** Turns waiting for an operator's decision on a tool call (absent: none ever wait). */
  approvals?: ApprovalWaits;
  /** Where each finished think's trace goes (CONTRACT §10); none: thinks are not traced. */
  traces?: ThinkTraceSink;
  /** The conversation summary, recent turns and a debrief's turn for each think; unset: a think sees only its messages. */
  context?: ThinkContext;
  /** Long-term memory: recalled into each think, fed by `remember` and by what leaves working memory (absent: none). */
  memory?: LongTermMemory;
  /** The conversation's search: old messages that left the prompt window are recalled into a think (absent: none). */
  conversationSearch?: ConversationSearch;
}

/** The conversation's turn state kept by the heartbeat (messages themselves are in the log), with the debrief timers. */
export interface TurnState extends TurnTimers {
  pending: PendingMessage[];
  unreadReplies: number;
}

/** The state the heartbeat starts or resumes from: a cold start or a decoded checkpoint. */
export interface HeartbeatSeed {
  actors: ActorStates;
  beatCount: number;
  intervalMs: number;
  consecutiveFailures: number;
  lastUserActivityAt: number | null;
  turns: TurnState;
  restoredFrom: string | null;
}

/** Why a think ended without a usable result. */
export interface ThinkFailure {
  /**
   * THINK_REJECTED (the API refused it for good), CONTEXT_TOO_SMALL (refused by the local bound), THINK_STUCK,
   * THINK_ABORTED (preempted), or a transient code.
   */
  code: string;
  reason: string;
}

/** Timings and outcome of the beat in progress. */
export interface BeatProgress {
  startedAtPerf: number;
  senseMs: number;
  thinkMs: number;
  integrateMs: number;
  failed: boolean;
  /** The think was aborted for a user message; the autonomous work it was doing runs again after. */
  preempted: boolean;
  plan: BeatPlan | null;
  turnId: string | null;
  /** The user turns whose messages this beat's think is given (messages arriving later wait for the next). */
  handledTurnIds: string[];
  result: ThinkResult | null;
  /** Why the think gave no full result (refused, stuck, preempted, failed); null while it runs or when it succeeded. */
  failure: ThinkFailure | null;
  /** Aborted when a user message preempts this beat's think: it yields at its next safe point. */
  preempt: AbortController | null;
  /** Standing lines for this beat's think (debrief, resume, wind-down). */
  notices: string[];
  /** Today's spend for the prompt's budget line, read when the think began. */
  budgetLine: { spentTodayUsd: number; dailyCapUsd: number; pct: number } | null;
  /** Effects sense decided on (run by the action right after it; none on an idle beat). */
  senseEffects: Array<() => void>;
  /** The ledger is down and no probe is in flight: this beat spawns one. */
  probeLedger: boolean;
  /** A debrief's turn: when it began and ended (epoch ms), read before the debrief restarted the timers. */
  review: { from: number; to: number } | null;
}

/** The machine's context. */
export interface HeartbeatContext {
  deps: HeartbeatDeps;
  refs: DomainActorRefs;
  /** Each actor's last state known good, for restarts after a crash. */
  lastGood: ActorStates;
  beatCount: number;
  intervalMs: number;
  consecutiveFailures: number;
  lastUserActivityAt: number | null;
  lastGoalWorkBeat: number;
  startedAt: number;
  restoredFrom: string | null;
  turns: TurnState;
  beat: BeatProgress;
  pauseRequested: boolean;
  /** A user message arrived: the next beat starts now, not at the end of the interval. */
  wakeRequested: boolean;
  /** Autonomous work a user message interrupted, resumed once the user's turn is answered (seed 002). */
  deferred: BeatPlan | null;
  /** The API refused the credentials: no thinks until `retryAt`, then one try (backing off while it keeps failing). */
  thinkerPause: { since: number; retryAt: number; backoffMs: number } | null;
  /** The budget ledger could not be written: no thinks until a probe write succeeds. */
  ledger: { down: boolean; since: number; probing: boolean };
}

/** Events the heartbeat accepts from the runtime. */
export type HeartbeatEvent =
  /** A new message always says with which scope it was sent; only an old checkpoint's or log's may lack it. */
  | { type: 'USER_MESSAGE'; message: PendingMessage & { scope: TokenScope } }
  | { type: 'PAUSE' }
  | { type: 'RESUME' }
  | { type: 'APPLY_SEED'; seed: HeartbeatSeed }
  | { type: 'CHECKPOINT_NOW' }
  /** A user message arrived during a think that should yield to it. */
  | { type: 'PREEMPT'; reason: string }
  /** An operator cancelled a task (its outcome already recorded): drop it if queued, stop it if running. */
  | { type: 'TASK_CANCEL'; id: string; reason: string }
  /** Spend changed outside a think (a task, a cap change): stop at once if the hard stop is reached. */
  | { type: 'BUDGET_CHECK' }
  /** Allowance grew (top-up, cap raised): a sleeping agent wakes if there is room now. */
  | { type: 'WAKE_CHECK'; reason: 'top_up' | 'manual' }
  /** A charge could not be written to the ledger. */
  | { type: 'LEDGER_FAILED'; reason: string }
  /** A probe write to the ledger succeeded (true) or failed again (false). */
  | { type: 'LEDGER_PROBED'; ok: boolean }
  /** A tool call was decided (and, if approved, ran): its waiting turn can be thought about now. */
  | { type: 'TOOL_DECIDED' };
