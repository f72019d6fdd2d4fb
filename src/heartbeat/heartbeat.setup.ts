/** The heartbeat machine's named implementations (child actors, delays, actions, guards), which its chart refers to. */
import { assign, enqueueActions, setup, spawnChild } from 'xstate';
import { affectLogic } from '../actors/affect/affect.actor.js';
import { budgetLogic } from '../actors/budget/budget.actor.js';
import { goalsLogic } from '../actors/goals/goals.actor.js';
import { swarmsLogic } from '../actors/swarms/swarms.actor.js';
import { workingMemoryLogic } from '../actors/working-memory/working-memory.actor.js';
import { describeError } from '../errors.js';
import type { PendingMessage } from '../protocol/conversation.schema.js';
import type { ThinkResult } from '../subsystems/thinking/thinker.schema.js';
import {
  dormantBeat,
  dormantDelayMs,
  fallAsleepAfterBeat,
  fallAsleepAtBoot,
  fallAsleepAtHardStop,
  wakeForDueReason,
  wakeUp,
} from './budget-sleep.js';
import { snapshotCheckpoint } from './checkpoint-snapshot.js';
import { childDone, childFailed } from './child-outcomes.js';
import { backedOffIntervalMs } from './circuit-breaker.js';
import { ledgerFailed, ledgerProbed, receiveMessage } from './event-steps.js';
import { finishBeat, hasPendingWork, prepareThink, sense, type BeatStep } from './heartbeat.actions.js';
import { contextFromSeed, type HeartbeatInput } from './heartbeat.context.js';
import { asleepAtBoot, atHardStop, roomToWake, sleepsAfterBeat, wakeAtBoot, wakeDue } from './heartbeat.guards.js';
import {
  DOMAIN_ACTOR_NAMES,
  type HeartbeatContext,
  type HeartbeatEvent,
  type HeartbeatSeed,
} from './heartbeat.types.js';
import { ledgerProbeLogic, settleLogic, swarmTaskLogic, thinkLogic } from './phase-actors.js';
import type { SettleOutcome } from './settle-think.js';
import { lastGoodStateOf, LEDGER_PROBE_ID, spawnDomainActor, SWARM_TASK_PREFIX } from './supervision.js';
import { cancelTask } from './task-cancel.js';
import { preemptThink, thinkDone, thinkFailed, thinkSettled, thinkStuck } from './think-steps.js';

/** The part of `enqueueActions`' `enqueue` a step needs. */
interface StepEnqueue {
  (action: () => void): void;
  assign(patch: Partial<HeartbeatContext>): void;
  raise(event: HeartbeatEvent): void;
}

/** Assigns a step's patch, runs its effects as one action (none when it has none), then raises its events. */
function run(enqueue: StepEnqueue, step: Partial<BeatStep> & { raise?: HeartbeatEvent[] }): void {
  if (step.patch !== undefined) enqueue.assign(step.patch);
  const effects = step.effects ?? [];
  if (effects.length > 0) {
    enqueue(() => {
      for (const effect of effects) effect();
    });
  }
  for (const event of step.raise ?? []) enqueue.raise(event);
}

/** A child actor that ended (`event.actorId`), with what it ended with. */
export interface ChildEnding {
  childId: string;
  ended: unknown;
}

/** The machine's setup: its types and named implementations; `heartbeat.machine.ts` builds the chart on it. */
export const heartbeatSetup = setup({
  types: {
    context: {} as HeartbeatContext,
    events: {} as HeartbeatEvent,
    input: {} as HeartbeatInput,
  },
  actors: {
    affect: affectLogic,
    goals: goalsLogic,
    workingMemory: workingMemoryLogic,
    swarms: swarmsLogic,
    budget: budgetLogic,
    think: thinkLogic,
    settle: settleLogic,
    swarmTask: swarmTaskLogic,
    ledgerProbe: ledgerProbeLogic,
  },
  delays: {
    beatDelay: ({ context }) => backedOffIntervalMs(context.intervalMs, context.consecutiveFailures),
    dormantDelay: ({ context }) => dormantDelayMs(context),
    stuckDelay: ({ context }) => context.deps.options.stuckTurnMs,
  },
  actions: {
    // The beat: sense, the think's start, the beat's end, a dormant beat.
    // Sense plans in one assign and keeps its effects on the beat; every way out of sense runs them first (finishBeat
    // or prepareThink), so an idle beat, the machine's most frequent step, costs one assign and no extra action.
    sense: assign(({ context }) => sense(context)),
    /** With the ledger down, probes it in a child whose outcome comes back as a done or error event. */
    spawnLedgerProbe: spawnChild('ledgerProbe', {
      id: LEDGER_PROBE_ID,
      input: ({ context }) => ({ deps: context.deps }),
    }),
    /** The think's notices and budget line, read as it begins. */
    prepareThink: enqueueActions(({ context, enqueue }) => run(enqueue, prepareThink(context))),
    finishBeat: enqueueActions(({ context, enqueue }) => {
      const senseEffects = context.beat.senseEffects;
      const step = finishBeat(context);
      enqueue.assign(step.patch);
      for (const task of step.startTasks) {
        enqueue(() => context.refs.swarms.send({ type: 'swarm.started', at: context.deps.clock.now(), id: task.id }));
        enqueue.spawnChild('swarmTask', { id: `${SWARM_TASK_PREFIX}${task.id}`, input: { deps: context.deps, task } });
      }
      // One action for the effects and `heartbeat.beat`, the last word of every beat.
      const { effects, beatEvent } = step;
      const { bus } = context.deps;
      enqueue(() => {
        for (const effect of senseEffects) effect();
        for (const effect of effects) effect();
        bus.emit('heartbeat.beat', beatEvent);
      });
    }),
    dormantBeat: enqueueActions(({ context, enqueue }) => run(enqueue, dormantBeat(context))),
    // The think's endings and its settling.
    thinkDone: enqueueActions(({ context, enqueue }, { result }: { result: ThinkResult }) =>
      run(enqueue, thinkDone(context, result)),
    ),
    thinkFailed: enqueueActions(({ context, enqueue }, { error }: { error: unknown }) =>
      run(enqueue, thinkFailed(context, error)),
    ),
    preemptThink: enqueueActions(({ context, enqueue }, { reason }: { reason: string }) =>
      run(enqueue, preemptThink(context, reason)),
    ),
    thinkStuck: enqueueActions(({ context, enqueue }) => run(enqueue, thinkStuck(context))),
    thinkSettled: assign(({ context }, { outcome }: { outcome: SettleOutcome }) => thinkSettled(context, outcome)),
    logSettleFailure: ({ context }, { error }: { error: unknown }) =>
      context.deps.log.error({ err: describeError(error) }, 'settling a think failed'),
    markBeatFailed: assign(({ context }) => ({ beat: { ...context.beat, failed: true } })),
    // Sleeping for the budget and waking.
    wakeForDueReason: ({ context }) => wakeForDueReason(context),
    wakeUp: ({ context }, { reason }: { reason: 'top_up' | 'manual' }) =>
      wakeUp(context.deps, context.refs.budget, reason),
    // Work that waited through the sleep (a message answered with an ack) starts at once.
    wakeForPendingWork: assign(({ context }) => ({ wakeRequested: hasPendingWork(context) })),
    fallAsleepAtBoot: ({ context }) => fallAsleepAtBoot(context),
    fallAsleepAfterBeat: ({ context }) => fallAsleepAfterBeat(context),
    fallAsleepAtHardStop: ({ context }) => fallAsleepAtHardStop(context),
    // Events from outside the beat.
    receiveMessage: enqueueActions(({ context, enqueue }, { message }: { message: PendingMessage }) =>
      run(enqueue, receiveMessage(context, message)),
    ),
    requestWake: assign({ wakeRequested: true }),
    requestPause: assign({ pauseRequested: true }),
    clearPauseRequest: assign({ pauseRequested: false }),
    checkpointAtBoundary: ({ context }, { phase }: { phase: 'sleep' | 'dormant' }) => {
      const { checkpoints } = context.deps;
      checkpoints.saveInBackground(snapshotCheckpoint(context, checkpoints.newId(), phase));
    },
    cancelTask: enqueueActions(({ context, enqueue, self }, { id, reason }: { id: string; reason: string }) => {
      const step = cancelTask(context, id, reason);
      if (step === null) return;
      const childId = `${SWARM_TASK_PREFIX}${id}`;
      // Stopping the child aborts its model or tool call in flight; a stopped child reports nothing back.
      if (self.getSnapshot().children[childId] !== undefined) enqueue.stopChild(childId);
      run(enqueue, step);
    }),
    ledgerFailed: enqueueActions(({ context, enqueue }, { reason }: { reason: string }) =>
      run(enqueue, ledgerFailed(context, reason)),
    ),
    ledgerProbed: enqueueActions(({ context, enqueue }, { ok }: { ok: boolean }) =>
      run(enqueue, ledgerProbed(context, ok)),
    ),
    applySeed: assign(({ context, spawn }, { seed }: { seed: HeartbeatSeed }) =>
      contextFromSeed(seed, context.deps, spawn),
    ),
    // Children: their endings, and stopping them.
    /** A domain actor that crashed restarts from its last good state; a failed task or probe is recorded. */
    superviseFailedChild: enqueueActions(({ context, enqueue }, { childId, ended }: ChildEnding) => {
      const outcome = childFailed(context, childId, ended);
      run(enqueue, outcome);
      if (outcome.restart === null) return;
      const { name, error } = outcome.restart;
      const { bus } = context.deps;
      enqueue(() => bus.emit('actor.crashed', { actor: name, error }));
      const restartFrom = lastGoodStateOf(name, context.refs[name].getSnapshot().context, context.lastGood);
      enqueue.stopChild(context.refs[name]);
      enqueue.assign(({ context: current, spawn }) => ({
        refs: { ...current.refs, [name]: spawnDomainActor(spawn, name, restartFrom) },
        lastGood: { ...current.lastGood, [name]: restartFrom },
        beat: { ...current.beat, failed: true },
      }));
      enqueue(() => bus.emit('actor.restarted', { actor: name, error }));
    }),
    recordChildDone: enqueueActions(({ context, enqueue }, { childId, ended }: ChildEnding) =>
      run(enqueue, childDone(context, childId, ended)),
    ),
    stopSwarmTasks: enqueueActions(({ enqueue, self }) => {
      for (const childId of Object.keys(self.getSnapshot().children)) {
        if (childId.startsWith(SWARM_TASK_PREFIX)) enqueue.stopChild(childId);
      }
    }),
    stopDomainActors: enqueueActions(({ context, enqueue }) => {
      for (const name of DOMAIN_ACTOR_NAMES) enqueue.stopChild(context.refs[name]);
    }),
  },
  guards: {
    hasPlan: ({ context }) => context.beat.plan !== null,
    probeLedger: ({ context }) => context.beat.probeLedger,
    ledgerUp: ({ context }) => !context.ledger.down,
    wakeRequested: ({ context }) => context.wakeRequested,
    pauseRequested: ({ context }) => context.pauseRequested,
    sleepAfterBeat: ({ context }) => sleepsAfterBeat(context),
    hardStopReached: ({ context }) => atHardStop(context),
    wakeDue: ({ context }) => wakeDue(context),
    roomToWake: ({ context }) => roomToWake(context),
    asleepAtBoot: ({ context }) => asleepAtBoot(context),
    wakeAtBoot: ({ context }) => wakeAtBoot(context),
  },
});
