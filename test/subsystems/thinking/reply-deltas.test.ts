import { describe, expect, it } from 'vitest';
import { ThinkDeltas } from '../../../src/subsystems/thinking/reply-deltas.js';
import type { ReplyStream } from '../../../src/subsystems/thinking/thinker.js';

/** A reply stream that records its deltas; `watching` says whether anyone watches. */
function recording(watching: { now: boolean } = { now: true }) {
  const deltas: { turnId: string; text: string }[] = [];
  const stream: ReplyStream = {
    wanted: () => watching.now,
    delta: (turnId, text) => void deltas.push({ turnId, text }),
  };
  const joined = (turnId: string) => deltas.flatMap((d) => (d.turnId === turnId ? [d.text] : [])).join('');
  return { stream, deltas, joined };
}

const args = (turnId: string, text: string) => JSON.stringify({ turnId, text });

describe('ThinkDeltas', () => {
  it("streams a call's text to the turn it answers, without the space around it", () => {
    const { stream, joined } = recording();
    const call = new ThinkDeltas(stream, ['t-1']).nextCall('t-1')!;
    call.text(0, ' Paris');
    call.text(0, ', of course. ');
    expect(joined('t-1')).toBe('Paris, of course.');
  });

  it('streams no text once a tool call has begun in the call: it may follow a reply', () => {
    const { stream, deltas } = recording();
    const call = new ThinkDeltas(stream, ['t-1']).nextCall('t-1')!;
    call.arguments(0, 'remember', '');
    call.text(1, 'Noted.');
    expect(deltas).toEqual([]);
  });

  it('streams no text for a call whose text answers no turn, but still its reply calls', () => {
    const { stream, deltas } = recording();
    const call = new ThinkDeltas(stream, ['t-1']).nextCall(null)!;
    call.text(0, 'Thinking aloud.');
    call.arguments(1, 'reply', args('t-1', 'Hi.'));
    expect(deltas).toEqual([{ turnId: 't-1', text: 'Hi.' }]);
  });

  it("joins a turn's second part with a blank line, as its final reply joins them; another turn's first part has none", () => {
    const { stream, joined } = recording();
    const think = new ThinkDeltas(stream, ['t-1', 't-2']);
    const call = think.nextCall('t-1')!;
    call.text(0, 'One moment.');
    call.arguments(1, 'reply', args('t-1', 'Here it is.'));
    call.arguments(2, 'reply', args('t-2', 'And yours.'));
    expect(joined('t-1')).toBe('One moment.\n\nHere it is.');
    expect(joined('t-2')).toBe('And yours.');
  });

  it('asks for a whole reply while no one watches', () => {
    const watching = { now: false };
    const think = new ThinkDeltas(recording(watching).stream, ['t-1']);
    expect(think.nextCall('t-1')).toBeUndefined();
    watching.now = true;
    expect(think.nextCall('t-1')).toBeDefined();
  });

  it('never streams for a thinker given no reply stream', () => {
    expect(new ThinkDeltas(undefined, ['t-1']).nextCall('t-1')).toBeUndefined();
  });
});
