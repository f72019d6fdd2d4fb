/** Reads what the ledger says about today's money, the basis every seed's budget is rebased on. */
import { dayKeyIn } from '../actors/budget/budget-calendar.js';
import type { BudgetLedger } from '../subsystems/budget/budget-ledger.js';
import type { BudgetBasis } from './heartbeat-seed.js';

/** Today's totals, the cap in force and any pending wake, for the day of `now` in `timezone`. */
export async function readBudgetBasis(
  ledger: BudgetLedger,
  settings: { timezone: string; configuredCapMicroUsd: number },
  now: number,
): Promise<BudgetBasis> {
  return {
    timezone: settings.timezone,
    capMicroUsd: await ledger.readCap(settings.configuredCapMicroUsd),
    today: await ledger.readDay(dayKeyIn(settings.timezone, now)),
    wakeSignal: await ledger.readWakeSignal(),
  };
}
