/** The conversation index: what a message is indexed as (speaker, day, the message before), the window, removal. */
import { describe, expect, it } from 'vitest';
import {
  conversationSearchDocument,
  spokenDate,
  type ConversationSearchMessage,
} from '../../../../src/subsystems/conversation/search/conversation-search-document.js';
import { ConversationSearchIndex } from '../../../../src/subsystems/conversation/search/conversation-search-index.js';

const MAY_8_2023 = Date.UTC(2023, 4, 8, 13, 56);
const DAY = 86_400_000;

function message(seq: number, text: string, at = MAY_8_2023, from = 'Caroline'): ConversationSearchMessage {
  return seq % 2 === 1 ? { seq, role: 'user', from, text, at } : { seq, role: 'assistant', text, at };
}

describe('conversationSearchDocument', () => {
  it('holds the text, the speaker, the day in words and the message before', () => {
    const before = message(1, 'Did you go to the support group?');
    expect(conversationSearchDocument(message(2, 'Yes, last week!'), before, { agentName: 'Melanie' })).toEqual({
      seq: 2,
      text: 'Yes, last week!',
      speaker: 'Melanie',
      date: expect.stringContaining('8 May 2023') as unknown,
      previous: 'Did you go to the support group?',
    });
    expect(conversationSearchDocument(message(1, 'Hi'), undefined).speaker).toBe('Caroline');
  });

  it('writes the day out in the zone asked for', () => {
    expect(spokenDate(MAY_8_2023)).toBe('Monday 8 May 2023');
    expect(spokenDate(Date.UTC(2023, 4, 8, 23, 30), 'Asia/Tokyo')).toBe('Tuesday 9 May 2023');
  });
});

describe('ConversationSearchIndex', () => {
  it('finds a message by its words, its speaker and its day, best first', () => {
    const index = new ConversationSearchIndex({ agentName: 'Melanie' });
    index.add(message(1, 'I went to a pottery class and painted a bowl'));
    index.add(message(2, 'That sounds lovely, what colour?', MAY_8_2023 + DAY));
    index.add(message(3, 'Blue, like the sea', MAY_8_2023 + 40 * DAY));
    expect(index.size).toBe(3);
    expect(index.search('when did Caroline paint a bowl?', { limit: 1 }).map((hit) => hit.seq)).toEqual([1]);
    expect(index.search('what did Caroline say in June 2023', { limit: 1 }).map((hit) => hit.seq)).toEqual([3]);
    // The reply about the colour is found through the message it answers.
    expect(index.search('bowl colour', { limit: 3 }).map((hit) => hit.seq)).toContain(2);
    expect(index.search('the was of', { limit: 5 })).toEqual([]);
    expect(index.search('bowl', { limit: 0 })).toEqual([]);
  });

  it('keeps to the window and forgets a removed message', () => {
    const index = new ConversationSearchIndex();
    index.add(message(1, 'the red kite flew', MAY_8_2023));
    index.add(message(2, 'a red kite again', MAY_8_2023 + DAY));
    index.add(message(3, 'red kites everywhere', MAY_8_2023 + 2 * DAY));
    const seqs = (hits: { seq: number }[]) => hits.map((hit) => hit.seq).sort();
    expect(seqs(index.search('red kite', { limit: 10, after: MAY_8_2023 }))).toEqual([2, 3]);
    expect(seqs(index.search('red kite', { limit: 10, before: MAY_8_2023 + 2 * DAY }))).toEqual([1, 2]);
    index.remove(2);
    expect(index.has(2)).toBe(false);
    expect(seqs(index.search('red kite', { limit: 10 }))).toEqual([1, 3]);
    index.add(message(1, 'indexed twice?'));
    expect(index.size).toBe(2);
  });
});
