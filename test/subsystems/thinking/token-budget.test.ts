import { describe, expect, it } from 'vitest';
import { fitLines, TokenBudget } from '../../../src/subsystems/thinking/token-budget.js';

describe('TokenBudget', () => {
  it('takes only what fits, and charges what is always sent even past the bound', () => {
    const budget = TokenBudget.of(10);
    expect(budget.take(11)).toBe(false);
    expect(budget.left).toBe(10);
    expect(budget.take(10)).toBe(true);
    expect(budget.take(1)).toBe(false);
    budget.charge(3);
    expect(budget.left).toBe(-3);
    expect(budget.used).toBe(13);
  });

  it('shares at most what is left, never below nothing, and takes from the share are taken from its parent', () => {
    const parent = TokenBudget.of(100);
    const share = parent.share(30);
    expect(share.left).toBe(30);
    expect(share.take(20)).toBe(true);
    expect(parent.left).toBe(80);
    expect(share.take(11)).toBe(false);
    expect(parent.share(500).left).toBe(80);
    parent.charge(90);
    expect(parent.share(30).left).toBe(0);
  });
});

describe('fitLines', () => {
  const cost = (line: string) => line.length;
  it('keeps the newest that fit, stops at the first that does not, and returns them in order', () => {
    const fitted = fitLines(['aaaa', 'b', 'cc', 'ddd'], TokenBudget.of(5), {
      newestFirst: true,
      render: (s) => s,
      cost,
    });
    expect(fitted).toEqual({ lines: ['cc', 'ddd'], tokens: 5, omitted: 2 });
  });

  it('fits in order, and stops where render finds no room', () => {
    const budget = TokenBudget.of(10);
    const fitted = fitLines(['aa', 'bb', 'cc'], budget, {
      newestFirst: false,
      render: (s, left) => (left < 7 ? null : s),
      cost,
    });
    expect(fitted).toEqual({ lines: ['aa', 'bb'], tokens: 4, omitted: 1 });
    expect(budget.left).toBe(6);
  });
});
