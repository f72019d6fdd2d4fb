/** Supervision helpers: which child crashed, and the state it restarts from. */
import { ActorStatesSchema, type ActorStates } from '../protocol/checkpoint-format.schema.js';
import { DOMAIN_ACTOR_NAMES, type DomainActorName } from './heartbeat.types.js';

/** Child ids of running swarm tasks start with this. */
export const SWARM_TASK_PREFIX = 'swarm:';

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
