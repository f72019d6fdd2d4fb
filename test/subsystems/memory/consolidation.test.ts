/** The consolidation policy and the recall selection: pure functions of their inputs. */
import { describe, expect, it } from 'vitest';
import type { MemoryItem } from '../../../src/actors/working-memory/working-memory.schema.js';
import {
  CONSOLIDATION_THRESHOLD,
  itemsToConsolidate,
  salienceAtLastAttention,
} from '../../../src/subsystems/memory/consolidation.js';
import {
  recallQueryOf,
  recalledMemoryTokens,
  selectRecalled,
} from '../../../src/subsystems/memory/recall-selection.js';
import type { MemoryHit } from '../../../src/subsystems/memory/long-term-memory.types.js';

const AT = 1_700_000_000_000;
const MINUTE = 60_000;
const item = (id: string, salience: number, lastAttendedAt = AT): MemoryItem => ({
  id,
  content: `item ${id}`,
  salience,
  createdAt: AT,
  lastAttendedAt,
});

describe('itemsToConsolidate', () => {
  it('keeps what left working memory with salience of at least 0.5 at its last attention', () => {
    expect(CONSOLIDATION_THRESHOLD).toBe(0.5);
    // Seen 10 minutes after attention at 0.4 stored: it was 0.6 when attended (decay 0.02 a minute).
    const faded = item('a', 0.4, AT - 10 * MINUTE);
    const weak = item('b', 0.3, AT);
    const stays = item('c', 0.9, AT);
    const out = itemsToConsolidate(
      [
        { item: faded, asOf: AT },
        { item: weak, asOf: AT },
        { item: stays, asOf: AT },
      ],
      [stays],
    );
    expect(out.map((c) => c.item.id)).toEqual(['a']);
    expect(out[0]!.salience).toBeCloseTo(0.6);
    expect(salienceAtLastAttention(faded, AT)).toBeCloseTo(0.6);
  });

  it('never keeps an excluded item', () => {
    expect(itemsToConsolidate([{ item: item('a', 0.9), asOf: AT }], [], new Set(['a']))).toEqual([]);
  });
});

const hit = (seq: number, content: string): MemoryHit => ({
  memory: { id: `mem-${seq}`, seq, content, source: 'conversation', salience: 0.5, createdAt: AT, updatedAt: AT },
  score: 10 - seq,
});

describe('recall selection', () => {
  it('asks about the pending messages and the focus goal', () => {
    const goal = {
      id: 'g-1',
      title: 'Ship the release',
      priority: 5,
      progress: 0,
      status: 'active' as const,
      createdAt: AT,
      updatedAt: AT,
    };
    expect(
      recallQueryOf({
        pendingMessages: [{ turnId: 't', from: 'u', text: 'Where are the keys?', at: AT }],
        goals: [goal],
        focusGoalId: 'g-1',
      }),
    ).toBe('Where are the keys?\nShip the release');
    expect(recallQueryOf({ pendingMessages: [], goals: [goal] })).toBe('');
  });

  it('takes the best hits up to five, within the token allowance, skipping one too long for what is left', () => {
    const hits = [
      hit(1, 'short one'),
      hit(2, 'x'.repeat(3_000)),
      hit(3, 'short two'),
      ...[4, 5, 6, 7, 8].map((n) => hit(n, `short ${n}`)),
    ];
    const chosen = selectRecalled(hits);
    expect(chosen.map((m) => m.id)).toEqual(['mem-1', 'mem-3', 'mem-4', 'mem-5', 'mem-6']);
    const tight = selectRecalled(hits, recalledMemoryTokens(chosen[0]!) + 1);
    expect(tight.map((m) => m.id)).toEqual(['mem-1']);
  });
});
