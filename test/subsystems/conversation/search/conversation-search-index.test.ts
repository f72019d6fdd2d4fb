/** The conversation index: what a message is indexed as (speaker, day, the message before), the window, removal. */
import { describe, expect, it } from 'vitest';
import {
  conversationSearchDocument,
  participantWords,
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
  it('holds the text, the speaker, the day in words and the messages around it, without the participants', () => {
    const previous = message(1, 'Did you go to the support group, Melanie?');
    const participants = participantWords(['Caroline', 'Melanie']);
    expect(
      conversationSearchDocument(
        message(2, 'Yes, last week, Caroline!'),
        { previous, participants },
        {
          agentName: 'Melanie',
        },
      ),
    ).toEqual({
      seq: 2,
      text: 'Yes, last week, !',
      speaker: 'Melanie',
      date: 'Monday 8 May 2023',
      previous: 'Did you go to the support group, ?',
    });
    expect(conversationSearchDocument(message(1, 'Hi')).speaker).toBe('Caroline');
    expect(conversationSearchDocument(message(2, 'Hi')).speaker).toBe('agent');
  });

  it('writes the day out in the zone asked for', () => {
    expect(spokenDate(MAY_8_2023)).toBe('Monday 8 May 2023');
    expect(spokenDate(Date.UTC(2023, 4, 8, 23, 30), 'Asia/Tokyo')).toBe('Tuesday 9 May 2023');
  });
});

describe('ConversationSearchIndex', () => {
  it('gives a message its context whatever the order it is added in, as a search in seq order would', () => {
    const texts = ['the kite', 'was red', 'and flew high', 'over the hill', 'in the wind'];
    const inOrder = new ConversationSearchIndex();
    const shuffled = new ConversationSearchIndex();
    texts.forEach((text, i) => inOrder.add(message(i + 1, text)));
    for (const i of [4, 0, 1, 3, 2]) shuffled.add(message(i + 1, texts[i]!));
    for (const query of ['kite', 'red', 'hill wind', 'flew'])
      expect(shuffled.search(query, { limit: 5 })).toEqual(inOrder.search(query, { limit: 5 }));
  });

  it('gives a message written while the rebuild reads older ones its context once the one before it comes', () => {
    const texts = Array.from({ length: 199 }, (_, i) => (i === 198 ? 'where did the kite land?' : `filler ${i} chat`));
    texts.push('In the oak tree.');
    const inOrder = new ConversationSearchIndex();
    texts.forEach((text, i) => inOrder.add(message(i + 1, text)));
    // Message 200 is written first; the rebuild then adds 1..199, far more than the recent messages kept.
    const rebuilt = new ConversationSearchIndex();
    rebuilt.add(message(200, 'In the oak tree.'));
    rebuilt.addAll(texts.slice(0, 199).map((text, i) => message(i + 1, text)));
    expect(rebuilt.search('kite', { limit: 3 })).toEqual(inOrder.search('kite', { limit: 3 }));
    expect(rebuilt.search('kite land', { limit: 3 }).map((hit) => hit.seq)).toContain(200);
  });

  it('finds a message by its words, its speaker and its day, best first', () => {
    const index = new ConversationSearchIndex({ agentName: 'Melanie', participants: ['Caroline', 'Melanie'] });
    index.add(message(1, 'I went to a pottery class and painted a bowl'));
    index.add(message(2, 'That sounds lovely, what colour?', MAY_8_2023 + DAY));
    index.add(message(3, 'Blue, like the sea', MAY_8_2023 + 40 * DAY));
    expect(index.size).toBe(3);
    expect(index.search('when did Caroline paint a bowl?', { limit: 1 }).map((hit) => hit.seq)).toEqual([1]);
    expect(index.search('what did Caroline say in June 2023', { limit: 1 }).map((hit) => hit.seq)).toEqual([3]);
    // The reply is found through the question it answers, the question through the reply (the neighbour lift).
    expect(index.search('blue', { limit: 3 }).map((hit) => hit.seq)).toEqual([3, 2, 1]);
    expect(index.search('colour', { limit: 3 }).map((hit) => hit.seq)).toEqual([2, 3, 1]);
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
