import { describe, expect, it } from 'vitest';
import { fuseByReciprocalRank, RRF_K } from '../../../src/subsystems/embeddings/reciprocal-rank-fusion.js';

describe('fuseByReciprocalRank', () => {
  it('scores each record by the sum of 1 / (k + rank) over the rankings that hold it', () => {
    const fused = fuseByReciprocalRank([
      ['a', 'b'],
      ['b', 'c'],
    ]);
    expect(fused.map((hit) => hit.key)).toEqual(['b', 'a', 'c']);
    expect(fused[0]?.score).toBeCloseTo(1 / (RRF_K + 2) + 1 / (RRF_K + 1));
    expect(fused[1]?.score).toBeCloseTo(1 / (RRF_K + 1));
    expect(fused[2]?.score).toBeCloseTo(1 / (RRF_K + 2));
  });

  it('ranks a record both rankings found above one each ranking put first', () => {
    const fused = fuseByReciprocalRank([
      ['lexical-only', 'both'],
      ['vector-only', 'both'],
    ]);
    expect(fused[0]?.key).toBe('both');
  });

  it('breaks ties by first appearance, the first ranking first, so the order is deterministic', () => {
    expect(fuseByReciprocalRank([['x'], ['y']]).map((hit) => hit.key)).toEqual(['x', 'y']);
    expect(fuseByReciprocalRank([['y'], ['x']]).map((hit) => hit.key)).toEqual(['y', 'x']);
  });

  it('counts a key repeated within one ranking once, at its best rank', () => {
    const [hit] = fuseByReciprocalRank([['a', 'a', 'a']]);
    expect(hit?.score).toBeCloseTo(1 / (RRF_K + 1));
  });

  it('gives a single ranking back in its own order, and nothing for no rankings', () => {
    expect(fuseByReciprocalRank([[3, 1, 2]]).map((hit) => hit.key)).toEqual([3, 1, 2]);
    expect(fuseByReciprocalRank([])).toEqual([]);
    expect(fuseByReciprocalRank([[], []])).toEqual([]);
  });

  it('lets a smaller k weigh the first ranks more', () => {
    const [first, second] = fuseByReciprocalRank([['a', 'b']], 1);
    expect(first?.score).toBeCloseTo(1 / 2);
    expect(second?.score).toBeCloseTo(1 / 3);
  });
});
