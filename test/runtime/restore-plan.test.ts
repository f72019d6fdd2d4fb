/** The pure part of `checkpoint.restore`: which turns it reopens, and which it cancels. */
import { describe, expect, it } from 'vitest';
import { planRestore } from '../../src/runtime/facade/restore.facade.js';
import { makeCheckpoint } from '../fixtures/checkpoint.fixture.js';

const AT = Date.parse('2026-01-01T00:00:00Z');
const checkpoint = makeCheckpoint();

describe('planRestore', () => {
  it('reopens a turn the checkpoint held open when nothing ended it after', () => {
    const plan = planRestore(checkpoint, [], []);
    expect(plan.reopened.map((open) => open.turnId)).toEqual(['t-2']);
  });

  it('keeps a turn answered after the checkpoint answered', () => {
    const plan = planRestore(checkpoint, [{ seq: 4, turnId: 't-2', role: 'assistant', text: 'Yes.', at: AT }], []);
    expect(plan.reopened).toEqual([]);
  });

  // Found by the simulator (seed 129): restoring the same checkpoint twice reopened a turn whose answer the first
  // restore had archived, and the agent answered it a second time.
  it('keeps a turn answered when its answer lies in an archive of an earlier restore', () => {
    const plan = planRestore(checkpoint, [], [], new Set(['t-2']));
    expect(plan.reopened).toEqual([]);
  });

  it('cancels the turns open now that the restored state does not hold open', () => {
    const plan = planRestore(checkpoint, [], [{ turnId: 't-9', text: 'later', from: 'cli', at: AT }]);
    expect(plan.cancelled).toEqual(['t-9']);
  });
});
