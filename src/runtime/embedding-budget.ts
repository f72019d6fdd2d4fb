/**
 * Semantic search's spend, wired to the heartbeat's budget: embedding may spend while the day's spend is below the
 * wind-down threshold and the agent is awake (what is left past it is for finishing the turn), and each request that
 * costs money is charged through the ledger like a think (kind `embedding`). A free model (a local server) writes no
 * charge: a ledger write per batch of 32 records would record nothing.
 */
import { budgetRefOf, recordCost } from '../heartbeat/cost-recorder.js';
import { spendLevel } from '../actors/budget/budget.reducer.js';
import type { HeartbeatDeps } from '../heartbeat/heartbeat.types.js';
import { embeddingCostMicroUsd, type EmbeddingSpend } from '../subsystems/embeddings/embedding-spend.js';

/**
 * What the spend is charged to: the heartbeat's actor system (its budget actor) and its deps. Named by shape, not as
 * the runtime core, so the core can import this without a circle.
 */
export interface EmbeddingBudgetHost {
  readonly parts: { readonly deps: HeartbeatDeps };
  readonly actor: { readonly system: Parameters<typeof budgetRefOf>[0] };
}

/** The spend of model `model` at `pricePerMTok`, charged to `core`'s budget. */
export function embeddingSpendOf(core: EmbeddingBudgetHost, model: string, pricePerMTok: number): EmbeddingSpend {
  const { deps } = core.parts;
  const budget = () => budgetRefOf(core.actor.system);
  return {
    canSpend: () => {
      const state = budget().getSnapshot().context;
      return !state.sleeping && !state.exceeded && spendLevel(state, deps.options.budgetLimits) === 'ok';
    },
    charge: async (inputTokens) => {
      const costMicroUsd = embeddingCostMicroUsd(inputTokens, pricePerMTok);
      if (costMicroUsd === 0) return;
      const usage = { inputTokens, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
      await recordCost(deps, budget(), 'embedding', { model, usage, costMicroUsd });
    },
  };
}
