/** The facade's mind area: working memory (`memory.list`), affect (`affect.get`) and every actor's state. */
import { emotionLabel } from '../../actors/affect/affect.reducer.js';
import { readActorStates } from '../../heartbeat/checkpoint-snapshot.js';
import { affectNow, workingMemoryNow } from '../../heartbeat/decayed-views.js';
import type { ActorStates } from '../../protocol/checkpoint-format.schema.js';
import type { AffectView, MemoryItemView } from '../../protocol/agent.schema.js';
import { iso, type RuntimeCore } from '../runtime-core.js';

/** `memory.list`: working-memory items, most salient first. */
export function listMemory(core: RuntimeCore): MemoryItemView[] {
  const { items } = workingMemoryNow(core.context().refs, core.parts.clock.now());
  return [...items]
    .sort((a, b) => b.salience - a.salience)
    .map((item) => ({ id: item.id, content: item.content, salience: item.salience, createdAt: iso(item.createdAt) }));
}

/** `affect.get`: dimensions, emotion label and baseline. */
export function getAffect(core: RuntimeCore): AffectView {
  const { dimensions, baseline } = affectNow(core.context().refs, core.parts.clock.now());
  return { ...dimensions, emotion: emotionLabel(dimensions), baseline };
}

/** Every actor's state now (for tests and export). */
export function actorStates(core: RuntimeCore): ActorStates {
  return readActorStates(core.context().refs);
}
