/** The heartbeat machine's context at start, and the part of it a seed (cold start or restored checkpoint) decides. */
import { approvalWaits, idleBeat } from './heartbeat.actions.js';
import type { HeartbeatContext, HeartbeatDeps, HeartbeatSeed } from './heartbeat.types.js';
import { spawnDomainActors } from './supervision.js';
import { answerableTurns } from './turn-book.js';

/** The machine's input: its dependencies and the state to start from. */
export interface HeartbeatInput {
  deps: HeartbeatDeps;
  seed: HeartbeatSeed;
}

/** The fields of the context a seed sets, at start and again when a checkpoint is applied. */
export type SeededContext = Pick<
  HeartbeatContext,
  | 'refs'
  | 'lastGood'
  | 'beatCount'
  | 'intervalMs'
  | 'consecutiveFailures'
  | 'lastUserActivityAt'
  | 'lastGoalWorkBeat'
  | 'restoredFrom'
  | 'turns'
  | 'wakeRequested'
>;

/** The context fields `seed` decides, its domain actors spawned (by XState's `spawn`) from their states. */
export function contextFromSeed(seed: HeartbeatSeed, deps: HeartbeatDeps, spawn: unknown): SeededContext {
  return {
    refs: spawnDomainActors(spawn, seed.actors),
    lastGood: seed.actors,
    beatCount: seed.beatCount,
    intervalMs: seed.intervalMs,
    consecutiveFailures: seed.consecutiveFailures,
    lastUserActivityAt: seed.lastUserActivityAt,
    lastGoalWorkBeat: Number.NEGATIVE_INFINITY,
    restoredFrom: seed.restoredFrom,
    turns: seed.turns,
    // Turns replayed at boot (open at a crash) are thought about at once, not a beat interval later.
    wakeRequested: answerableTurns(seed.turns, approvalWaits(deps)).length > 0,
  };
}

/** The context the machine starts with: the seed's part, an idle beat, nothing requested, the ledger up. */
export function initialContext({ deps, seed }: HeartbeatInput, spawn: unknown): HeartbeatContext {
  return {
    deps,
    ...contextFromSeed(seed, deps, spawn),
    startedAt: deps.clock.now(),
    beat: idleBeat(performance.now()),
    pauseRequested: false,
    deferred: null,
    thinkerPause: null,
    ledger: { down: false, since: 0, probing: false },
  };
}
