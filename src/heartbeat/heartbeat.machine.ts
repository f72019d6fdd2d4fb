/** The heartbeat: an XState machine beating sense → think → integrate → sleep, dormant while the budget sleeps, supervising the domain actors. */
import { assign, enqueueActions, setup, spawnChild } from 'xstate';
import { affectLogic } from '../actors/affect/affect.actor.js';
import { budgetLogic } from '../actors/budget/budget.actor.js';
import { spendLevel } from '../actors/budget/budget.reducer.js';
import { goalsLogic } from '../actors/goals/goals.actor.js';
import { swarmsLogic } from '../actors/swarms/swarms.actor.js';
import { workingMemoryLogic } from '../actors/working-memory/working-memory.actor.js';
import { describeError } from '../errors.js';
import { sleepAfterBeat, wakeReason } from './budget-gate.js';
import { snapshotCheckpoint } from './checkpoint-snapshot.js';
import { backedOffIntervalMs } from './circuit-breaker.js';
import {
  dormantBeat,
  dormantDelayMs,
  fallAsleep,
  finishBeat,
  hasPendingWork,
  idleBeat,
  approvalWaits,
  persistTurn,
  prepareThink,
  sense,
  wakeUp,
  type BeatStep,
} from './heartbeat.actions.js';
import { DOMAIN_ACTOR_NAMES, type DomainActorRefs, type HeartbeatContext, type HeartbeatDeps, type HeartbeatEvent, type HeartbeatSeed } from './heartbeat.types.js';
import { ledgerProbeLogic, settleLogic, swarmTaskLogic, thinkLogic } from './phase-actors.js';
import { lastGoodStateOf, LEDGER_PROBE_ID, spawnDomainActors, SWARM_TASK_PREFIX } from './supervision.js';
import { asleepAtBoot, atHardStop, roomToWake, sleepsAfterBeat, wakeAtBoot, wakeDue } from './heartbeat.guards.js';
import { childDone, childFailed } from './child-outcomes.js';
import { cancelTask } from './task-cancel.js';
import { buildThinkInput } from './think-input.js';
import { answerableTurns, openTurn } from './turn-book.js';
import { preemptThink, thinkDone, thinkFailed, thinkSettled, thinkStuck } from './think-steps.js';

const ERROR_PREFIX = 'xstate.error.actor.';
const DONE_PREFIX = 'xstate.done.actor.';

/** A heartbeat event, typed where a wildcard handler's `enqueue` only knows the bare EventObject. */
const event$ = (event: HeartbeatEvent): HeartbeatEvent => event;

/** Runs a step's effects as one action, in order, after its patch is assigned (none at all on an idle beat). */
function runEffects(enqueue: (action: () => void) => void, step: BeatStep): void {
  const { effects } = step;
  if (effects.length === 0) return;
  enqueue(() => {
    for (const effect of effects) effect();
  });
}

/** Assigns a step's patch, runs its effects, then raises its events. */
function run(
  enqueue: { (action: () => void): void; assign(patch: Partial<HeartbeatContext>): void; raise(event: HeartbeatEvent): void },
  step: BeatStep & { raise?: HeartbeatEvent[] },
): void {
  enqueue.assign(step.patch);
  runEffects(enqueue, step);
  for (const event of step.raise ?? []) enqueue.raise(event);
}

/** The machine's input: its dependencies and the state to start from. */
export interface HeartbeatInput {
  deps: HeartbeatDeps;
  seed: HeartbeatSeed;
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
    /** Sense: plan the beat; with the ledger down, probe it in a child whose outcome comes back as an event. */
    // Sense plans in one assign and keeps its effects on the beat; every way out of sense runs them first (finishBeat
    // or prepareThink), so an idle beat, the machine's most frequent step, costs one assign and no extra action.
    sense: assign(({ context }) => sense(context)),
    spawnLedgerProbe: spawnChild('ledgerProbe', { id: LEDGER_PROBE_ID, input: ({ context }) => ({ deps: context.deps }) }),
    /** The think's notices and budget line, read as it begins. */
    prepareThink: enqueueActions(({ context, enqueue }) => {
      const step = prepareThink(context);
      enqueue.assign(step.patch);
      runEffects(enqueue, step);
    }),
    dormantBeat: enqueueActions(({ context, enqueue }) => {
      const step = dormantBeat(context);
      enqueue.assign(step.patch);
      runEffects(enqueue, step);
    }),
    /** Wakes for whatever is due: a new local day or a top-up. */
    wakeForDueReason: ({ context }) => {
      const budget = context.refs.budget;
      const reason = wakeReason(budget.getSnapshot().context, context.deps.options.budgetLimits, context.deps.clock.now());
      wakeUp(context.deps, budget, reason ?? 'manual');
    },
    fallAsleepAfterBeat: ({ context }) => {
      const decision = sleepAfterBeat(context.refs.budget.getSnapshot().context, context.deps.options.budgetLimits, {
        pendingWork: hasPendingWork(context),
      });
      fallAsleep(context.deps, context.refs.budget, decision?.reason ?? 'budget_wind_down');
    },
    checkpointAtBoundary: ({ context }, params: { phase: 'sleep' | 'dormant' }) => {
      const { checkpoints } = context.deps;
      checkpoints.saveInBackground(snapshotCheckpoint(context, checkpoints.newId(), params.phase));
    },
  },
  guards: {
    hasPlan: ({ context }) => context.beat.plan !== null,
    probeLedger: ({ context }) => context.beat.probeLedger,
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
  context: ({ input, spawn }) => ({
    deps: input.deps,
    refs: spawnDomainActors(spawn, input.seed.actors),
    lastGood: input.seed.actors,
    beatCount: input.seed.beatCount,
    intervalMs: input.seed.intervalMs,
    consecutiveFailures: input.seed.consecutiveFailures,
    lastUserActivityAt: input.seed.lastUserActivityAt,
    lastGoalWorkBeat: Number.NEGATIVE_INFINITY,
    startedAt: input.deps.clock.now(),
    restoredFrom: input.seed.restoredFrom,
    turns: input.seed.turns,
    beat: idleBeat(performance.now()),
    pauseRequested: false,
    // Turns replayed at boot (open at a crash) are thought about at once, not a beat interval later.
    wakeRequested: answerableTurns(input.seed.turns, approvalWaits(input.deps)).length > 0,
    deferred: null,
    thinkerPause: null,
    ledger: { down: false, since: 0, probing: false },
  }),
  initial: 'boot',
  on: {
    // A message opens its turn and wakes the heartbeat: the beat that thinks about it starts now.
    USER_MESSAGE: {
      actions: enqueueActions(({ context, event, enqueue }) => {
        const turns = openTurn(context.turns, event.message);
        enqueue.assign({ turns, lastUserActivityAt: event.message.at, wakeRequested: true });
        enqueue(() => persistTurn(context.deps, turns));
      }),
    },
    // A tool call was decided: the turn waiting on it is thought about now, like a new message.
    TOOL_DECIDED: { actions: assign({ wakeRequested: true }) },
    TASK_CANCEL: {
      actions: enqueueActions(({ context, event, enqueue, self }) => {
        const step = cancelTask(context, event.id, event.reason);
        if (step === null) return;
        const childId = `${SWARM_TASK_PREFIX}${event.id}`;
        // Stopping the child aborts its model or tool call in flight; a stopped child reports nothing back.
        if (self.getSnapshot().children[childId] !== undefined) enqueue.stopChild(childId);
        run(enqueue, step);
      }),
    },
    LEDGER_FAILED: {
      guard: ({ context }) => !context.ledger.down,
      actions: [
        ({ context, event }) => context.deps.bus.emit('budget.ledger_failed', { reason: event.reason }),
        assign(({ context }) => ({ ledger: { down: true, since: context.deps.clock.now(), probing: false } })),
      ],
    },
    LEDGER_PROBED: {
      actions: enqueueActions(({ context, event, enqueue }) => {
        if (!event.ok) {
          enqueue.assign({ ledger: { ...context.ledger, probing: false } });
          return;
        }
        if (context.ledger.down) {
          const downForMs = Math.max(0, context.deps.clock.now() - context.ledger.since);
          enqueue(() => context.deps.bus.emit('budget.ledger_recovered', { downForMs }));
        }
        enqueue.assign({ ledger: { down: false, since: 0, probing: false } });
      }),
    },
    // Supervision: a domain actor that crashed restarts from its last good state; a failed swarm task is recorded.
    'xstate.error.actor.*': {
      actions: enqueueActions(({ context: untypedContext, event, enqueue }) => {
        // XState types a wildcard event's context as any.
        const context = untypedContext as HeartbeatContext;
        const outcome = childFailed(context, event.type.slice(ERROR_PREFIX.length), (event as { error?: unknown }).error);
        for (const effect of outcome.effects) enqueue(effect);
        for (const raised of outcome.raise) enqueue.raise(event$(raised));
        if (outcome.restart === null) return;
        const { name, error } = outcome.restart;
        const { bus } = context.deps;
        enqueue(() => bus.emit('actor.crashed', { actor: name, error }));
        const restartFrom = lastGoodStateOf(name, context.refs[name].getSnapshot().context, context.lastGood);
        enqueue.stopChild(context.refs[name]);
        enqueue.assign(({ context: untypedCurrent, spawn }) => {
          const current = untypedCurrent as HeartbeatContext;
          const restarted: DomainActorRefs[typeof name] = spawn(name, { id: name, systemId: name, input: restartFrom });
          return {
            refs: { ...current.refs, [name]: restarted },
            lastGood: { ...current.lastGood, [name]: restartFrom },
            beat: { ...current.beat, failed: true },
          };
        });
        enqueue(() => bus.emit('actor.restarted', { actor: name, error }));
      }),
    },
    'xstate.done.actor.*': {
      actions: enqueueActions(({ context, event, enqueue }) => {
        const outcome = childDone(context as HeartbeatContext, event.type.slice(DONE_PREFIX.length), (event as { output?: unknown }).output);
        for (const effect of outcome.effects) enqueue(effect);
        for (const raised of outcome.raise) enqueue.raise(event$(raised));
      }),
    },
  },
  states: {
    // Decides, from the budget, whether the agent starts (or resumes) awake or asleep.
    boot: {
      always: [
        {
          guard: 'wakeAtBoot',
          target: 'running',
          actions: 'wakeForDueReason',
        },
        {
          guard: 'asleepAtBoot',
          target: 'dormant',
          actions: ({ context }) => {
            const budget = context.refs.budget.getSnapshot().context;
            const exceeded = budget.exceeded || spendLevel(budget, context.deps.options.budgetLimits) === 'exceeded';
            fallAsleep(context.deps, context.refs.budget, exceeded ? 'budget_exceeded' : 'budget_wind_down');
          },
        },
        { target: 'running' },
      ],
    },
    running: {
      // The first beat comes one interval after start, so a fresh or restored agent is observable as it was.
      initial: 'sleep',
      on: {
        PAUSE: { actions: assign({ pauseRequested: true }) },
        // Spend moved outside this beat's think (a task, a lower cap): at the hard stop, stop at once, think and all.
        BUDGET_CHECK: {
          guard: 'hardStopReached',
          target: 'dormant',
          actions: enqueueActions(({ context, enqueue, self }) => {
            for (const childId of Object.keys(self.getSnapshot().children)) {
              if (childId.startsWith(SWARM_TASK_PREFIX)) enqueue.stopChild(childId);
            }
            enqueue(() => context.refs.swarms.send({ type: 'swarm.requeue_running', at: context.deps.clock.now() }));
            enqueue(() => fallAsleep(context.deps, context.refs.budget, 'budget_exceeded'));
          }),
        },
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
            input: ({ context }) => ({
              deps: context.deps,
              preemptSignal: context.beat.preempt!.signal,
              review: context.beat.review,
              thinkInput: buildThinkInput({
                plan: context.beat.plan!,
                turnId: context.beat.turnId!,
                refs: context.refs,
                turns: context.turns,
                handledTurnIds: context.beat.handledTurnIds,
                identity: context.deps.identity,
                now: context.deps.clock.now(),
                notices: context.beat.notices,
                ...(context.beat.budgetLine === null ? {} : { budget: context.beat.budgetLine }),
                memory: context.deps.memory,
              }),
            }),
            onDone: { target: 'integrate', actions: enqueueActions(({ context, event, enqueue }) => run(enqueue, thinkDone(context, event.output))) },
            // Every ending goes through integrate, which settles the turns the think carried.
            onError: { target: 'integrate', actions: enqueueActions(({ context, event, enqueue }) => run(enqueue, thinkFailed(context, event.error))) },
          },
          on: {
            PREEMPT: { actions: enqueueActions(({ context, event, enqueue }) => run(enqueue, preemptThink(context, event.reason))) },
          },
          after: {
            stuckDelay: { target: 'integrate', actions: enqueueActions(({ context, enqueue }) => run(enqueue, thinkStuck(context))) },
          },
        },
        // Settling the think (only beats that thought get here): its actions, replies and the turns it carried.
        integrate: {
          invoke: {
            id: 'settle',
            src: 'settle',
            input: ({ context }) => ({
              deps: context.deps,
              refs: context.refs,
              closer: context.deps.closer,
              plan: context.beat.plan!,
              turnId: context.beat.turnId!,
              turns: context.turns,
              carried: context.beat.handledTurnIds,
              result: context.beat.result,
              failure: context.beat.failure,
            }),
            onDone: { target: 'finish', actions: assign(({ context, event }) => thinkSettled(context, event.output)) },
            onError: {
              target: 'finish',
              actions: [
                ({ context, event }) => context.deps.log.error({ err: describeError(event.error) }, 'settling a think failed'),
                assign(({ context }) => ({ beat: { ...context.beat, failed: true } })),
              ],
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
      on: {
        PAUSE: { target: '#heartbeat.paused' },
        CHECKPOINT_NOW: { actions: { type: 'checkpointAtBoundary', params: { phase: 'dormant' } } },
        WAKE_CHECK: {
          guard: 'roomToWake',
          target: 'running',
          actions: [
            ({ context, event }) => wakeUp(context.deps, context.refs.budget, event.reason),
            // Work that waited through the sleep (a message answered with an ack) starts at once.
            assign(({ context }) => ({ wakeRequested: hasPendingWork(context) })),
          ],
        },
      },
      states: {
        resting: { after: { dormantDelay: { target: 'beat' } } },
        beat: {
          entry: 'dormantBeat',
          always: [
            {
              guard: 'wakeDue',
              target: '#heartbeat.running',
              actions: 'wakeForDueReason',
            },
            { target: 'resting' },
          ],
        },
      },
    },
    paused: {
      entry: assign({ pauseRequested: false }),
      on: {
        // Back through boot: the (possibly restored) budget decides between awake and asleep.
        RESUME: { target: 'boot' },
        CHECKPOINT_NOW: { actions: { type: 'checkpointAtBoundary', params: { phase: 'sleep' } } },
        APPLY_SEED: {
          actions: enqueueActions(({ context, event, enqueue, self }) => {
            const { seed } = event;
            for (const childId of Object.keys(self.getSnapshot().children)) {
              if (childId.startsWith(SWARM_TASK_PREFIX)) enqueue.stopChild(childId);
            }
            for (const name of DOMAIN_ACTOR_NAMES) enqueue.stopChild(context.refs[name]);
            enqueue.assign(({ spawn }) => ({
              refs: spawnDomainActors(spawn, seed.actors),
              lastGood: seed.actors,
              beatCount: seed.beatCount,
              intervalMs: seed.intervalMs,
              consecutiveFailures: seed.consecutiveFailures,
              lastUserActivityAt: seed.lastUserActivityAt,
              lastGoalWorkBeat: Number.NEGATIVE_INFINITY,
              restoredFrom: seed.restoredFrom,
              turns: seed.turns,
              wakeRequested: answerableTurns(seed.turns, approvalWaits(context.deps)).length > 0,
            }));
          }),
        },
      },
    },
  },
});
