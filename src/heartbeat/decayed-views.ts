/**
 * Affect and working memory as they are now. Decay is a pure function of elapsed time, so instead of sending every
 * actor a decay event on every beat (work on the idle path), readers apply it when they look; the actors fold it
 * in whenever a real event reaches them, and a restore decays from the checkpoint's timestamps the same way.
 */
import { decayAffect } from '../actors/affect/affect.reducer.js';
import type { AffectState } from '../actors/affect/affect.schema.js';
import { decayWorkingMemory } from '../actors/working-memory/working-memory.reducer.js';
import type { WorkingMemoryState } from '../actors/working-memory/working-memory.schema.js';
import type { DomainActorRefs } from './heartbeat.types.js';

/** The affect state decayed to `now`. */
export function affectNow(refs: Pick<DomainActorRefs, 'affect'>, now: number): AffectState {
  return decayAffect(refs.affect.getSnapshot().context, now);
}

/** Working memory decayed to `now` (items whose salience reached zero are gone). */
export function workingMemoryNow(refs: Pick<DomainActorRefs, 'workingMemory'>, now: number): WorkingMemoryState {
  return decayWorkingMemory(refs.workingMemory.getSnapshot().context, now);
}
