/** The working-memory reducer: salience-gated admission into a few slots, attention, and linear time decay. */
import type { MemoryItem, WorkingMemoryEvent, WorkingMemoryState } from './working-memory.schema.js';

/** Slots when none is given (Miller's seven). */
export const DEFAULT_WORKING_MEMORY_CAPACITY = 7;

/** Salience lost per minute without attention. */
export const SALIENCE_DECAY_PER_MINUTE = 0.02;

/** Salience added by `memory.attend` when the event gives no boost. */
export const DEFAULT_ATTENTION_BOOST = 0.2;

const DECAY_PER_MS = SALIENCE_DECAY_PER_MINUTE / 60_000;

/** An item offered for admission. */
export type MemoryOffer = Extract<WorkingMemoryEvent, { type: 'memory.admit' }>['item'];

/** What an admission did: the next state, whether the item is now held, and which item it pushed out. */
export interface AdmissionOutcome {
  state: WorkingMemoryState;
  admitted: boolean;
  evictedId: string | null;
}

/** An empty working memory at `at` with `capacity` slots. */
export function initialWorkingMemoryState(at: number, capacity = DEFAULT_WORKING_MEMORY_CAPACITY): WorkingMemoryState {
  return { capacity, items: [], updatedAt: at };
}

/** Decays every item's salience by the time elapsed up to `at` and drops items that reach 0; also used on restore. */
export function decayWorkingMemory(state: WorkingMemoryState, at: number): WorkingMemoryState {
  const elapsed = at - state.updatedAt;
  // An event from the past changes nothing: updatedAt never goes back.
  if (!(elapsed > 0)) return state;
  const loss = elapsed * DECAY_PER_MS;
  const items = state.items
    .map((item) => ({ ...item, salience: Math.max(0, item.salience - loss) }))
    .filter((item) => item.salience > 0);
  return { ...state, items, updatedAt: at };
}

/** The item that goes first when memory is full: least salient, then least recently attended, then oldest slot. */
export function leastSalientItem(items: readonly MemoryItem[]): MemoryItem | undefined {
  let weakest: MemoryItem | undefined;
  for (const item of items) {
    if (
      weakest === undefined ||
      item.salience < weakest.salience ||
      (item.salience === weakest.salience && item.lastAttendedAt < weakest.lastAttendedAt)
    ) {
      weakest = item;
    }
  }
  return weakest;
}

/** Offers `offer` at `at` (after decay): refresh if held, take a free slot, or evict a strictly less salient item. */
export function admit(state: WorkingMemoryState, offer: MemoryOffer, at: number): AdmissionOutcome {
  const decayed = decayWorkingMemory(state, at);
  const existing = decayed.items.find((item) => item.id === offer.id);
  if (existing !== undefined) {
    const refreshed: MemoryItem = {
      ...existing,
      content: offer.content,
      salience: Math.max(existing.salience, offer.salience),
      lastAttendedAt: Math.max(existing.lastAttendedAt, at),
    };
    const items = decayed.items.map((item) => (item.id === offer.id ? refreshed : item));
    return { state: { ...decayed, items }, admitted: true, evictedId: null };
  }
  // An item at 0 salience would be dropped by the next decay; keep the invariant that held items are salient.
  if (!(offer.salience > 0)) return { state: decayed, admitted: false, evictedId: null };
  const item: MemoryItem = { ...offer, createdAt: at, lastAttendedAt: at };
  if (decayed.items.length < decayed.capacity) {
    return { state: { ...decayed, items: [...decayed.items, item] }, admitted: true, evictedId: null };
  }
  const weakest = leastSalientItem(decayed.items);
  if (weakest === undefined || !(offer.salience > weakest.salience)) {
    return { state: decayed, admitted: false, evictedId: null };
  }
  const items = [...decayed.items.filter((held) => held.id !== weakest.id), item];
  return { state: { ...decayed, items }, admitted: true, evictedId: weakest.id };
}

/** Refreshes item `id` at `at` (after decay) by `boost`, capped at 1; an unknown id changes nothing. */
export function attend(
  state: WorkingMemoryState,
  id: string,
  at: number,
  boost = DEFAULT_ATTENTION_BOOST,
): WorkingMemoryState {
  if (!state.items.some((item) => item.id === id)) return state;
  const decayed = decayWorkingMemory(state, at);
  const items = decayed.items.map((item) =>
    item.id === id
      ? { ...item, salience: Math.min(1, item.salience + boost), lastAttendedAt: Math.max(item.lastAttendedAt, at) }
      : item,
  );
  return { ...decayed, items };
}

/** The working-memory reducer: pure and total. */
export function workingMemoryReducer(state: WorkingMemoryState, event: WorkingMemoryEvent): WorkingMemoryState {
  switch (event.type) {
    case 'memory.admit':
      return admit(state, event.item, event.at).state;
    case 'memory.attend':
      return attend(state, event.id, event.at, event.boost);
    case 'memory.decay':
      return decayWorkingMemory(state, event.at);
    case 'memory.remove':
      if (!state.items.some((item) => item.id === event.id)) return state;
      return { ...state, items: state.items.filter((item) => item.id !== event.id) };
  }
}
