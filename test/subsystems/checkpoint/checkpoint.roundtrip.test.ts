/** Property: any checkpoint within the schema's ranges loads back exactly as it was saved. */
import fc from 'fast-check';
import { MemoryLevel } from 'memory-level';
import { describe, expect, it } from 'vitest';
import { createSimulatedClock } from '../../../src/shared/clock.js';
import { CheckpointStore } from '../../../src/subsystems/checkpoint/checkpoint.store.js';
import { CognitiveCheckpointSchema } from '../../../src/protocol/checkpoint-format.schema.js';
import { checkpointArbitrary } from '../../fixtures/checkpoint.arbitrary.js';

describe('CheckpointStore round trip', () => {
  it('generates only checkpoints the schema accepts', () => {
    fc.assert(
      fc.property(checkpointArbitrary, (cp) => {
        expect(CognitiveCheckpointSchema.safeParse(cp).success).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('loads every generated checkpoint deep-equal to what was saved', async () => {
    const db = new MemoryLevel<string, string>();
    const store = new CheckpointStore(db, createSimulatedClock());
    await store.open();
    await fc.assert(
      fc.asyncProperty(checkpointArbitrary, async (cp) => {
        await store.save(cp, 1_000);
        expect(await store.load(cp.id)).toEqual(cp);
      }),
      { numRuns: 50 },
    );
    await db.close();
  });
});
