/**
 * Consolidation at the end of a think's settle: what the think asked to keep (`remember` with `keep`, or salient
 * enough) and what left working memory salient enough (evicted, or decayed away) go to long-term memory. A failed
 * write is logged and never fails the settle: the turns' endings matter more than one memory.
 */
import { describeError } from '../errors.js';
import type { MemorySource } from '../protocol/memory.schema.js';
import { itemsToConsolidate, seenItems, type SeenItem } from '../subsystems/memory/consolidation.js';
import type { KeepRequest } from '../subsystems/memory/long-term-memory.types.js';
import type { ThinkAction, ThinkReason } from '../subsystems/thinking/thinker.schema.js';
import type { DomainActorRefs, HeartbeatDeps } from './heartbeat.types.js';

/** Every working-memory item seen during a settle, with the state it was last seen in. */
export interface WorkingMemoryWatch {
  /** Reads working memory again (after each action: an item admitted and evicted within one think is seen too). */
  observe(): void;
  /** Each item seen, as last seen. */
  seen(): SeenItem[];
}

/** Starts watching working memory before a settle applies the think's actions. */
export function watchWorkingMemory(refs: Pick<DomainActorRefs, 'workingMemory'>): WorkingMemoryWatch {
  const byId = new Map<string, SeenItem>();
  const observe = () => {
    for (const seen of seenItems(refs.workingMemory.getSnapshot().context)) byId.set(seen.item.id, seen);
  };
  observe();
  return { observe, seen: () => [...byId.values()] };
}

/** Where a memory the model kept in a think of this kind comes from. */
export function keptSource(reason: ThinkReason): MemorySource {
  return reason === 'goal_work' || reason === 'swarm_results' ? 'task' : 'conversation';
}

/** Decays working memory to now, then keeps what the think asked to keep and what left working memory salient enough. */
export async function consolidateMemories(
  deps: HeartbeatDeps,
  refs: DomainActorRefs,
  watch: WorkingMemoryWatch,
  actions: readonly ThinkAction[],
  reason: ThinkReason,
): Promise<void> {
  const { memory, clock, log } = deps;
  if (memory === undefined) return;
  const at = clock.now();
  // Decay is otherwise applied lazily: sent now, items that decayed away leave the stored state and are judged here.
  refs.workingMemory.send({ type: 'memory.decay', at });
  const after = refs.workingMemory.getSnapshot().context;
  const requests: KeepRequest[] = [];
  for (const action of actions) {
    if (action.type !== 'remember' || action.keep !== true) continue;
    if (action.content.trim() === '') continue;
    requests.push({
      content: action.content,
      source: action.source ?? keptSource(reason),
      salience: action.salience,
      at,
    });
  }
  for (const { item, salience } of itemsToConsolidate(watch.seen(), after.items, memory.forgottenItemIds())) {
    if (item.content.trim() === '') continue;
    requests.push({ content: item.content, source: 'working_memory', salience, at, createdAt: item.createdAt });
  }
  // All queued at once, in order, on the store's own queue: a search made after this call waits for every one.
  await Promise.all(
    requests.map((request) =>
      memory.keep(request).catch((err: unknown) => {
        log.error(
          { err: describeError(err), source: request.source },
          'a long-term memory could not be written; it is not kept',
        );
      }),
    ),
  );
}
