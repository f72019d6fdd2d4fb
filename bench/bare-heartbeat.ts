/** The idle-beat limit: a bare XState v5 heartbeat (sense → think → integrate → sleep) with five reducer children, nothing else. */
import { assign, createActor, fromTransition, setup, type ActorRefFrom } from 'xstate';
import type { Clock } from '../src/shared/clock.js';

interface ChildState {
  count: number;
  at: number;
}

type ChildEvent = { type: 'tick'; at: number };

/** A minimal reducer actor, the shape of Vigil's domain actors. */
const childLogic = fromTransition(
  (state: ChildState, event: ChildEvent): ChildState =>
    event.type === 'tick' ? { count: state.count + 1, at: event.at } : state,
  ({ input }: { input: ChildState }) => input,
);

const CHILD_COUNT = 5;

/** The bare machine: sense sends one small event to each child, think and integrate pass on, sleep waits 1000 ms. */
export function bareHeartbeatMachine(clock: Clock) {
  return setup({
    types: {
      context: {} as { children: Array<ActorRefFrom<typeof childLogic>>; beatCount: number },
    },
    actors: { child: childLogic },
  }).createMachine({
    id: 'bare',
    context: ({ spawn }) => ({
      children: Array.from({ length: CHILD_COUNT }, (_, i) =>
        spawn('child', { id: `child-${i}`, input: { count: 0, at: 0 } }),
      ),
      beatCount: 0,
    }),
    initial: 'sleep',
    states: {
      sense: {
        entry: [
          assign({ beatCount: ({ context }) => context.beatCount + 1 }),
          ({ context }) => {
            const at = clock.now();
            for (const child of context.children) child.send({ type: 'tick', at });
          },
        ],
        always: 'think',
      },
      think: { always: 'integrate' },
      integrate: { always: 'sleep' },
      sleep: { after: { 1000: 'sense' } },
    },
  });
}

/** Starts the bare heartbeat on `clock`; read `beatCount` and the children's tick counts to check it really beat. */
export function startBareHeartbeat(clock: Clock) {
  const actor = createActor(bareHeartbeatMachine(clock), { clock });
  actor.start();
  return {
    beatCount: (): number => actor.getSnapshot().context.beatCount,
    childTicks: (): number[] => actor.getSnapshot().context.children.map((child) => child.getSnapshot().context.count),
    stop: (): void => {
      actor.stop();
    },
  };
}
