import { describe, expect, it } from 'vitest';
import { decodeVector, dot, encodeVector, normalised } from '../../../src/subsystems/embeddings/vector-codec.js';
import { VectorTable } from '../../../src/subsystems/embeddings/vector-table.js';
import { nextHealth, retryDelayMs, MAX_RETRY_MS } from '../../../src/subsystems/embeddings/endpoint-health.js';
import type { VigilError } from '../../../src/errors.js';

describe('vector codec', () => {
  it('round-trips a Float32 vector through 4 little-endian bytes per value', () => {
    const vector = Float32Array.from([0.5, -1.25, 3e-8, 1024]);
    const bytes = encodeVector(vector);
    expect(bytes.byteLength).toBe(16);
    expect([...bytes.slice(0, 4)]).toEqual([0x00, 0x00, 0x00, 0x3f]); // 0.5 as IEEE 754, little-endian
    expect(decodeVector(bytes)).toEqual(vector);
  });

  it('decodes a vector from a view at an odd offset of a larger buffer', () => {
    const bytes = encodeVector(Float32Array.from([1, 2]));
    const larger = new Uint8Array(bytes.byteLength + 3);
    larger.set(bytes, 3);
    expect([...decodeVector(larger.subarray(3))]).toEqual([1, 2]);
  });

  it('refuses bytes that are no vector with STORE_CORRUPT', () => {
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return (err as VigilError).code;
      }
      return 'none';
    };
    expect(code(() => decodeVector(new Uint8Array(0)))).toBe('STORE_CORRUPT');
    expect(code(() => decodeVector(new Uint8Array(6)))).toBe('STORE_CORRUPT');
    expect(code(() => decodeVector(encodeVector(Float32Array.from([Number.NaN]))))).toBe('STORE_CORRUPT');
  });

  it('normalises to unit length so a dot product is the cosine, leaving a zero vector zero', () => {
    const unit = normalised([3, 4]);
    expect([...unit]).toEqual([expect.closeTo(0.6), expect.closeTo(0.8)]);
    expect(dot(unit, unit)).toBeCloseTo(1);
    expect([...normalised([0, 0])]).toEqual([0, 0]);
    expect(dot(Float32Array.from([1]), Float32Array.from([1, 0]))).toBe(0);
  });
});

describe('VectorTable', () => {
  const v = (...xs: number[]) => normalised(xs);
  function table(): VectorTable {
    const t = new VectorTable();
    t.set(1, v(1, 0, 0));
    t.set(2, v(1, 1, 0));
    t.set(3, v(0, 1, 0));
    t.set(4, v(-1, 0, 0));
    t.set(5, v(1, 1, 0));
    return t;
  }

  it('gives the k nearest best first, ties to the lower seq, nothing orthogonal or opposite', () => {
    const t = table();
    expect(t.nearest(v(1, 0.1, 0), 3).map((n) => n.seq)).toEqual([1, 2, 5]);
    expect(t.nearest(v(1, 0, 0), 10).map((n) => n.seq)).toEqual([1, 2, 5]);
    expect(t.nearest(v(0, 0, 1), 10)).toEqual([]);
    expect(t.nearest(v(1, 0, 0), 0)).toEqual([]);
    expect(t.nearest(v(1, 0), 10)).toEqual([]);
  });

  it('replaces a vector, deletes one by moving the last row into its place, and grows past its first rows', () => {
    const t = table();
    t.set(1, v(0, 0, 1));
    expect(t.nearest(v(0, 0, 1), 5).map((n) => n.seq)).toEqual([1]);
    t.delete(2);
    t.delete(2);
    expect(t.size).toBe(4);
    expect([...t.keys()].sort()).toEqual([1, 3, 4, 5]);
    expect(t.nearest(v(1, 1, 0), 5).map((n) => n.seq)).toEqual([5, 3]);
    for (let seq = 10; seq < 300; seq += 1) t.set(seq, v(0, 1, 1));
    expect(t.size).toBe(294);
    expect(t.nearest(v(0, 1, 1), 2).map((n) => n.seq)).toEqual([10, 11]);
    expect(t.nearest(v(1, 1, 0), 1).map((n) => n.seq)).toEqual([5]);
  });

  it('scans in steps with a yield between them, to the same answer, reading rows deleted meanwhile no more', async () => {
    const t = table();
    let yields = 0;
    const steps = await t.nearestInSteps(v(1, 0.1, 0), 3, 2, () => {
      yields += 1;
      return Promise.resolve();
    });
    expect(steps).toEqual(t.nearest(v(1, 0.1, 0), 3));
    expect(yields).toBe(2);
    const deleting = await t.nearestInSteps(v(1, 1, 0), 5, 2, () => {
      t.delete(5);
      return Promise.resolve();
    });
    expect(deleting.map((n) => n.seq)).toEqual([2, 1, 3]);
  });

  it('refuses a vector of another length with EMBEDDINGS_FAILED', () => {
    const t = table();
    expect(() => t.set(9, v(1, 0))).toThrow(expect.objectContaining({ code: 'EMBEDDINGS_FAILED' }));
    t.clear();
    t.set(9, v(1, 0));
    expect(t.size).toBe(1);
  });
});

describe('endpoint health', () => {
  it('goes down on a failure, doubles the retry delay up to its cap, and is up again on a success', () => {
    let health = nextHealth({ state: 'up' }, { type: 'failed', at: 5 });
    expect(health).toEqual({ state: 'down', since: 5, failures: 1 });
    expect(retryDelayMs(health)).toBe(1_000);
    health = nextHealth(health, { type: 'failed', at: 9 });
    expect(health).toEqual({ state: 'down', since: 5, failures: 2 });
    expect(retryDelayMs(health)).toBe(2_000);
    for (let i = 0; i < 40; i += 1) health = nextHealth(health, { type: 'failed', at: 10 });
    expect(retryDelayMs(health)).toBe(MAX_RETRY_MS);
    expect(nextHealth(health, { type: 'succeeded' })).toEqual({ state: 'up' });
    expect(retryDelayMs({ state: 'up' })).toBe(0);
  });
});
