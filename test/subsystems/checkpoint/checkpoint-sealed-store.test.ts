/** A checkpoint store on a store sealed with the same key: pruning needs no body read to know none is another key's. */
import { MemoryLevel } from 'memory-level';
import { describe, expect, it, vi } from 'vitest';
import { createSimulatedClock } from '../../../src/shared/clock.js';
import { CheckpointStore } from '../../../src/subsystems/checkpoint/checkpoint.store.js';
import { SealedLevel } from '../../../src/subsystems/store/sealed-level.js';
import { sealStore } from '../../../src/subsystems/store/store-seal.js';
import { makeCheckpoint } from '../../fixtures/checkpoint.fixture.js';

const KEY_A = 'a1'.repeat(32);
const KEY_B = 'b2'.repeat(32);

describe('CheckpointStore on a sealed store', () => {
  it('prunes beyond the kept count without reading a body when the store is sealed with its key, and reads them when not', async () => {
    const { db } = await sealStore(new MemoryLevel(), KEY_A, { closeInner: false });
    expect(db).toBeInstanceOf(SealedLevel);
    const clock = createSimulatedClock();
    const store = new CheckpointStore(db, clock, { key: KEY_A });
    await store.open();
    const gets = vi.spyOn(db as SealedLevel, '_get');
    const ids: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      const id = store.newId();
      ids.push(id);
      await store.save(makeCheckpoint({ id, beatCount: i }), 3);
    }
    expect(gets).not.toHaveBeenCalled();
    expect((await store.list()).map((m) => m.id)).toEqual(ids.slice(3).reverse());
    expect((await store.load(ids[5]!)).beatCount).toBe(5);

    // Another key on the checkpoints than on the store (not what the runtime does): bodies are read to decide.
    const other = new CheckpointStore(db, clock, { key: KEY_B });
    await other.open();
    gets.mockClear();
    await other.prune(1);
    expect(gets).toHaveBeenCalled();
    // Bodies sealed with KEY_A are not KEY_B's to prune.
    expect(await other.count()).toBe(3);
  });
});
