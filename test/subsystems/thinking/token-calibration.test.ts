import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VigilError } from '../../../src/errors.js';
import { buildBudgetedPrompt } from '../../../src/subsystems/thinking/prompt-budget.js';
import {
  API_OVERHEAD_TOKENS,
  fitCalibrated,
  MAX_AGE_MS,
  MAX_FACTOR,
  TokenCalibration,
  WINDOW_THINKS,
} from '../../../src/subsystems/thinking/token-calibration.js';
import { userMessageInput } from '../../fixtures/think-input.fixture.js';

const T0 = Date.parse('2026-03-01T10:00:00Z');

/** One thing that can happen to a calibration: a usage report, or a new think some time later. */
type Step = { kind: 'report'; estimated: number; reported: number } | { kind: 'think'; afterMs: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.integer({ min: 0, max: 60_000 }),
        // Counts from well under the estimate to past what a tokenizer can give, and a proxy's or a test's absurd ones.
        fc.oneof(
          fc.integer({ min: 0, max: 3500 }).map((permille) => permille / 1000),
          fc.constant(Number.NaN),
        ),
        fc.oneof(fc.constant(1_000_000), fc.integer({ min: 0, max: 2_000_000_000 })),
      )
      .map(([estimated, ratio, absurd]) => ({
        kind: 'report' as const,
        estimated,
        reported: Number.isNaN(ratio) ? absurd : Math.round(estimated * ratio),
      })),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('think' as const),
      // Mostly the next think a little later; now and then one past the factor's lifetime.
      afterMs: fc.oneof(
        { weight: 4, arbitrary: fc.integer({ min: 0, max: 60_000 }) },
        { weight: 1, arbitrary: fc.integer({ min: 0, max: 2 * MAX_AGE_MS }) },
      ),
    }),
  },
);

function replay(steps: readonly Step[]): TokenCalibration {
  const calibration = new TokenCalibration();
  let now = T0;
  calibration.beginThink(now);
  for (const step of steps) {
    if (step.kind === 'report') calibration.observe(step.estimated, step.reported);
    else calibration.beginThink((now += step.afterMs));
  }
  return calibration;
}

/** The think's prompt built under `bound` with `counter`, the fixed prefix measured by the same counter. */
function build(counter: TokenCalibration, texts: readonly string[], bound: number, plainFixed: number) {
  const input = userMessageInput('', T0);
  const pendingMessages = texts.map((text, i) => ({ turnId: `t-${i}`, text, from: 'ada', at: T0 - 10 }));
  return buildBudgetedPrompt({
    input: { ...input, pendingMessages },
    boundTokens: bound,
    fixedTokens: counter.scale(plainFixed),
    counter,
  });
}

function refusedLocally(fit: () => unknown): boolean {
  try {
    fit();
    return false;
  } catch (err) {
    if (err instanceof VigilError && err.code === 'CONTEXT_TOO_SMALL') return true;
    throw err;
  }
}

describe('TokenCalibration', () => {
  it('ignores a report of 1,000,000 input tokens for a request estimated at a few thousand, and says so', () => {
    const calibration = new TokenCalibration();
    expect(calibration.observe(3765, 1_000_000)).toBe('implausible');
    expect(calibration.factor).toBe(1);
  });

  it('counts a report up to three tokens a byte of estimate plus the API overhead, and caps the factor at MAX_FACTOR', () => {
    const calibration = new TokenCalibration();
    expect(calibration.observe(1000, 2000)).toBe('counted');
    expect(calibration.factor).toBeCloseTo(2.1, 9);
    expect(calibration.observe(1000, MAX_FACTOR * 1000 + API_OVERHEAD_TOKENS)).toBe('counted');
    expect(calibration.factor).toBe(MAX_FACTOR);
    expect(calibration.observe(1000, MAX_FACTOR * 1000 + API_OVERHEAD_TOKENS + 1)).toBe('implausible');
    expect(calibration.observe(0, 500)).toBe('unusable');
    expect(calibration.factor).toBe(MAX_FACTOR);
  });

  it('keeps the factor between 1 and MAX_FACTOR whatever the reports', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 80 }), (steps) => {
        const { factor } = replay(steps);
        expect(factor).toBeGreaterThanOrEqual(1);
        expect(factor).toBeLessThanOrEqual(MAX_FACTOR);
      }),
      { numRuns: 300 },
    );
  });

  it(`ages a raised factor out after ${WINDOW_THINKS} thinks, with no call made in them`, () => {
    const calibration = new TokenCalibration();
    calibration.beginThink(T0);
    calibration.observe(1000, 2500);
    for (let i = 1; i < WINDOW_THINKS; i++) calibration.beginThink(T0 + i);
    expect(calibration.factor).toBeCloseTo(2.625, 9);
    calibration.beginThink(T0 + WINDOW_THINKS);
    expect(calibration.factor).toBe(1);
  });

  it('ages a raised factor out after an hour, even in the next think', () => {
    const calibration = new TokenCalibration();
    calibration.beginThink(T0);
    calibration.observe(1000, 2500);
    calibration.beginThink(T0 + MAX_AGE_MS - 1);
    expect(calibration.factor).toBeCloseTo(2.625, 9);
    calibration.beginThink(T0 + MAX_AGE_MS);
    expect(calibration.factor).toBe(1);
  });

  it(`is back to 1 after ${WINDOW_THINKS} thinks without reports, whatever came before`, () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 80 }), (steps) => {
        const calibration = replay(steps);
        for (let i = 0; i < WINDOW_THINKS; i++) calibration.beginThink(T0 + 3 * MAX_AGE_MS * 100);
        expect(calibration.factor).toBe(1);
      }),
      { numRuns: 200 },
    );
  });
});

describe('fitCalibrated', () => {
  it('never lets a sequence of usage reports refuse a prompt whose plain estimate fits', () => {
    let calibratedRefused = 0;
    const textArb = fc.oneof(fc.string({ maxLength: 3000 }), fc.string({ unit: 'grapheme', maxLength: 1500 }));
    fc.assert(
      fc.property(
        fc.array(stepArb, { maxLength: 40 }),
        fc.array(textArb, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 500, max: 20_000 }),
        fc.integer({ min: 20, max: 100 }).map((percent) => percent / 100),
        (steps, texts, bound, fixedShare) => {
          const plainFixed = Math.floor(bound * fixedShare);
          const calibration = replay(steps);
          if (refusedLocally(() => build(new TokenCalibration(), texts, bound, plainFixed))) return;
          if (refusedLocally(() => build(calibration, texts, bound, plainFixed))) calibratedRefused += 1;
          expect(
            refusedLocally(() => fitCalibrated(calibration, (counter) => build(counter, texts, bound, plainFixed))),
          ).toBe(false);
        },
      ),
      { numRuns: 400 },
    );
    // Not vacuous: the calibrated count alone would have refused some of these prompts.
    expect(calibratedRefused).toBeGreaterThan(20);
  });

  it('uses the calibrated count when it fits, and the plain one only when the calibrated one refuses', () => {
    const calibration = new TokenCalibration();
    calibration.observe(1000, 3000);
    expect(fitCalibrated(calibration, (counter) => counter.factor)).toBe(MAX_FACTOR);
    const used: number[] = [];
    const fitted = fitCalibrated(calibration, (counter) => {
      used.push(counter.factor);
      return build(counter, ['hello'], 4096, 2700);
    });
    expect(used).toEqual([MAX_FACTOR, 1]);
    expect(fitted.state).toContain('hello');
  });

  it('throws CONTEXT_TOO_SMALL when even the plain estimate cannot fit, and other errors as they are', () => {
    const calibration = new TokenCalibration();
    calibration.observe(1000, 2000);
    expect(() => fitCalibrated(calibration, (counter) => build(counter, ['hello'], 4096, 4090))).toThrow(
      expect.objectContaining({ code: 'CONTEXT_TOO_SMALL' }),
    );
    let calls = 0;
    expect(() =>
      fitCalibrated(calibration, () => {
        calls += 1;
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(calls).toBe(1);
  });
});
