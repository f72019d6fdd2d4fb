/** Records what a think or task cost: ledger first (synced), then the budget actor and the events. */
import type { ActorRefFrom, ActorSystem } from 'xstate';
import type { budgetLogic } from '../actors/budget/budget.actor.js';
import { dayKeyIn } from '../actors/budget/budget-calendar.js';
import { budgetPct } from '../actors/budget/budget.reducer.js';
import type { BudgetState } from '../actors/budget/budget.schema.js';
import type { EventBus } from '../events/event-bus.js';
import type { TokenUsage } from '../subsystems/thinking/thinker.schema.js';
import type { HeartbeatDeps } from './heartbeat.types.js';

/** What one think or task cost. */
export interface Cost {
  model: string;
  usage: TokenUsage;
  costMicroUsd: number;
}

type BudgetRef = ActorRefFrom<typeof budgetLogic>;

const usd = (microUsd: number): number => microUsd / 1_000_000;
const round2 = (n: number): number => (Number.isFinite(n) ? Math.round(n * 100) / 100 : n);

/** The budget actor as currently registered (a restarted actor replaces the old one under the same system id). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- XState types a promise actor's system this loosely.
export function budgetRefOf(system: ActorSystem<any>): BudgetRef {
  return system.get('budget') as BudgetRef;
}

/**
 * Appends the cost to the ledger (sync) and only then charges the budget actor, so the money is on disk before any
 * result it paid for is applied. A failed ledger write rejects: the caller must not apply the result.
 */
export async function recordCost(
  deps: HeartbeatDeps,
  budget: BudgetRef,
  kind: 'think' | 'task' | 'summary' | 'embedding',
  cost: Cost,
): Promise<BudgetState> {
  const at = deps.clock.now();
  const before = budget.getSnapshot().context;
  await deps.ledger.charge({
    at,
    dayKey: dayKeyIn(before.timezone, at),
    kind,
    model: cost.model,
    costMicroUsd: cost.costMicroUsd,
    usage: cost.usage,
  });
  budget.send({ type: 'budget.charge', at, costMicroUsd: cost.costMicroUsd });
  const after = budget.getSnapshot().context;
  if (kind === 'think') {
    deps.bus.emit('think.completed', { model: cost.model, ...cost.usage, costUsd: usd(cost.costMicroUsd) });
  }
  emitBudgetUpdated(deps.bus, after);
  return after;
}

/** `agent.budget_updated` for the state `budget`: the percent is of today's allowance (cap plus top-ups). */
export function emitBudgetUpdated(bus: EventBus, budget: BudgetState): void {
  bus.emit('agent.budget_updated', {
    budgetPct: round2(Math.min(budgetPct(budget), Number.MAX_SAFE_INTEGER)),
    spentTodayUsd: usd(budget.spentTodayMicroUsd),
    dailyCapUsd: usd(budget.dailyCapMicroUsd),
  });
}

/** The cost already incurred by a think that failed or was aborted (carried in the error's `data.partial`). */
export function partialCostOf(err: unknown): Cost | null {
  const partial = (err as { data?: { partial?: Partial<Cost> } } | null)?.data?.partial;
  if (partial === undefined || typeof partial.costMicroUsd !== 'number' || partial.costMicroUsd <= 0) return null;
  return {
    model: partial.model ?? 'unknown',
    usage: partial.usage ?? { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    costMicroUsd: partial.costMicroUsd,
  };
}
