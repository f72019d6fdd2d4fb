/** The facade's long-term memory area: `memory.search` and `memory.forget`. */
import type { MemoryForgetResult, MemorySearchHit, MemorySearchParams } from '../../protocol/memory.schema.js';
import { normaliseMemoryText } from '../../subsystems/memory/memory-text.js';
import { iso, type RuntimeCore } from '../runtime-core.js';

/** Hits `memory.search` answers with when no limit is given. */
export const DEFAULT_MEMORY_SEARCH_LIMIT = 10;

/** `memory.search`: the best matches for `query`, best first. */
export async function searchMemory(core: RuntimeCore, params: MemorySearchParams): Promise<MemorySearchHit[]> {
  const hits = await core.parts.memory.search(params.query, params.limit ?? DEFAULT_MEMORY_SEARCH_LIMIT);
  return hits.map(({ memory, score }) => ({
    id: memory.id,
    content: memory.content,
    score,
    createdAt: iso(memory.createdAt),
    source: memory.source,
    updatedAt: iso(memory.updatedAt),
    salience: memory.salience,
    ...(memory.recalledAt === undefined ? {} : { recalledAt: iso(memory.recalledAt) }),
  }));
}

/**
 * `memory.forget`: deletes the memory from the store (synced) and the index; MEMORY_NOT_FOUND for an unknown id. The
 * same fact still held in working memory is dropped too, so it is in no later prompt and is not consolidated again.
 */
export async function forgetMemory(core: RuntimeCore, id: string): Promise<MemoryForgetResult> {
  core.assertRunning();
  const forgotten = await core.parts.memory.forget(id);
  const { refs } = core.context();
  const fact = normaliseMemoryText(forgotten.content);
  const at = core.parts.clock.now();
  const held = refs.workingMemory
    .getSnapshot()
    .context.items.filter((item) => normaliseMemoryText(item.content) === fact);
  // Noted first: a think settling meanwhile must not take the dropped item for one that left and keep it again.
  core.parts.memory.noteForgottenItems(held.map((item) => item.id));
  for (const item of held) refs.workingMemory.send({ type: 'memory.remove', at, id: item.id });
  core.parts.log.info({ memoryId: forgotten.id }, 'long-term memory forgotten');
  return { forgotten: forgotten.id };
}
