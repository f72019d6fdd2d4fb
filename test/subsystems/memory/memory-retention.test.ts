/** Long-term memory's retention policy: how many go past the bound, and which (the least worth keeping). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StoredMemory } from '../../../src/protocol/memory.schema.js';
import {
  evictionCount,
  lastValuedAt,
  MEMORY_HALF_LIFE_DAYS,
  memoriesToEvict,
  retentionRank,
  retentionValue,
} from '../../../src/subsystems/memory/memory-retention.js';

const DAY_MS = 86_400_000;
const NOW = Date.parse('2026-11-26T12:00:00Z');

function memory(seq: number, salience: number, updatedAt: number): StoredMemory {
  return {
    id: `mem-${seq}`,
    seq,
    content: `fact ${seq}`,
    source: 'conversation',
    salience,
    createdAt: updatedAt,
    updatedAt,
  };
}

describe('memory retention', () => {
  it('forgets nothing within the bound, and down to 1 % below it past the bound', () => {
    expect(evictionCount(100_000, 100_000)).toBe(0);
    expect(evictionCount(100_001, 100_000)).toBe(1_001);
    expect(evictionCount(100, 100)).toBe(0);
    expect(evictionCount(101, 100)).toBe(2);
    // A bound lowered by the operator: everything above it goes at the next keep.
    expect(evictionCount(150_000, 100_000)).toBe(51_000);
  });

  it('halves a memory’s worth every half-life since it was last kept', () => {
    const kept = memory(1, 0.8, NOW - MEMORY_HALF_LIFE_DAYS * DAY_MS);
    expect(retentionValue(kept, NOW)).toBeCloseTo(0.4, 10);
    expect(retentionValue(kept, NOW - MEMORY_HALF_LIFE_DAYS * DAY_MS)).toBeCloseTo(0.8, 10);
  });

  it('forgets the least worth keeping first: a trivial fact before an important one, an old one before a fresh one', () => {
    const vital = memory(1, 1, NOW - 10 * DAY_MS);
    const trivial = memory(2, 0.05, NOW - DAY_MS);
    const stale = memory(3, 1, NOW - 400 * DAY_MS);
    const fresh = memory(4, 0.5, NOW);
    expect(memoriesToEvict([vital, trivial, stale, fresh], 2).map((m) => m.id)).toEqual(['mem-3', 'mem-2']);
    expect(memoriesToEvict([vital, trivial, stale, fresh], 0)).toEqual([]);
  });

  it('counts a memory the agent used as fresh from that use', () => {
    const kept = memory(1, 0.8, NOW - 2 * MEMORY_HALF_LIFE_DAYS * DAY_MS);
    const used = { ...kept, id: 'mem-2', seq: 2, recalledAt: NOW - MEMORY_HALF_LIFE_DAYS * DAY_MS };
    expect(lastValuedAt(kept)).toBe(kept.updatedAt);
    expect(lastValuedAt(used)).toBe(used.recalledAt);
    expect(retentionValue(kept, NOW)).toBeCloseTo(0.2, 10);
    expect(retentionValue(used, NOW)).toBeCloseTo(0.4, 10);
    // A use older than the last keep changes nothing.
    expect(lastValuedAt({ ...kept, recalledAt: kept.updatedAt - DAY_MS })).toBe(kept.updatedAt);
    expect(memoriesToEvict([used, kept], 1).map((m) => m.id)).toEqual(['mem-1']);
  });

  it('puts a salience of 0 first, the older seq first among equals', () => {
    const zeroNew = memory(5, 0, NOW);
    const zeroOld = memory(2, 0, NOW - DAY_MS);
    const some = memory(1, 0.3, NOW - 1_000 * DAY_MS);
    expect(memoriesToEvict([zeroNew, some, zeroOld], 3).map((m) => m.seq)).toEqual([2, 5, 1]);
  });

  it('ranks memories as their worth does at any moment after they were last kept', () => {
    const stored = fc.record({
      salience: fc.double({ min: 0.001, max: 1, noNaN: true }),
      updatedAt: fc.integer({ min: NOW - 3 * 365 * DAY_MS, max: NOW }),
    });
    fc.assert(
      fc.property(stored, stored, fc.integer({ min: 0, max: 5 * 365 * DAY_MS }), (a, b, later) => {
        const [ma, mb] = [memory(1, a.salience, a.updatedAt), memory(2, b.salience, b.updatedAt)];
        const byValue = retentionValue(ma, NOW + later) - retentionValue(mb, NOW + later);
        const byRank = retentionRank(ma) - retentionRank(mb);
        // Equal worth up to rounding may rank either way; a clear difference must rank the same way.
        if (Math.abs(byValue) > 1e-9 * Math.max(retentionValue(ma, NOW + later), 1e-300)) {
          expect(Math.sign(byRank)).toBe(Math.sign(byValue));
        }
      }),
    );
  });
});
