/** The heartbeat: an XState machine beating sense → think → integrate → sleep and supervising the domain actors. */
import { assign, enqueueActions, setup } from 'xstate';
import { affectLogic } from '../actors/affect/affect.actor.js';
import { goalsLogic } from '../actors/goals/goals.actor.js';
import { startableTasks } from '../actors/swarms/swarms.reducer.js';
import { swarmsLogic } from '../actors/swarms/swarms.actor.js';
import { workingMemoryLogic } from '../actors/working-memory/working-memory.actor.js';
import { describeError } from '../errors.js';
import type { SwarmTaskOutput } from '../subsystems/thinking/thinker.schema.js';
import { adaptiveIntervalMs } from './adaptive-interval.js';
import { planBeat } from './beat-plan.js';
import { readActorStates, snapshotCheckpoint } from './checkpoint-snapshot.js';
import { backedOffIntervalMs, CIRCUIT_FAILURE_THRESHOLD } from './circuit-breaker.js';
import type { HeartbeatContext, HeartbeatDeps, HeartbeatEvent, HeartbeatSeed } from './heartbeat.types.js';
import { applyLogic, swarmTaskLogic, thinkLogic } from './phase-actors.js';
import { crashedActorName, lastGoodStateOf, SWARM_TASK_PREFIX } from './supervision.js';
import { buildThinkInput } from './think-input.js';

const ERROR_PREFIX = 'xstate.error.actor.';
const DONE_PREFIX = 'xstate.done.actor.';

/** The machine's input: its dependencies and the state to start from. */
export interface HeartbeatInput {
  deps: HeartbeatDeps;
  seed: HeartbeatSeed;
}

const idleBeat = (startedAtPerf: number): HeartbeatContext['beat'] => ({
  startedAtPerf,
  senseMs: 0,
  thinkMs: 0,
  integrateMs: 0,
  failed: false,
  plan: null,
  turnId: null,
  result: null,
});

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
    think: thinkLogic,
    apply: applyLogic,
    swarmTask: swarmTaskLogic,
  },
  delays: {
    beatDelay: ({ context }) => backedOffIntervalMs(context.intervalMs, context.consecutiveFailures),
  },
  actions: {
    checkpointAtBoundary: ({ context }) => {
      const { checkpoints } = context.deps;
      checkpoints.saveInBackground(snapshotCheckpoint(context, checkpoints.newId(), 'sleep'));
    },
  },
  guards: {
    hasPlan: ({ context }) => context.beat.plan !== null,
    hasResult: ({ context }) => context.beat.result !== null,
    pauseRequested: ({ context }) => context.pauseRequested,
  },
}).createMachine({
  id: 'heartbeat',
  context: ({ input, spawn }) => ({
    deps: input.deps,
    refs: {
      affect: spawn('affect', { id: 'affect', systemId: 'affect', input: input.seed.actors.affect }),
      goals: spawn('goals', { id: 'goals', systemId: 'goals', input: input.seed.actors.goals }),
      workingMemory: spawn('workingMemory', {
        id: 'workingMemory',
        systemId: 'workingMemory',
        input: input.seed.actors.workingMemory,
      }),
      swarms: spawn('swarms', { id: 'swarms', systemId: 'swarms', input: input.seed.actors.swarms }),
    },
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
  }),
  initial: 'running',
  on: {
    USER_MESSAGE: {
      actions: assign(({ context, event }) => ({
        turns: {
          pending: [...context.turns.pending, event.message],
          unreadReplies: 0,
          lastMessageAt: event.message.at,
        },
        lastUserActivityAt: event.message.at,
      })),
    },
    // Supervision: a domain actor that crashed restarts from its last good state; a failed swarm task is recorded.
    'xstate.error.actor.*': {
      actions: enqueueActions(({ context, event, enqueue }) => {
        const childId = event.type.slice(ERROR_PREFIX.length);
        const error = describeError((event as { error?: unknown }).error);
        const { bus, clock } = context.deps;
        if (childId.startsWith(SWARM_TASK_PREFIX)) {
          const taskId = childId.slice(SWARM_TASK_PREFIX.length);
          context.refs.swarms.send({ type: 'swarm.failed', at: clock.now(), id: taskId, error });
          bus.emit('swarm.task_finished', { taskId, status: 'failed' });
          return;
        }
        const name = crashedActorName(childId);
        if (name === null) return;
        bus.emit('actor.crashed', { actor: name, error });
        const restartFrom = lastGoodStateOf(name, context.refs[name].getSnapshot().context, context.lastGood);
        enqueue.stopChild(context.refs[name]);
        enqueue.assign(({ context: current, spawn }) => ({
          refs: { ...current.refs, [name]: spawn(name, { id: name, systemId: name, input: restartFrom }) },
          lastGood: { ...current.lastGood, [name]: restartFrom },
          beat: { ...current.beat, failed: true },
        }));
        enqueue(() => {
          bus.emit('actor.restarted', { actor: name, error });
        });
      }),
    },
    'xstate.done.actor.*': {
      actions: ({ context, event }: { context: HeartbeatContext; event: { type: string } }) => {
        const childId = event.type.slice(DONE_PREFIX.length);
        if (!childId.startsWith(SWARM_TASK_PREFIX)) return;
        const taskId = childId.slice(SWARM_TASK_PREFIX.length);
        const output = (event as { output?: SwarmTaskOutput }).output;
        const at = context.deps.clock.now();
        context.refs.swarms.send({ type: 'swarm.succeeded', at, id: taskId, result: output?.text ?? '' });
        context.deps.bus.emit('swarm.task_finished', { taskId, status: 'done' });
      },
    },
  },
  states: {
    running: {
      // The first beat comes one interval after start, so a fresh or restored agent is observable as it was.
      initial: 'sleep',
      on: {
        PAUSE: { actions: assign({ pauseRequested: true }) },
      },
      states: {
        sense: {
          entry: assign(({ context }) => {
            const startedAtPerf = performance.now();
            const { clock, ids, options } = context.deps;
            const now = clock.now();
            const beatCount = context.beatCount + 1;
            // Decay is by elapsed time, so one event per beat keeps affect and memory current.
            context.refs.affect.send({ type: 'affect.decay', at: now });
            context.refs.workingMemory.send({ type: 'memory.decay', at: now });
            const plan = planBeat({
              now,
              beatCount,
              pending: context.turns.pending,
              goals: context.refs.goals.getSnapshot().context,
              swarms: context.refs.swarms.getSnapshot().context,
              lastGoalWorkBeat: context.lastGoalWorkBeat,
              goalWorkEveryBeats: options.goalWorkEveryBeats,
            });
            const beat = idleBeat(startedAtPerf);
            beat.plan = plan;
            beat.turnId = plan === null ? null : (plan.turnId ?? `auto-${ids.next()}`);
            beat.senseMs = performance.now() - startedAtPerf;
            return {
              beatCount,
              beat,
              lastGoalWorkBeat: plan?.reason === 'goal_work' ? beatCount : context.lastGoalWorkBeat,
            };
          }),
          always: [{ guard: 'hasPlan', target: 'think' }, { target: 'integrate' }],
        },
        think: {
          invoke: {
            id: 'think',
            src: 'think',
            input: ({ context }) => ({
              deps: context.deps,
              thinkInput: buildThinkInput({
                plan: context.beat.plan!,
                turnId: context.beat.turnId!,
                refs: context.refs,
                turns: context.turns,
                identity: context.deps.identity,
                now: context.deps.clock.now(),
              }),
            }),
            onDone: {
              target: 'integrate',
              actions: assign(({ context, event }) => ({
                beat: { ...context.beat, result: event.output, thinkMs: phaseElapsed(context) },
              })),
            },
            onError: {
              target: 'integrate',
              actions: [
                ({ context, event }) => {
                  const reason = describeError(event.error);
                  const code = (event.error as { code?: unknown }).code;
                  context.deps.bus.emit('think.failed', { reason, code: typeof code === 'string' ? code : 'THINK_FAILED' });
                },
                assign(({ context }) => ({ beat: { ...context.beat, failed: true, thinkMs: phaseElapsed(context) } })),
              ],
            },
          },
        },
        integrate: {
          initial: 'route',
          states: {
            route: { always: [{ guard: 'hasResult', target: 'applying' }, { target: 'done' }] },
            applying: {
              invoke: {
                id: 'apply',
                src: 'apply',
                input: ({ context }) => ({
                  deps: context.deps,
                  refs: context.refs,
                  plan: context.beat.plan!,
                  turnId: context.beat.turnId!,
                  result: context.beat.result!,
                }),
                onDone: {
                  target: 'done',
                  actions: assign(({ context, event }) => {
                    const answered = new Set(event.output.answeredTurnIds);
                    return {
                      turns: {
                        ...context.turns,
                        pending: context.turns.pending.filter((message) => !answered.has(message.turnId)),
                        unreadReplies: context.turns.unreadReplies + event.output.replies,
                      },
                    };
                  }),
                },
                onError: {
                  target: 'done',
                  actions: [
                    ({ context, event }) =>
                      context.deps.log.error({ err: describeError(event.error) }, 'applying a think result failed'),
                    assign(({ context }) => ({ beat: { ...context.beat, failed: true } })),
                  ],
                },
              },
            },
            done: { type: 'final' },
          },
          onDone: {
            target: 'sleep',
            actions: enqueueActions(({ context, enqueue }) => {
              const { deps } = context;
              const now = deps.clock.now();
              const failed = context.beat.failed;
              const consecutiveFailures = failed ? context.consecutiveFailures + 1 : 0;
              if (failed && consecutiveFailures === CIRCUIT_FAILURE_THRESHOLD) {
                deps.bus.emit('heartbeat.circuit_open', { consecutiveFailures, intervalMs: context.intervalMs });
              } else if (!failed && context.consecutiveFailures >= CIRCUIT_FAILURE_THRESHOLD) {
                deps.bus.emit('heartbeat.circuit_closed', { afterFailures: context.consecutiveFailures });
              }
              // Start queued sub-agent tasks up to the concurrency limit.
              for (const task of startableTasks(context.refs.swarms.getSnapshot().context)) {
                context.refs.swarms.send({ type: 'swarm.started', at: now, id: task.id });
                enqueue.spawnChild('swarmTask', {
                  id: `${SWARM_TASK_PREFIX}${task.id}`,
                  input: { deps, taskId: task.id, prompt: task.prompt },
                });
              }
              const intervalMs = adaptiveIntervalMs({
                baseMs: deps.options.beatMs,
                minMs: deps.options.beatMinMs,
                maxMs: deps.options.beatMaxMs,
                now,
                lastUserActivityAt: context.lastUserActivityAt,
                idleSince: context.startedAt,
                arousal: context.refs.affect.getSnapshot().context.dimensions.arousal,
              });
              const lastGood = failed ? context.lastGood : readActorStates(context.refs);
              const integrateMs = phaseElapsed(context);
              const next = { ...context, consecutiveFailures, intervalMs, lastGood };
              if (deps.checkpoints.isDue(context.beatCount)) {
                deps.checkpoints.saveInBackground(snapshotCheckpoint(next, deps.checkpoints.newId(), 'integrate'));
              }
              enqueue.assign({ consecutiveFailures, intervalMs, lastGood, beat: { ...context.beat, integrateMs } });
              deps.bus.emit('heartbeat.beat', {
                beatCount: context.beatCount,
                intervalMs: backedOffIntervalMs(intervalMs, consecutiveFailures),
                phaseMs: { sense: context.beat.senseMs, think: context.beat.thinkMs, integrate: integrateMs },
              });
            }),
          },
        },
        sleep: {
          always: { guard: 'pauseRequested', target: '#heartbeat.paused' },
          after: { beatDelay: { target: 'sense' } },
          on: {
            PAUSE: { target: '#heartbeat.paused' },
            CHECKPOINT_NOW: { actions: 'checkpointAtBoundary' },
          },
        },
      },
    },
    paused: {
      entry: [assign({ pauseRequested: false }), ({ context }) => context.deps.onPaused()],
      on: {
        PAUSE: { actions: ({ context }) => context.deps.onPaused() },
        RESUME: { target: '#heartbeat.running.sleep' },
        CHECKPOINT_NOW: { actions: 'checkpointAtBoundary' },
        APPLY_SEED: {
          actions: enqueueActions(({ context, event, enqueue, self }) => {
            const { seed } = event;
            for (const childId of Object.keys(self.getSnapshot().children)) {
              if (childId.startsWith(SWARM_TASK_PREFIX)) enqueue.stopChild(childId);
            }
            for (const ref of Object.values(context.refs)) enqueue.stopChild(ref);
            enqueue.assign(({ spawn }) => ({
              refs: {
                affect: spawn('affect', { id: 'affect', systemId: 'affect', input: seed.actors.affect }),
                goals: spawn('goals', { id: 'goals', systemId: 'goals', input: seed.actors.goals }),
                workingMemory: spawn('workingMemory', {
                  id: 'workingMemory',
                  systemId: 'workingMemory',
                  input: seed.actors.workingMemory,
                }),
                swarms: spawn('swarms', { id: 'swarms', systemId: 'swarms', input: seed.actors.swarms }),
              },
              lastGood: seed.actors,
              beatCount: seed.beatCount,
              intervalMs: seed.intervalMs,
              consecutiveFailures: seed.consecutiveFailures,
              lastUserActivityAt: seed.lastUserActivityAt,
              lastGoalWorkBeat: Number.NEGATIVE_INFINITY,
              restoredFrom: seed.restoredFrom,
              turns: seed.turns,
            }));
          }),
        },
      },
    },
  },
});

/** Milliseconds of the beat in progress not yet attributed to an earlier phase. */
function phaseElapsed(context: HeartbeatContext): number {
  const { beat } = context;
  return Math.max(0, performance.now() - beat.startedAtPerf - beat.senseMs - beat.thinkMs);
}
