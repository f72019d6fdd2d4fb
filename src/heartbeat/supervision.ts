/** Supervision helpers: which child crashed, and the state it restarts from. */
import { ActorStatesSchema, type ActorStates } from '../protocol/checkpoint-format.schema.js';
import { DOMAIN_ACTOR_NAMES, type DomainActorName, type DomainActorRefs } from './heartbeat.types.js';

/** Child ids of running swarm tasks start with this. */
export const SWARM_TASK_PREFIX = 'swarm:';

/** The child id of the write that probes a ledger that could not be written. */
export const LEDGER_PROBE_ID = 'ledger-probe';

/** The domain actor a child id names, or null for any other child. */
export function crashedActorName(childId: string): DomainActorName | null {
  return (DOMAIN_ACTOR_NAMES as readonly string[]).includes(childId) ? (childId as DomainActorName) : null;
}

/**
 * The state to restart a crashed actor from: the context it held when it failed (a transition actor keeps the
 * state before the failing event) if that still validates, else the state recorded at the end of the last good beat.
 */
export function lastGoodStateOf<N extends DomainActorName>(
  name: N,
  contextAtCrash: unknown,
  lastGood: ActorStates,
): ActorStates[N] {
  const parsed = ActorStatesSchema.shape[name].safeParse(contextAtCrash);
  return (parsed.success ? parsed.data : lastGood[name]) as ActorStates[N];
}

type Spawner = (src: DomainActorName, options: { id: string; systemId: string; input: never }) => unknown;

/** Spawns domain actor `name` from `state` (with XState's `spawn`), under its name as id and system id. */
export function spawnDomainActor<N extends DomainActorName>(
  spawn: unknown,
  name: N,
  state: ActorStates[N],
): DomainActorRefs[N] {
  return (spawn as Spawner)(name, { id: name, systemId: name, input: state as never }) as DomainActorRefs[N];
}

/** Spawns the five domain actors from their states. */
export function spawnDomainActors(spawn: unknown, states: ActorStates): DomainActorRefs {
  return {
    affect: spawnDomainActor(spawn, 'affect', states.affect),
    goals: spawnDomainActor(spawn, 'goals', states.goals),
    workingMemory: spawnDomainActor(spawn, 'workingMemory', states.workingMemory),
    swarms: spawnDomainActor(spawn, 'swarms', states.swarms),
    budget: spawnDomainActor(spawn, 'budget', states.budget),
  };
}
