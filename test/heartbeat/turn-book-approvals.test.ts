/** The turn book with turns waiting for an operator's approval: they are not taken up by a think until decided. */
import { describe, expect, it } from 'vitest';
import type { TurnState } from '../../src/heartbeat/heartbeat.types.js';
import { answerableTurns, MAX_TURNS_PER_THINK, turnsForThink } from '../../src/heartbeat/turn-book.js';
import { IDLE_TIMERS } from '../../src/heartbeat/turn-tracker.js';

const turns = (ids: string[], extra: Partial<TurnState['pending'][number]> = {}): TurnState => ({
  ...IDLE_TIMERS,
  unreadReplies: 0,
  pending: ids.map((turnId, i) => ({ turnId, text: `m${i}`, from: 'user', at: i, ...extra })),
});

describe('turn book and approvals', () => {
  it('leaves out turns waiting for approval, and those waiting for a task, and keeps the order of the rest', () => {
    const state = turns(['t-1', 't-2', 't-3']);
    expect(answerableTurns(state).map((t) => t.turnId)).toEqual(['t-1', 't-2', 't-3']);
    expect(answerableTurns(state, new Set(['t-2'])).map((t) => t.turnId)).toEqual(['t-1', 't-3']);
    const tasked = {
      ...state,
      pending: state.pending.map((t) => (t.turnId === 't-3' ? { ...t, awaitingTask: true } : t)),
    };
    expect(answerableTurns(tasked, new Set(['t-1'])).map((t) => t.turnId)).toEqual(['t-2']);
  });

  it('fills a think with answerable turns only: a waiting turn does not take one of its places', () => {
    const ids = Array.from({ length: MAX_TURNS_PER_THINK + 1 }, (_, i) => `t-${i}`);
    expect(turnsForThink(turns(ids), new Set(['t-0']))).toEqual(ids.slice(1, MAX_TURNS_PER_THINK + 1));
    expect(turnsForThink(turns(['t-0']), new Set(['t-0']))).toEqual([]);
  });
});
