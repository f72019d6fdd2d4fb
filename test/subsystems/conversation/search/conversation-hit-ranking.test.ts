/** The conversation search's final ranking: a message lifted by its neighbours' scores, only where it may be returned. */
import { describe, expect, it } from 'vitest';
import {
  NEIGHBOUR_WEIGHT,
  rankConversationHits,
} from '../../../../src/subsystems/conversation/search/conversation-hit-ranking.js';

describe('rankConversationHits', () => {
  it('adds to each message the best of its neighbours’ scores, less with each step away', () => {
    const ranked = rankConversationHits(
      [
        { seq: 10, score: 10 },
        { seq: 30, score: 6 },
        { seq: 31, score: 5 },
      ],
      6,
    );
    const score = (seq: number) => ranked.find((hit) => hit.seq === seq)?.score;
    expect(score(10)).toBe(10);
    expect(score(11)).toBeCloseTo(10 * NEIGHBOUR_WEIGHT);
    expect(score(30)).toBeCloseTo(6 + 5 * NEIGHBOUR_WEIGHT);
    expect(score(31)).toBeCloseTo(5 + 6 * NEIGHBOUR_WEIGHT);
    // Two messages that both match rise above a lone one's neighbours; the page is cut at the limit.
    expect(ranked.map((hit) => hit.seq).slice(0, 3)).toEqual([10, 30, 31]);
    expect(ranked).toHaveLength(6);
  });

  it('returns a neighbour only where `accept` allows it, and nothing for a page of none', () => {
    const ranked = rankConversationHits([{ seq: 5, score: 1 }], 10, (seq) => seq >= 5);
    expect(ranked.map((hit) => hit.seq).sort()).toEqual([5, 6, 7]);
    expect(rankConversationHits([{ seq: 5, score: 1 }], 0)).toEqual([]);
  });
});
