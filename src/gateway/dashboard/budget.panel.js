// @ts-check
/** The budget panel: a gauge of today's spend against the cap, the reset time, and a top-up form. */
import {
  byId,
  describeFailure,
  formatClock,
  formatDateTime,
  formatRelative,
  formatUsd,
  throttle,
  toast,
} from './dom-helpers.js';

/** @typedef {import('./dashboard-app.js').Client} Client */
/** @typedef {import('./dashboard-app.js').Shared} Shared */
/** @typedef {import('./dashboard-app.js').Panel} Panel */
/** @typedef {import('./vigil-client.js').RpcResult<'budget.status'>} BudgetStatus */

const BUDGET_EVENTS = new Set(['agent.budget_updated', 'agent.sleeping', 'agent.waking', 'agent.budget_exceeded']);

/**
 * @param {Client} client
 * @param {Shared} shared
 * @returns {Panel}
 */
export function createBudgetPanel(client, shared) {
  const el = {
    state: byId('budget-state'),
    arc: byId('budget-arc'),
    pct: byId('budget-pct'),
    spent: byId('budget-spent'),
    cap: byId('budget-cap'),
    remaining: byId('budget-remaining'),
    reset: byId('budget-reset'),
    form: /** @type {HTMLFormElement} */ (byId('topup-form')),
    amount: /** @type {HTMLInputElement} */ (byId('topup-amount')),
  };

  /** @param {BudgetStatus} budget */
  const render = (budget) => {
    shared.budget = budget;
    el.state.textContent = budget.state.replace('_', ' ');
    el.state.dataset['state'] = budget.state;
    // The arc shows up to the cap; past it (the hard stop allows a little over), the number says how far.
    el.arc.setAttribute('stroke-dasharray', `${Math.min(budget.pct, 100).toFixed(2)} 100`);
    // A zero-length arc still draws its round caps as a dot: hide it until there is spend to show.
    el.arc.classList.toggle('gauge-empty', budget.pct <= 0);
    el.arc.dataset['state'] = budget.state;
    el.pct.textContent = `${budget.pct.toFixed(budget.pct < 10 ? 1 : 0)}%`;
    el.spent.textContent = formatUsd(budget.spentTodayUsd);
    el.cap.textContent =
      budget.topUpUsd > 0
        ? `${formatUsd(budget.dailyCapUsd)} + ${formatUsd(budget.topUpUsd)}`
        : formatUsd(budget.dailyCapUsd);
    el.remaining.textContent = formatUsd(budget.remainingUsd);
    el.reset.textContent = `${formatRelative(budget.resetsAt)} (${formatClock(budget.resetsAt)})`;
    el.reset.title = `${formatDateTime(budget.resetsAt)} — midnight in ${budget.timezone}`;
  };

  const refresh = async () => render(await client.budget.status());
  const soon = throttle(refresh, 1000);

  el.form.addEventListener('submit', (submit) => {
    submit.preventDefault();
    const amountUsd = Number(el.amount.value);
    if (!(amountUsd > 0)) return;
    const button = /** @type {HTMLButtonElement} */ (el.form.querySelector('button'));
    button.disabled = true;
    client.budget
      .topUp({ amountUsd })
      .then((budget) => {
        render(budget);
        toast(`Topped up ${formatUsd(amountUsd)}: ${formatUsd(budget.remainingUsd)} left today.`, 'ok');
      })
      .catch((err) => toast(`Top-up failed: ${describeFailure(err)}`, 'error'))
      .finally(() => (button.disabled = false));
  });

  return {
    refresh,
    onEvent(event) {
      if (BUDGET_EVENTS.has(event.type)) soon();
    },
  };
}
