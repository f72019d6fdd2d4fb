/** The heartbeat: an XState machine beating sense → think → integrate → sleep, dormant while the budget sleeps, supervising the domain actors. */
import { assign, enqueueActions, setup, spawnChild, type DoneActorEvent, type ErrorActorEvent } from 'xstate';
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
import { contextFromSeed, initialContext, type HeartbeatInput } from './heartbeat.context.js';
import { asleepAtBoot, atHardStop, roomToWake, sleepsAfterBeat, wakeAtBoot, wakeDue } from './heartbeat.guards.js';
import { DOMAIN_ACTOR_NAMES, type HeartbeatContext, type HeartbeatEvent, type HeartbeatSeed } from './heartbeat.types.js';
import { ledgerProbeLogic, settleLogic, swarmTaskLogic, thinkLogic } from './phase-actors.js';
import { settleActorInput, thinkActorInput } from './phase-inputs.js';
import type { SettleOutcome } from './settle-think.js';
import { lastGoodStateOf, LEDGER_PROBE_ID, spawnDomainActor, SWARM_TASK_PREFIX } from './supervision.js';
import { cancelTask } from './task-cancel.js';
import { preemptThink, thinkDone, thinkFailed, thinkSettled, thinkStuck } from './think-steps.js';

export type { HeartbeatInput };

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
interface ChildEnding {
  childId: string;
  ended: unknown;
}

/** The heartbeat machine; create it with `createActor(heartbeatMachine, { input, clock })`. */
export const heartbeatMachine = setup({
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
    spawnLedgerProbe: spawnChild('ledgerProbe', { id: LEDGER_PROBE_ID, input: ({ context }) => ({ deps: context.deps }) }),
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
    thinkDone: enqueueActions(({ context, enqueue }, { result }: { result: ThinkResult }) => run(enqueue, thinkDone(context, result))),
    thinkFailed: enqueueActions(({ context, enqueue }, { error }: { error: unknown }) => run(enqueue, thinkFailed(context, error))),
    preemptThink: enqueueActions(({ context, enqueue }, { reason }: { reason: string }) => run(enqueue, preemptThink(context, reason))),
    thinkStuck: enqueueActions(({ context, enqueue }) => run(enqueue, thinkStuck(context))),
    thinkSettled: assign(({ context }, { outcome }: { outcome: SettleOutcome }) => thinkSettled(context, outcome)),
    logSettleFailure: ({ context }, { error }: { error: unknown }) => context.deps.log.error({ err: describeError(error) }, 'settling a think failed'),
    markBeatFailed: assign(({ context }) => ({ beat: { ...context.beat, failed: true } })),
    // Sleeping for the budget and waking.
    wakeForDueReason: ({ context }) => wakeForDueReason(context),
    wakeUp: ({ context }, { reason }: { reason: 'top_up' | 'manual' }) => wakeUp(context.deps, context.refs.budget, reason),
    // Work that waited through the sleep (a message answered with an ack) starts at once.
    wakeForPendingWork: assign(({ context }) => ({ wakeRequested: hasPendingWork(context) })),
    fallAsleepAtBoot: ({ context }) => fallAsleepAtBoot(context),
    fallAsleepAfterBeat: ({ context }) => fallAsleepAfterBeat(context),
    fallAsleepAtHardStop: ({ context }) => fallAsleepAtHardStop(context),
    // Events from outside the beat.
    receiveMessage: enqueueActions(({ context, enqueue }, { message }: { message: PendingMessage }) => run(enqueue, receiveMessage(context, message))),
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
    ledgerFailed: enqueueActions(({ context, enqueue }, { reason }: { reason: string }) => run(enqueue, ledgerFailed(context, reason))),
    ledgerProbed: enqueueActions(({ context, enqueue }, { ok }: { ok: boolean }) => run(enqueue, ledgerProbed(context, ok))),
    applySeed: assign(({ context, spawn }, { seed }: { seed: HeartbeatSeed }) => contextFromSeed(seed, context.deps, spawn)),
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
    recordChildDone: enqueueActions(({ context, enqueue }, { childId, ended }: ChildEnding) => run(enqueue, childDone(context, childId, ended))),
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
}).createMachine({
  id: 'heartbeat',
  context: ({ input, spawn }) => initialContext(input, spawn),
  initial: 'boot',
  on: {
    USER_MESSAGE: { actions: { type: 'receiveMessage', params: ({ event }) => ({ message: event.message }) } },
    // A tool call was decided: the turn waiting on it is thought about now, like a new message.
    TOOL_DECIDED: { actions: 'requestWake' },
    TASK_CANCEL: { actions: { type: 'cancelTask', params: ({ event }) => ({ id: event.id, reason: event.reason }) } },
    LEDGER_FAILED: { guard: 'ledgerUp', actions: { type: 'ledgerFailed', params: ({ event }) => ({ reason: event.reason }) } },
    LEDGER_PROBED: { actions: { type: 'ledgerProbed', params: ({ event }) => ({ ok: event.ok }) } },
    // Supervision: a child's ending names it (`actorId`); the think and settle endings are taken by their states first.
    'xstate.error.actor.*': {
      actions: { type: 'superviseFailedChild', params: ({ event }: { event: ErrorActorEvent }) => ({ childId: event.actorId, ended: event.error }) },
    },
    'xstate.done.actor.*': {
      actions: { type: 'recordChildDone', params: ({ event }: { event: DoneActorEvent }) => ({ childId: event.actorId, ended: event.output }) },
    },
  },
  states: {
    // Decides, from the budget, whether the agent starts (or resumes) awake or asleep.
    boot: {
      always: [
        { guard: 'wakeAtBoot', target: 'running', actions: 'wakeForDueReason' },
        { guard: 'asleepAtBoot', target: 'dormant', actions: 'fallAsleepAtBoot' },
        { target: 'running' },
      ],
    },
    running: {
      // The first beat comes one interval after start, so a fresh or restored agent is observable as it was.
      initial: 'sleep',
      on: {
        PAUSE: { actions: 'requestPause' },
        // Spend moved outside this beat's think (a task, a lower cap): at the hard stop, stop at once, think and all.
        BUDGET_CHECK: { guard: 'hardStopReached', target: 'dormant', actions: ['stopSwarmTasks', 'fallAsleepAtHardStop'] },
      },
      states: {
        sense: {
          entry: 'sense',
          // An idle beat ends right here, in the same step: the cheapest path through the machine.
          always: [
            { guard: 'hasPlan', target: 'think' },
            { guard: 'sleepAfterBeat', target: '#heartbeat.dormant', actions: ['finishBeat', 'fallAsleepAfterBeat'] },
            // With the ledger down nothing thinks; one small write per beat (at most one in flight) tries it.
            { guard: 'probeLedger', target: 'sleep', actions: ['spawnLedgerProbe', 'finishBeat'] },
            { target: 'sleep', actions: 'finishBeat' },
          ],
        },
        think: {
          entry: 'prepareThink',
          invoke: {
            id: 'think',
            src: 'think',
            input: ({ context }) => thinkActorInput(context),
            onDone: { target: 'integrate', actions: { type: 'thinkDone', params: ({ event }) => ({ result: event.output }) } },
            // Every ending goes through integrate, which settles the turns the think carried.
            onError: { target: 'integrate', actions: { type: 'thinkFailed', params: ({ event }) => ({ error: event.error }) } },
          },
          on: {
            PREEMPT: { actions: { type: 'preemptThink', params: ({ event }) => ({ reason: event.reason }) } },
          },
          after: {
            stuckDelay: { target: 'integrate', actions: 'thinkStuck' },
          },
        },
        // Settling the think (only beats that thought get here): its actions, replies and the turns it carried.
        integrate: {
          invoke: {
            id: 'settle',
            src: 'settle',
            input: ({ context }) => settleActorInput(context),
            onDone: { target: 'finish', actions: { type: 'thinkSettled', params: ({ event }) => ({ outcome: event.output }) } },
            onError: {
              target: 'finish',
              actions: [{ type: 'logSettleFailure', params: ({ event }) => ({ error: event.error }) }, 'markBeatFailed'],
            },
          },
        },
        // The end of a beat that thought (or tried to): finish it, then sleep or, for the budget, go dormant.
        finish: {
          always: [
            { guard: 'sleepAfterBeat', target: '#heartbeat.dormant', actions: ['finishBeat', 'fallAsleepAfterBeat'] },
            { target: 'sleep', actions: 'finishBeat' },
          ],
        },
        sleep: {
          always: [
            { guard: 'pauseRequested', target: '#heartbeat.paused' },
            // A message arrived: think about it now, whatever the interval.
            { guard: 'wakeRequested', target: 'sense' },
          ],
          after: { beatDelay: { target: 'sense' } },
          on: {
            PAUSE: { target: '#heartbeat.paused' },
            CHECKPOINT_NOW: { actions: { type: 'checkpointAtBoundary', params: { phase: 'sleep' } } },
          },
        },
      },
    },
    // Asleep for the budget: beats slow to the longest interval (never past midnight), nothing thinks; events and RPC go on.
    dormant: {
      initial: 'resting',
      // A pause asked for during the beat that fell asleep is taken here, at its boundary, like one from sleep.
      always: { guard: 'pauseRequested', target: 'paused' },
      on: {
        PAUSE: { target: '#heartbeat.paused' },
        CHECKPOINT_NOW: { actions: { type: 'checkpointAtBoundary', params: { phase: 'dormant' } } },
        WAKE_CHECK: {
          guard: 'roomToWake',
          target: 'running',
          actions: [{ type: 'wakeUp', params: ({ event }) => ({ reason: event.reason }) }, 'wakeForPendingWork'],
        },
      },
      states: {
        resting: { after: { dormantDelay: { target: 'beat' } } },
        beat: {
          entry: 'dormantBeat',
          always: [{ guard: 'wakeDue', target: '#heartbeat.running', actions: 'wakeForDueReason' }, { target: 'resting' }],
        },
      },
    },
    paused: {
      entry: 'clearPauseRequest',
      on: {
        // Back through boot: the (possibly restored) budget decides between awake and asleep.
        RESUME: { target: 'boot' },
        CHECKPOINT_NOW: { actions: { type: 'checkpointAtBoundary', params: { phase: 'sleep' } } },
        // A restore: the running tasks and the domain actors stop, and the seed's actors start in their place.
        APPLY_SEED: { actions: ['stopSwarmTasks', 'stopDomainActors', { type: 'applySeed', params: ({ event }) => ({ seed: event.seed }) }] },
      },
    },
  },
});
