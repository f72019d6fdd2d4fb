/**
 * The room a prompt's volatile parts share, in calibrated tokens, and the one routine that fits lines into it.
 *
 * Optional parts only ever `take` what is left, so they fit by construction. What is always sent (the state's own
 * sections, a section's tags) is `charge`d whatever is left: past the bound only when the required parts alone
 * overflow it, which the builder refuses before any optional part is fitted.
 */
export class TokenBudget {
  private spent = 0;

  /**
   * @param total the room, in tokens
   * @param parent a budget every take and charge is also made from (a share of it: `share`)
   */
  private constructor(
    private readonly total: number,
    private readonly parent: TokenBudget | null,
  ) {}

  static of(total: number): TokenBudget {
    return new TokenBudget(total, null);
  }

  /** What is left: negative once a charge overdrew it. */
  get left(): number {
    return this.total - this.spent;
  }

  /** What was taken and charged so far. */
  get used(): number {
    return this.spent;
  }

  /** Takes `n` tokens if they fit in what is left (here and in every parent); false, taking nothing, when not. */
  take(n: number): boolean {
    if (n > this.left) return false;
    this.charge(n);
    return true;
  }

  /** Takes `n` tokens whether or not they fit: a part that is always sent. */
  charge(n: number): void {
    this.spent += n;
    this.parent?.charge(n);
  }

  /**
   * A budget of at most `limit` tokens (never below 0, never beyond what is left here), whose takes are made from
   * this one too. A share never overdraws its parent: it starts within what is left and only takes.
   */
  share(limit: number): TokenBudget {
    return new TokenBudget(Math.max(0, Math.min(this.left, limit)), this);
  }
}

/** Lines fitted into a budget, in the order of the items they came from, and what they took. */
export interface FittedLines {
  lines: string[];
  tokens: number;
  /** Items left out for room. */
  omitted: number;
}

/**
 * Fits `items` newest first (`newestFirst`) or in order while each fits, stopping at the first that does not;
 * returned in the items' order. `render` makes an item's line from what is left of `budget` (null: no room for
 * one), `cost` says what the line takes.
 */
export function fitLines<T>(
  items: readonly T[],
  budget: TokenBudget,
  opts: { newestFirst: boolean; render: (item: T, left: number) => string | null; cost: (line: string) => number },
): FittedLines {
  const lines: string[] = [];
  let tokens = 0;
  const n = items.length;
  for (let k = 0; k < n; k++) {
    const line = opts.render(items[opts.newestFirst ? n - 1 - k : k]!, budget.left);
    if (line === null) break;
    const cost = opts.cost(line);
    if (!budget.take(cost)) break;
    lines.push(line);
    tokens += cost;
  }
  if (opts.newestFirst) lines.reverse();
  return { lines, tokens, omitted: n - lines.length };
}
