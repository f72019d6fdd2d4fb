/** The `Runtime` facade: the one object the daemon, the gateway and tests drive. */
import type { Observable } from 'rxjs';
import { createActor, type Actor } from 'xstate';
import { emotionLabel } from '../actors/affect/affect.reducer.js';
import { findGoal } from '../actors/goals/goals.reducer.js';
import { VigilError } from '../errors.js';
import { readActorStates, snapshotCheckpoint } from '../heartbeat/checkpoint-snapshot.js';
import { heartbeatMachine } from '../heartbeat/heartbeat.machine.js';
import type { HeartbeatDeps, HeartbeatSeed } from '../heartbeat/heartbeat.types.js';
import type { Clock } from '../shared/clock.js';
import type { IdFactory } from '../shared/ids.js';
import type { VigilLogger } from '../shared/logger.js';
import { createMutex } from '../shared/mutex.js';
import type { CheckpointManager } from '../subsystems/checkpoint/checkpoint.manager.js';
import type { CognitiveCheckpoint } from '../protocol/checkpoint-format.schema.js';
import type { CheckpointStore } from '../subsystems/checkpoint/checkpoint.store.js';
import type { ConversationLog } from '../subsystems/conversation/conversation-log.js';
import type { EventBus } from '../events/event-bus.js';
import type { VigilEvent } from '../protocol/events.schema.js';
import type { SwarmResultLog } from '../subsystems/swarm-results/swarm-result-log.js';
import type { EventJournal, JournalQuery } from '../subsystems/journal/event-journal.js';
import type { VigilDb } from '../subsystems/store/vigil-db.js';
import { seedFromCheckpoint } from './heartbeat-seed.js';
import { readBudgetBasis } from './budget-basis.js';
import { dayKeyIn } from '../actors/budget/budget-calendar.js';
import { allowanceMicroUsd, budgetPct, budgetStatusState, resetsAt } from '../actors/budget/budget.reducer.js';
import type { BudgetState } from '../actors/budget/budget.schema.js';
import { emitBudgetUpdated } from '../heartbeat/cost-recorder.js';
import { affectNow, workingMemoryNow } from '../heartbeat/decayed-views.js';
import type { BudgetLedger } from '../subsystems/budget/budget-ledger.js';
import type { VigilMetrics } from '../subsystems/metrics/vigil-metrics.js';
import type {
  AddGoalParams,
  AffectView,
  CheckpointCreated,
  CheckpointRestored,
  CheckpointSummary,
  GoalView,
  HeartbeatStatus,
  MemoryItemView,
  SendParams,
  SendResult,
  BudgetStatus,
  TopUpParams,
  SetCapParams,
  ConversationEntry,
  ConversationListParams,
  ConversationMessage,
} from '../protocol/index.js';

/** The parts a runtime is made of; `createRuntime` builds them. */
export interface RuntimeParts {
  clock: Clock;
  bus: EventBus;
  log: VigilLogger;
  store: CheckpointStore;
  checkpoints: CheckpointManager;
  conversation: ConversationLog;
  swarmResults: SwarmResultLog;
  journal: EventJournal;
  ledger: BudgetLedger;
  metrics: VigilMetrics;
  /** The database everything above lives in. */
  db: VigilDb;
  ids: IdFactory;
  /** VIGIL_DAILY_BUDGET_USD in micro-dollars (a run-time cap is kept only while this is unchanged). */
  configuredCapMicroUsd: number;
  deps: Omit<HeartbeatDeps, 'onPaused' | 'notify'>;
  /** The seed to start from (a restored checkpoint or a cold start). */
  seed: HeartbeatSeed;
  /** The checkpoint the seed came from, for `checkpoint.restored` at start. */
  restored: CognitiveCheckpoint | null;
  /** Closes what the runtime owns (the database) after it stops. */
  close: () => Promise<void>;
}

type HeartbeatActor = Actor<typeof heartbeatMachine>;

const iso = (ms: number): string => new Date(ms).toISOString();

/** The short acknowledgement a preempting message gets at once (seed 002's "one moment"). */
export const ACK_TEXT = "One moment — I'm finishing something up, then I'll answer you.";

/** The start of the acknowledgement a message gets while the agent sleeps over its budget; the wake time follows. */
export const SLEEPING_ACK_TEXT = "I'm resting: today's budget is spent. I'll answer when I wake at";

/** A running agent: status, checkpoints, goals, memory, affect, messages, and the event feed. */
export class Runtime {
  /** Every event, as it happens. */
  readonly events$: Observable<VigilEvent>;
  private readonly parts: RuntimeParts;
  private readonly actor: HeartbeatActor;
  private readonly exclusive = createMutex();
  private pauseWaiters: Array<() => void> = [];
  private restoring = false;
  private started = false;
  private stopped = false;
  private readonly startedAt: number;

  constructor(parts: RuntimeParts) {
    this.parts = parts;
    this.events$ = parts.bus.events$;
    this.startedAt = parts.clock.now();
    const deps: HeartbeatDeps = {
      ...parts.deps,
      onPaused: () => this.releasePauseWaiters(),
      notify: (event) => this.actor.send(event),
    };
    this.actor = createActor(heartbeatMachine, { input: { deps, seed: parts.seed }, clock: parts.clock });
  }

  /** The current beat number. */
  get beatCount(): number {
    return this.actor.getSnapshot().context.beatCount;
  }

  /** Starts beating; emits `checkpoint.restored` first when resuming from a checkpoint. */
  start(): void {
    const { restored, bus, clock, seed } = this.parts;
    if (restored !== null) {
      bus.emit('checkpoint.restored', {
        checkpointId: restored.id,
        beatsRecovered: restored.beatCount,
        ageSeconds: Math.max(0, (clock.now() - restored.createdAt) / 1000),
      });
    }
    this.started = true;
    bus.emit('heartbeat.started', { restoredFrom: seed.restoredFrom, beatCount: seed.beatCount });
    // Where the money stands at start, for subscribers and metrics that have seen no think yet.
    emitBudgetUpdated(bus, seed.actors.budget);
    this.actor.start();
  }

  /** `heartbeat.status`. */
  status(): HeartbeatStatus {
    const snapshot = this.actor.getSnapshot();
    const { context } = snapshot;
    const dormant = snapshot.matches('dormant');
    return {
      beatCount: context.beatCount,
      phase: this.stopped ? 'stopped' : phaseOf(snapshot.value),
      state: dormant ? 'dormant' : 'awake',
      activity: activityOf(snapshot.matches({ running: 'think' }), context.refs.budget.getSnapshot().context, context.beat.plan !== null),
      intervalMs: context.intervalMs,
      startedAt: iso(this.startedAt),
      restoredFrom: context.restoredFrom,
      unreadReplies: context.turns.unreadReplies,
      pendingMessages: context.turns.pending.length,
      consecutiveFailures: context.consecutiveFailures,
      thinker: this.parts.deps.thinker.kind,
      version: this.parts.deps.runtimeVersion,
    };
  }

  /** `events.history`: past events from the persisted journal, oldest first (see `JournalQuery`). */
  history(query: JournalQuery = {}): Promise<VigilEvent[]> {
    return this.parts.journal.query(query);
  }

  /** The stores behind this runtime, for modules that extend it (export/import, the gateway's journal reads). */
  get services(): Pick<RuntimeParts, 'store' | 'conversation' | 'journal' | 'db' | 'clock' | 'bus' | 'log' | 'metrics'> {
    const { store, conversation, journal, db, clock, bus, log, metrics } = this.parts;
    return { store, conversation, journal, db, clock, bus, log, metrics };
  }

  /** `checkpoint.list`: newest first, from the index only. */
  async listCheckpoints(options: { limit?: number } = {}): Promise<CheckpointSummary[]> {
    const metas = await this.parts.store.list(options.limit === undefined ? {} : { limit: options.limit });
    return metas.map((meta) => ({ ...meta, createdAt: iso(meta.createdAt) }));
  }

  /** `checkpoint.create`: taken at the next beat boundary, resolved once stored. */
  createCheckpoint(): Promise<CheckpointCreated> {
    this.assertRunning();
    const saved = this.parts.checkpoints.request();
    this.actor.send({ type: 'CHECKPOINT_NOW' });
    return saved;
  }

  /** `checkpoint.get`: the whole decoded checkpoint. */
  getCheckpoint(id: string): Promise<CognitiveCheckpoint> {
    return this.parts.store.load(id);
  }

  /**
   * `checkpoint.restore`: without `confirm`, fails with CHECKPOINT_CONFIRMATION_REQUIRED describing the checkpoint;
   * with it, swaps the running state at a beat boundary. Messages logged after the checkpoint are archived, not lost.
   */
  async restoreCheckpoint(id: string, options: { confirm?: boolean } = {}): Promise<CheckpointRestored> {
    this.assertRunning();
    if (options.confirm !== true) {
      const checkpoint = await this.parts.store.load(id);
      throw new VigilError(
        'CHECKPOINT_CONFIRMATION_REQUIRED',
        `Restoring checkpoint ${id} replaces the running state; call again with confirm: true.`,
        { data: { id, beatCount: checkpoint.beatCount, createdAt: iso(checkpoint.createdAt) } },
      );
    }
    // Checked and set before any await, so two concurrent restores can never both pass.
    if (this.restoring) {
      throw new VigilError('CHECKPOINT_RESTORE_BUSY', `A restore is already running; checkpoint ${id} was not restored.`);
    }
    this.restoring = true;
    try {
      const checkpoint = await this.parts.store.load(id);
      return await this.exclusive.run(async () => {
        await this.pause();
        try {
          const { conversation, swarmResults, clock, bus, checkpoints } = this.parts;
          // Turns answered after the checkpoint stay answered; turns opened after it end as cancelled: never twice, never silent.
          const later = await conversation.readAfter(checkpoint.conversation.watermark);
          const endedLater = new Set(later.filter((m) => m.role === 'assistant').map((m) => m.turnId));
          const reopened = checkpoint.conversation.pending.filter((open) => !endedLater.has(open.turnId));
          const reopenedIds = new Set(reopened.map((open) => open.turnId));
          const cancelled = this.actor.getSnapshot().context.turns.pending.filter((open) => !reopenedIds.has(open.turnId));
          await conversation.archiveAfter(checkpoint.conversation.watermark, `restore-${checkpoint.id}-${clock.now()}`);
          for (const open of cancelled) {
            const reason = `The agent was restored to checkpoint ${checkpoint.id}, taken before this message; send it again if it still matters.`;
            await this.parts.deps.closer.unanswered(open.turnId, 'TURN_CANCELLED', reason, clock.now());
          }
          const inFlight = checkpoint.actors.swarms.tasks
            .filter((task) => task.status === 'queued' || task.status === 'running')
            .map((task) => task.id);
          const finishedTasks = await swarmResults.find(inFlight);
          const now = clock.now();
          const budget = await readBudgetBasis(this.parts.ledger, this.budgetSettings(), now);
          const base = { ...checkpoint, conversation: { ...checkpoint.conversation, pending: reopened } };
          const seed = seedFromCheckpoint(base, now, { messagesAfter: [], finishedTasks, budget, turn: null });
          this.actor.send({ type: 'APPLY_SEED', seed });
          // Durable at once: a crash before the next periodic checkpoint must not bring back the state replaced here.
          await checkpoints.saveNow(snapshotCheckpoint(this.actor.getSnapshot().context, checkpoints.newId(), 'sleep'));
          bus.emit('checkpoint.restored', {
            checkpointId: checkpoint.id,
            beatsRecovered: checkpoint.beatCount,
            ageSeconds: Math.max(0, (clock.now() - checkpoint.createdAt) / 1000),
          });
          return { restored: checkpoint.id, beatCount: checkpoint.beatCount };
        } finally {
          this.actor.send({ type: 'RESUME' });
        }
      });
    } finally {
      this.restoring = false;
    }
  }

  /** `goals.list`: every goal, active first. */
  listGoals(): GoalView[] {
    const { goals } = this.actor.getSnapshot().context.refs.goals.getSnapshot().context;
    const order = { active: 0, completed: 1, abandoned: 2 } as const;
    return [...goals].sort((a, b) => order[a.status] - order[b.status]).map(goalView);
  }

  /** `goals.add`: the new goal. */
  addGoal(params: AddGoalParams): GoalView {
    this.assertRunning();
    const { refs } = this.actor.getSnapshot().context;
    const { clock, ids, bus } = this.parts;
    const id = `g-${ids.next()}`;
    refs.goals.send({
      type: 'goal.add',
      at: clock.now(),
      goal: {
        id,
        title: params.title,
        ...(params.priority === undefined ? {} : { priority: params.priority }),
        ...(params.dueAt === undefined ? {} : { dueAt: Date.parse(params.dueAt) }),
      },
    });
    const goal = findGoal(refs.goals.getSnapshot().context, id);
    if (goal === undefined) throw new VigilError('INTERNAL', `Goal ${id} was not added (the goals actor is restarting).`);
    bus.emit('goal.added', { goalId: id, title: goal.title, priority: goal.priority });
    return goalView(goal);
  }

  /** `goals.complete`: the completed goal; GOAL_NOT_FOUND for an unknown id. */
  completeGoal(id: string): GoalView {
    this.assertRunning();
    const { refs } = this.actor.getSnapshot().context;
    if (findGoal(refs.goals.getSnapshot().context, id) === undefined) {
      throw new VigilError('GOAL_NOT_FOUND', `No goal with id ${JSON.stringify(id)}.`, { data: { id } });
    }
    refs.goals.send({ type: 'goal.complete', at: this.parts.clock.now(), id });
    const goal = findGoal(refs.goals.getSnapshot().context, id)!;
    this.parts.bus.emit('goal.updated', { goalId: id, progress: goal.progress, status: goal.status });
    return goalView(goal);
  }

  /** `memory.list`: working-memory items, most salient first. */
  listMemory(): MemoryItemView[] {
    const { items } = workingMemoryNow(this.actor.getSnapshot().context.refs, this.parts.clock.now());
    return [...items]
      .sort((a, b) => b.salience - a.salience)
      .map((item) => ({ id: item.id, content: item.content, salience: item.salience, createdAt: iso(item.createdAt) }));
  }

  /** `affect.get`: dimensions, emotion label and baseline. */
  getAffect(): AffectView {
    const { dimensions, baseline } = affectNow(this.actor.getSnapshot().context.refs, this.parts.clock.now());
    return { ...dimensions, emotion: emotionLabel(dimensions), baseline };
  }

  /** Every actor's state now (for tests and export). */
  actorStates(): ReturnType<typeof readActorStates> {
    return readActorStates(this.actor.getSnapshot().context.refs);
  }

  /**
   * `agent.send`: logs the message durably, then hands it to the heartbeat; the answer comes as `agent.reply`. A
   * message arriving during autonomous work preempts it at once (`agent.preempted`, then `agent.ack`); one arriving
   * during a user turn follows the busy strategy: interrupt (answer both next), enqueue (after this turn) or reject.
   */
  async send(params: SendParams): Promise<SendResult> {
    this.assertRunning();
    const { conversation, clock, ids, bus } = this.parts;
    const snapshot = this.actor.getSnapshot();
    const thinking = snapshot.matches({ running: 'think' });
    const userTurnRunning = thinking && snapshot.context.beat.plan?.reason === 'user_message';
    if (userTurnRunning && this.busyStrategy === 'reject') {
      throw new VigilError('AGENT_BUSY', 'The agent is answering another message; send again when it has replied.', {
        data: { strategy: 'reject' },
      });
    }
    const turnId = `t-${ids.next()}`;
    const from = params.from ?? 'user';
    return this.exclusive.run(async () => {
      const at = clock.now();
      await conversation.append({ turnId, role: 'user', text: params.text, from, at });
      bus.emit('agent.message', { turnId, text: params.text, from });
      this.actor.send({ type: 'USER_MESSAGE', message: { turnId, text: params.text, from, at } });
      const now = this.actor.getSnapshot();
      if (now.matches('dormant')) {
        // Asleep over the budget: no API call now, but the sender hears at once when the answer will come.
        const wakeAt = iso(resetsAt(now.context.refs.budget.getSnapshot().context));
        bus.emit('agent.ack', { turnId, text: `${SLEEPING_ACK_TEXT} ${wakeAt}, or sooner if the budget is topped up.` });
      } else if (now.matches({ running: 'think' }) && !now.context.beat.handledTurnIds.includes(turnId)) {
        // A think already running for other work (the message woke no beat of its own): it yields to this message.
        const autonomous = now.context.beat.plan?.reason !== 'user_message';
        if (autonomous || this.busyStrategy === 'interrupt') {
          this.actor.send({ type: 'PREEMPT', reason: autonomous ? `user message ${turnId}` : `another user message ${turnId}` });
          bus.emit('agent.ack', { turnId, text: ACK_TEXT });
        }
      }
      return { turnId };
    });
  }

  /** `conversation.list`: the newest `limit` entries before `before` (a seq), newest last. */
  async listConversation(params: ConversationListParams = {}): Promise<ConversationEntry[]> {
    const messages = await this.parts.conversation.readBefore(params.before, params.limit ?? 50);
    return messages.map(conversationEntry);
  }

  /** `budget.status`: today's cap, spend and state. */
  budgetStatus(): BudgetStatus {
    const budget = this.budgetRef().getSnapshot().context;
    const limits = this.parts.deps.options.budgetLimits;
    const allowance = allowanceMicroUsd(budget);
    return {
      dailyCapUsd: budget.dailyCapMicroUsd / 1_000_000,
      spentTodayUsd: budget.spentTodayMicroUsd / 1_000_000,
      remainingUsd: (allowance - budget.spentTodayMicroUsd) / 1_000_000,
      pct: Math.round(Math.min(budgetPct(budget), 1e9) * 100) / 100,
      state: budgetStatusState(budget, limits),
      timezone: budget.timezone,
      resetsAt: iso(resetsAt(budget)),
      topUpUsd: budget.topUpMicroUsd / 1_000_000,
      sessionCostUsd: budget.sessionCostMicroUsd / 1_000_000,
    };
  }

  /** `budget.topUp`: more allowance for today, recorded (with its wake signal) before it counts; a sleeper wakes at once. */
  async topUp(params: TopUpParams): Promise<BudgetStatus> {
    this.assertRunning();
    const amountMicroUsd = Math.round(params.amountUsd * 1_000_000);
    const { ledger, clock, bus } = this.parts;
    const at = clock.now();
    const budget = this.budgetRef();
    await ledger.topUp(dayKeyIn(budget.getSnapshot().context.timezone, at), amountMicroUsd, at);
    budget.send({ type: 'budget.top_up', at, amountMicroUsd });
    emitBudgetUpdated(bus, budget.getSnapshot().context);
    this.actor.send({ type: 'WAKE_CHECK', reason: 'top_up' });
    return this.budgetStatus();
  }

  /** `budget.setCap`: a new daily cap, kept across restarts while the configured cap is unchanged. */
  async setCap(params: SetCapParams): Promise<BudgetStatus> {
    this.assertRunning();
    const capMicroUsd = Math.round(params.dailyCapUsd * 1_000_000);
    const { ledger, clock, bus } = this.parts;
    await ledger.setCap({ capMicroUsd, configuredCapMicroUsd: this.parts.configuredCapMicroUsd });
    const budget = this.budgetRef();
    budget.send({ type: 'budget.set_cap', at: clock.now(), capMicroUsd });
    emitBudgetUpdated(bus, budget.getSnapshot().context);
    // A higher cap may wake a sleeper; a lower one may reach the hard stop.
    this.actor.send({ type: 'WAKE_CHECK', reason: 'manual' });
    this.actor.send({ type: 'BUDGET_CHECK' });
    return this.budgetStatus();
  }

  /** Resolves once every checkpoint save started so far has finished (stored or failed). */
  async flush(): Promise<void> {
    await this.parts.checkpoints.flush();
  }

  /** Stops at a beat boundary, writes a final checkpoint, and closes the store. Safe to call twice. */
  async stop(reason = 'stopped'): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    // Never started: there is no beat to finish and nothing new to checkpoint, only what it owns to close.
    if (!this.started) {
      await this.parts.close();
      return;
    }
    await this.exclusive.run(async () => {
      await this.pause();
      const { checkpoints, bus, log } = this.parts;
      const context = this.actor.getSnapshot().context;
      try {
        await checkpoints.flush();
        await checkpoints.saveNow(snapshotCheckpoint(context, checkpoints.newId(), 'sleep'));
      } catch (err) {
        log.error({ err }, 'final checkpoint failed');
      }
      bus.emit('heartbeat.stopped', { beatCount: context.beatCount, reason });
      this.actor.stop();
      await checkpoints.flush();
    });
    await this.parts.close();
  }

  private pause(): Promise<void> {
    return new Promise((resolve) => {
      this.pauseWaiters.push(resolve);
      this.actor.send({ type: 'PAUSE' });
    });
  }

  private releasePauseWaiters(): void {
    const waiters = this.pauseWaiters;
    this.pauseWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private budgetRef() {
    return this.actor.getSnapshot().context.refs.budget;
  }

  private budgetSettings(): { timezone: string; configuredCapMicroUsd: number } {
    return { timezone: this.budgetRef().getSnapshot().context.timezone, configuredCapMicroUsd: this.parts.configuredCapMicroUsd };
  }

  private get busyStrategy(): 'interrupt' | 'enqueue' | 'reject' {
    return this.parts.deps.options.busyStrategy;
  }

  private assertRunning(): void {
    if (this.stopped) throw new VigilError('RUNTIME_STOPPED', 'The runtime is stopping and takes no more work.');
  }
}

/** Seed 002's agent status: working while a think runs, wrapping up once told to wind down, else idle. */
function activityOf(thinking: boolean, budget: BudgetState, _planned: boolean): HeartbeatStatus['activity'] {
  if (!thinking) return 'idle';
  return budget.windDownNotified && !budget.sleeping ? 'wrapping_up' : 'working';
}

function conversationEntry(message: ConversationMessage): ConversationEntry {
  return {
    seq: message.seq,
    turnId: message.turnId,
    role: message.role === 'user' ? 'user' : 'agent',
    ...(message.from === undefined ? {} : { from: message.from }),
    text: message.text,
    at: iso(message.at),
    ...(message.unanswered === undefined ? {} : { unanswered: message.unanswered }),
  };
}

function goalView(goal: { id: string; title: string; priority: number; progress: number; status: GoalView['status']; dueAt?: number | undefined }): GoalView {
  return {
    id: goal.id,
    title: goal.title,
    priority: goal.priority,
    progress: goal.progress,
    status: goal.status,
    ...(goal.dueAt === undefined ? {} : { dueAt: iso(goal.dueAt) }),
  };
}

function phaseOf(value: unknown): HeartbeatStatus['phase'] {
  if (value === 'paused') return 'paused';
  if (typeof value === 'object' && value !== null && 'dormant' in value) return 'dormant';
  if (typeof value === 'object' && value !== null && 'running' in value) {
    const running = (value as { running: unknown }).running;
    const phase = typeof running === 'string' ? running : Object.keys(running as object)[0];
    if (phase === 'sense' || phase === 'think' || phase === 'integrate' || phase === 'sleep') return phase;
  }
  return 'sleep';
}
