/**
 * `send_message`'s wait for its turn's one terminal event: an in-process feed (live the moment it is subscribed) needs
 * no journal read and still never misses a reply, however soon after the send it comes; a feed over the wire replays
 * from the newest journalled seq.
 */
import fc from 'fast-check';
import { Observable, Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { sendAndWait } from '../../src/client/mcp/send-and-wait.js';
import type { VigilLink } from '../../src/client/mcp/vigil-link.js';
import type { VigilEvent } from '../../src/protocol/events.schema.js';

const AT = '2026-01-01T00:00:00.000Z';
const reply = (turnId: string, seq: number): VigilEvent =>
  ({ type: 'agent.reply', turnId, text: `reply to ${turnId}`, seq, at: AT, beat: 1 }) as unknown as VigilEvent;

/**
 * An in-process link over `bus`: subscribing is synchronous, and the reply to each send is emitted `delayTurns`
 * microtask turns after `agent.send` is called (0: inside the call, before it answers).
 */
function inProcessLink(bus: Subject<VigilEvent>, delayTurns: number, called: string[]): VigilLink {
  let turns = 0;
  return {
    liveAtOnce: true,
    call: async (method) => {
      called.push(method);
      if (method === 'budget.status') return { state: 'ok', resetsAt: AT } as never;
      if (method !== 'agent.send') throw new Error(`unexpected call ${method}`);
      turns += 1;
      const turnId = `t${turns}`;
      if (delayTurns === 0) bus.next(reply(turnId, turns));
      else {
        let left = delayTurns;
        const tick = (): void => {
          left -= 1;
          if (left === 0) bus.next(reply(turnId, turns));
          else queueMicrotask(tick);
        };
        queueMicrotask(tick);
      }
      return { turnId } as never;
    },
    subscribe: (types) =>
      new Observable<VigilEvent>((observer) =>
        bus.subscribe((event) => {
          if (types === undefined || types.includes(event.type)) observer.next(event);
        }),
      ),
  };
}

describe('sendAndWait', () => {
  it('over an in-process feed: reads no journal, and gets a reply that comes at any moment after the send', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 8 }), async (delayTurns) => {
        const called: string[] = [];
        const outcome = await sendAndWait(inProcessLink(new Subject(), delayTurns, called), 'hi', 'mcp:test', 1000);
        expect(outcome).toEqual({ kind: 'answered', turnId: 't1', text: 'reply to t1' });
        expect(called).not.toContain('events.history');
      }),
      { numRuns: 30 },
    );
  });

  it('over the wire: replays from the newest journalled seq, so a reply before the feed is registered still comes', async () => {
    const replays: Array<number | undefined> = [];
    const link: VigilLink = {
      call: (method) => {
        if (method === 'events.history') return Promise.resolve([reply('old', 41)] as never);
        if (method === 'budget.status') return Promise.resolve({ state: 'ok', resetsAt: AT } as never);
        return Promise.resolve({ turnId: 't1' } as never);
      },
      // The reply was journalled (seq 42) before this feed was registered: only the replay after 41 has it.
      subscribe: (_types, options) => {
        replays.push(options?.after);
        return new Observable<VigilEvent>((observer) => {
          queueMicrotask(() => observer.next(reply('t1', 42)));
        });
      },
    };
    expect(await sendAndWait(link, 'hi', 'mcp:test', 1000)).toEqual({
      kind: 'answered',
      turnId: 't1',
      text: 'reply to t1',
    });
    expect(replays).toEqual([41]);
  });
});
