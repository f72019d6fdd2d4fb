import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SimulatedClock as XStateSimulatedClock } from 'xstate';
import { SimulatedClock } from '../../src/shared/simulated-clock.js';

const START = Date.parse('2026-01-01T00:00:00Z');

/** What a timer does when it fires: sets timers (`delays`), clears the `clears`-th timer set so far, moves the clock. */
interface Reaction {
  delays: number[];
  clears: number[];
  moveMs: number;
}

type Step =
  | { type: 'set'; delay: number }
  | { type: 'clear'; nth: number }
  | { type: 'increment'; ms: number }
  | { type: 'set-to'; ahead: number };

interface AnyClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  increment(ms: number): void;
  set(time: number): void;
}

/** Runs `steps` on `clock`; every firing is logged as (timer, time), and reacts as `reactions` says. */
function run(clock: AnyClock, steps: Step[], reactions: Reaction[]): string[] {
  const log: string[] = [];
  const handles: unknown[] = [];
  const set = (delay: number): void => {
    const nth = handles.length;
    handles.push(
      clock.setTimeout(() => {
        log.push(`${nth}@${clock.now() - START}`);
        const reaction = reactions[nth % reactions.length];
        if (reaction === undefined || handles.length > 60) return;
        for (const clear of reaction.clears) clock.clearTimeout(handles[clear % handles.length]);
        for (const next of reaction.delays) set(next);
        if (reaction.moveMs > 0) clock.increment(reaction.moveMs);
      }, delay),
    );
  };
  for (const step of steps) {
    if (step.type === 'set') set(step.delay);
    else if (step.type === 'clear') clock.clearTimeout(handles[step.nth % Math.max(1, handles.length)]);
    else if (step.type === 'increment') clock.increment(step.ms);
    else clock.set(clock.now() + step.ahead);
  }
  return log;
}

// Few distinct delays, so timers often fall due at the same moment and ties are tested.
const delay = fc.constantFrom(0, 1, 2, 5, 10);
const reaction = fc.record({
  delays: fc.array(delay, { maxLength: 2 }),
  clears: fc.array(fc.nat(20), { maxLength: 1 }),
  moveMs: fc.constantFrom(0, 0, 0, 1, 3),
});
const step = fc.oneof(
  fc.record({ type: fc.constant('set' as const), delay }),
  fc.record({ type: fc.constant('clear' as const), nth: fc.nat(20) }),
  fc.record({ type: fc.constant('increment' as const), ms: fc.constantFrom(0, 1, 2, 5, 11) }),
  fc.record({ type: fc.constant('set-to' as const), ahead: fc.constantFrom(0, 3, 7) }),
);

describe('SimulatedClock', () => {
  it('fires as XState’s SimulatedClock does: by due time, ties in the order set, what a firing timer sets or clears counted at once', () => {
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 40 }),
        fc.array(reaction, { minLength: 1, maxLength: 5 }),
        (steps, reactions) => {
          const reference = new XStateSimulatedClock();
          reference.set(START);
          expect(run(new SimulatedClock(START), steps, reactions)).toEqual(run(reference, steps, reactions));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('runs every timer at the time the clock was moved to, and says when the next one is due', () => {
    const clock = new SimulatedClock(START);
    const seen: number[] = [];
    clock.setTimeout(() => seen.push(clock.now()), 1_000);
    const late = clock.setTimeout(() => seen.push(-1), 5_000);
    expect(clock.nextDueAt()).toBe(START + 1_000);
    clock.increment(2_500);
    expect(seen).toEqual([START + 2_500]);
    expect(clock.nextDueAt()).toBe(START + 5_000);
    clock.clearTimeout(late);
    expect(clock.nextDueAt()).toBe(Number.POSITIVE_INFINITY);
    clock.increment(10_000);
    expect(seen).toEqual([START + 2_500]);
  });

  it('never goes back, and a timer that throws leaves the clock working', () => {
    const clock = new SimulatedClock(START);
    expect(() => clock.set(START - 1)).toThrow('Unable to travel back in time');
    clock.setTimeout(() => {
      throw new Error('boom');
    }, 1);
    expect(() => clock.increment(1)).toThrow('boom');
    let fired = false;
    clock.setTimeout(() => (fired = true), 1);
    clock.increment(1);
    expect(fired).toBe(true);
  });
});
