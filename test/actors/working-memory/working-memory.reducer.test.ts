/** Tests for the working-memory reducer: admission and eviction, attention, decay, removal and capacity invariants. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_ATTENTION_BOOST,
  WorkingMemoryStateSchema,
  admit,
  decayWorkingMemory,
  initialWorkingMemoryState,
  workingMemoryReducer,
} from '../../../src/actors/working-memory/index.js';
import type { WorkingMemoryEvent, WorkingMemoryState } from '../../../src/actors/working-memory/index.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const MINUTE = 60_000;

/** A memory at T0 holding items with the given saliences, ids `a`, `b`, `c`… */
function memoryWith(saliences: number[], capacity = saliences.length): WorkingMemoryState {
  return {
    capacity,
    updatedAt: T0,
    items: saliences.map((salience, i) => ({
      id: String.fromCharCode(97 + i),
      content: `item ${i}`,
      salience,
      createdAt: T0,
      lastAttendedAt: T0,
    })),
  };
}

const ids = (state: WorkingMemoryState): string[] => state.items.map((item) => item.id);

describe('initialWorkingMemoryState', () => {
  it('starts empty with seven slots when no capacity is given', () => {
    expect(initialWorkingMemoryState(T0)).toEqual({ capacity: 7, items: [], updatedAt: T0 });
  });

  it('uses the given capacity', () => {
    expect(initialWorkingMemoryState(T0, 3).capacity).toBe(3);
  });
});

describe('admit', () => {
  it('admits an item into a free slot, stamped with the event time', () => {
    const outcome = admit(initialWorkingMemoryState(T0), { id: 'x', content: 'hello', salience: 0.5 }, T0);
    expect(outcome).toMatchObject({ admitted: true, evictedId: null });
    expect(outcome.state.items).toEqual([
      { id: 'x', content: 'hello', salience: 0.5, createdAt: T0, lastAttendedAt: T0 },
    ]);
  });

  it('evicts the least salient item when full and the new item is strictly more salient', () => {
    const outcome = admit(memoryWith([0.6, 0.3, 0.8]), { id: 'x', content: 'new', salience: 0.4 }, T0);
    expect(outcome.admitted).toBe(true);
    expect(outcome.evictedId).toBe('b');
    expect(ids(outcome.state)).toEqual(['a', 'c', 'x']);
  });

  it('rejects an item no more salient than the least salient one when full', () => {
    const full = memoryWith([0.6, 0.3, 0.8]);
    const outcome = admit(full, { id: 'x', content: 'new', salience: 0.3 }, T0);
    expect(outcome).toEqual({ state: full, admitted: false, evictedId: null });
  });

  it('evicts the least recently attended item among equally weak ones', () => {
    const full = memoryWith([0.3, 0.3]);
    const [first, second] = full.items;
    const state = {
      ...full,
      items: [
        { ...first!, lastAttendedAt: T0 },
        { ...second!, lastAttendedAt: T0 - MINUTE },
      ],
    };
    expect(admit(state, { id: 'x', content: 'new', salience: 0.5 }, T0).evictedId).toBe('b');
  });

  it('updates the content and refreshes an item already held instead of adding a second copy', () => {
    const outcome = admit(memoryWith([0.4]), { id: 'a', content: 'revised', salience: 0.7 }, T0 + MINUTE);
    expect(outcome).toMatchObject({ admitted: true, evictedId: null });
    expect(outcome.state.items).toHaveLength(1);
    expect(outcome.state.items[0]).toMatchObject({
      content: 'revised',
      salience: 0.7,
      createdAt: T0,
      lastAttendedAt: T0 + MINUTE,
    });
  });

  it('keeps the higher salience when a held item is offered again less salient', () => {
    const outcome = admit(memoryWith([0.9]), { id: 'a', content: 'again', salience: 0.1 }, T0);
    expect(outcome.state.items[0]?.salience).toBe(0.9);
  });

  it('decays to the event time before comparing saliences', () => {
    // After 10 minutes the held 0.5 has decayed to 0.3, so a 0.4 offer now wins.
    const outcome = admit(memoryWith([0.5]), { id: 'x', content: 'new', salience: 0.4 }, T0 + 10 * MINUTE);
    expect(outcome.evictedId).toBe('a');
    expect(outcome.state.updatedAt).toBe(T0 + 10 * MINUTE);
  });

  it('applies the decay even when it rejects the item', () => {
    const outcome = admit(memoryWith([0.5]), { id: 'x', content: 'new', salience: 0.1 }, T0 + 5 * MINUTE);
    expect(outcome.admitted).toBe(false);
    expect(outcome.state.items[0]?.salience).toBeCloseTo(0.4, 10);
  });

  it('rejects an item offered at zero salience', () => {
    expect(admit(initialWorkingMemoryState(T0), { id: 'x', content: 'faint', salience: 0 }, T0).admitted).toBe(false);
  });
});

describe('decayWorkingMemory', () => {
  it('lowers salience by about 0.02 a minute', () => {
    const next = decayWorkingMemory(memoryWith([0.5, 0.9]), T0 + 10 * MINUTE);
    expect(next.items.map((item) => item.salience)).toEqual([expect.closeTo(0.3, 10), expect.closeTo(0.7, 10)]);
    expect(next.updatedAt).toBe(T0 + 10 * MINUTE);
  });

  it('drops items whose salience reaches zero', () => {
    expect(ids(decayWorkingMemory(memoryWith([0.1, 0.9]), T0 + 5 * MINUTE))).toEqual(['b']);
  });

  it('changes nothing, updatedAt included, when no time or negative time has elapsed', () => {
    const state = memoryWith([0.5]);
    expect(decayWorkingMemory(state, T0)).toBe(state);
    expect(decayWorkingMemory(state, T0 - MINUTE)).toBe(state);
  });

  it('covers the whole gap since the checkpoint in one step on restore', () => {
    const restored = decayWorkingMemory(memoryWith([0.5, 0.9]), T0 + 30 * MINUTE);
    expect(ids(restored)).toEqual(['b']);
    expect(restored.items[0]?.salience).toBeCloseTo(0.3, 10);
  });
});

describe('workingMemoryReducer', () => {
  it('admits through memory.admit', () => {
    const next = workingMemoryReducer(initialWorkingMemoryState(T0), {
      type: 'memory.admit',
      at: T0,
      item: { id: 'x', content: 'c', salience: 0.5 },
    });
    expect(ids(next)).toEqual(['x']);
  });

  it('boosts an attended item by 0.2 when no boost is given and stamps the attention time', () => {
    const next = workingMemoryReducer(memoryWith([0.5]), { type: 'memory.attend', at: T0, id: 'a' });
    expect(next.items[0]?.salience).toBeCloseTo(0.5 + DEFAULT_ATTENTION_BOOST, 10);
    const later = workingMemoryReducer(memoryWith([0.5]), {
      type: 'memory.attend',
      at: T0 + 5 * MINUTE,
      id: 'a',
      boost: 0.3,
    });
    expect(later.items[0]).toMatchObject({ salience: expect.closeTo(0.7, 10), lastAttendedAt: T0 + 5 * MINUTE });
  });

  it('caps attended salience at 1', () => {
    const next = workingMemoryReducer(memoryWith([0.95]), { type: 'memory.attend', at: T0, id: 'a', boost: 0.5 });
    expect(next.items[0]?.salience).toBe(1);
  });

  it('changes nothing when attending an unknown id', () => {
    const state = memoryWith([0.5]);
    expect(workingMemoryReducer(state, { type: 'memory.attend', at: T0 + MINUTE, id: 'zz' })).toBe(state);
  });

  it('decays through memory.decay', () => {
    const next = workingMemoryReducer(memoryWith([0.5]), { type: 'memory.decay', at: T0 + MINUTE });
    expect(next.items[0]?.salience).toBeCloseTo(0.48, 10);
  });

  it('removes an item by id and ignores an unknown id', () => {
    const state = memoryWith([0.5, 0.6]);
    expect(ids(workingMemoryReducer(state, { type: 'memory.remove', at: T0, id: 'a' }))).toEqual(['b']);
    expect(workingMemoryReducer(state, { type: 'memory.remove', at: T0, id: 'zz' })).toBe(state);
  });
});

const idArb = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j');
const timeArb = fc.integer({ min: T0 - 10 * MINUTE, max: T0 + 120 * MINUTE });
const unit = fc.double({ min: 0, max: 1, noNaN: true });
const eventArb: fc.Arbitrary<WorkingMemoryEvent> = fc.oneof(
  fc.record({
    type: fc.constant('memory.admit' as const),
    at: timeArb,
    item: fc.record({ id: idArb, content: fc.string(), salience: unit }),
  }),
  fc.record(
    { type: fc.constant('memory.attend' as const), at: timeArb, id: idArb, boost: unit },
    { requiredKeys: ['type', 'at', 'id'] },
  ),
  fc.record({ type: fc.constant('memory.decay' as const), at: timeArb }),
  fc.record({ type: fc.constant('memory.remove' as const), at: timeArb, id: idArb }),
);

describe('workingMemoryReducer properties', () => {
  it('never exceeds capacity, holds unique salient items, and always parses for any event sequence', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(eventArb, { maxLength: 60 }), (capacity, events) => {
        let state = initialWorkingMemoryState(T0, capacity);
        for (const event of events) {
          state = workingMemoryReducer(state, event);
          expect(state.items.length).toBeLessThanOrEqual(capacity);
          expect(new Set(ids(state)).size).toBe(state.items.length);
          expect(state.items.every((item) => item.salience > 0)).toBe(true);
          expect(WorkingMemoryStateSchema.safeParse(state).success).toBe(true);
        }
      }),
    );
  });

  it('reports an eviction only when it admits into a full memory', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 30 }), idArb, unit, (events, id, salience) => {
        const state = events.reduce(workingMemoryReducer, initialWorkingMemoryState(T0, 3));
        const outcome = admit(state, { id, content: 'offer', salience }, T0 + 120 * MINUTE);
        if (outcome.evictedId !== null) {
          expect(outcome.admitted).toBe(true);
          expect(ids(outcome.state)).not.toContain(outcome.evictedId);
          expect(ids(outcome.state)).toContain(id);
        }
        expect(ids(outcome.state).includes(id)).toBe(outcome.admitted);
      }),
    );
  });
});
