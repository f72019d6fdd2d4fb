/** The facade's budget area: `budget.status`, `budget.topUp`, `budget.setCap`; the ledger records before the actor counts. */
import { dayKeyIn } from '../../actors/budget/budget-calendar.js';
import { allowanceMicroUsd, budgetPct, budgetStatusState, resetsAt } from '../../actors/budget/budget.reducer.js';
import type { BudgetState } from '../../actors/budget/budget.schema.js';
import { emitBudgetUpdated } from '../../heartbeat/cost-recorder.js';
import type { BudgetStatus, SetCapParams, TopUpParams } from '../../protocol/budget.schema.js';
import { cacheReadShare } from '../../subsystems/budget/cache-share.js';
import { iso, type RuntimeCore } from '../runtime-core.js';

/** The budget as the facade offers it. */
export class BudgetFacade {
  constructor(private readonly core: RuntimeCore) {}

  /** The live budget actor's state. */
  state(): BudgetState {
    return this.ref().getSnapshot().context;
  }

  /** `budget.status`: today's cap, spend and state. */
  status(): BudgetStatus {
    const budget = this.ref().getSnapshot().context;
    const limits = this.core.parts.deps.options.budgetLimits;
    const allowance = allowanceMicroUsd(budget);
    return {
      dailyCapUsd: budget.dailyCapMicroUsd / 1_000_000,
      spentTodayUsd: budget.spentTodayMicroUsd / 1_000_000,
      remainingUsd: (allowance - budget.spentTodayMicroUsd) / 1_000_000,
      pct: Math.round(Math.min(budgetPct(budget), 1e9) * 100) / 100,
      state: budgetStatusState(budget, limits),
      timezone: budget.timezone,
      resetsAt: iso(resetsAt(budget)),
      topUpUsd: budget.topUpMicroUsd / 1_000_000,
      sessionCostUsd: budget.sessionCostMicroUsd / 1_000_000,
      cacheReadShareToday: cacheReadShare(
        this.core.parts.ledger.knownDay(dayKeyIn(budget.timezone, this.core.parts.clock.now())),
      ),
    };
  }

  /** `budget.topUp`: more allowance for today, recorded (with its wake signal) before it counts; a sleeper wakes at once. */
  async topUp(params: TopUpParams): Promise<BudgetStatus> {
    this.core.assertRunning();
    const amountMicroUsd = Math.round(params.amountUsd * 1_000_000);
    const { ledger, clock, bus } = this.core.parts;
    const at = clock.now();
    const budget = this.ref();
    await ledger.topUp(dayKeyIn(budget.getSnapshot().context.timezone, at), amountMicroUsd, at);
    budget.send({ type: 'budget.top_up', at, amountMicroUsd });
    emitBudgetUpdated(bus, budget.getSnapshot().context);
    this.core.actor.send({ type: 'WAKE_CHECK', reason: 'top_up' });
    return this.status();
  }

  /** `budget.setCap`: a new daily cap, kept across restarts while the configured cap is unchanged. */
  async setCap(params: SetCapParams): Promise<BudgetStatus> {
    this.core.assertRunning();
    const capMicroUsd = Math.round(params.dailyCapUsd * 1_000_000);
    const { ledger, clock, bus, configuredCapMicroUsd } = this.core.parts;
    await ledger.setCap({ capMicroUsd, configuredCapMicroUsd });
    const budget = this.ref();
    budget.send({ type: 'budget.set_cap', at: clock.now(), capMicroUsd });
    emitBudgetUpdated(bus, budget.getSnapshot().context);
    // A higher cap may wake a sleeper; a lower one may reach the hard stop.
    this.core.actor.send({ type: 'WAKE_CHECK', reason: 'manual' });
    this.core.actor.send({ type: 'BUDGET_CHECK' });
    return this.status();
  }

  /** The budget's timezone and the configured cap, for reading the ledger's basis. */
  settings(): { timezone: string; configuredCapMicroUsd: number } {
    return {
      timezone: this.ref().getSnapshot().context.timezone,
      configuredCapMicroUsd: this.core.parts.configuredCapMicroUsd,
    };
  }

  private ref() {
    return this.core.context().refs.budget;
  }
}
