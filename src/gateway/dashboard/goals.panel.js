// @ts-check
/** The goals panel: every goal with priority, progress and status, a form to add one, and a button to complete one. */
import { byId, describeFailure, formatRelative, h, throttle, toast } from './dom-helpers.js';

/** @typedef {import('./dashboard-app.js').Client} Client */
/** @typedef {import('./dashboard-app.js').Panel} Panel */
/** @typedef {import('./vigil-client.js').RpcResult<'goals.list'>[number]} GoalView */

/**
 * @param {Client} client
 * @returns {Panel}
 */
export function createGoalsPanel(client) {
  const list = byId('goals');
  const count = byId('goals-count');
  const form = /** @type {HTMLFormElement} */ (byId('goal-form'));
  const title = /** @type {HTMLInputElement} */ (byId('goal-title'));
  const priority = /** @type {HTMLSelectElement} */ (byId('goal-priority'));
  for (let p = 10; p >= 1; p -= 1) priority.append(h('option', { value: p, selected: p === 5 }, `P${p}`));

  /** @param {GoalView} goal */
  const row = (goal) => {
    const fill = h('span', { class: 'bar-fill' });
    fill.style.width = `${(goal.progress * 100).toFixed(1)}%`;
    const done = goal.status !== 'active';
    return h(
      'li',
      { class: `goal goal-${goal.status}`, dataset: { id: goal.id } },
      h(
        'div',
        { class: 'goal-line' },
        h('span', { class: 'prio', title: `priority ${goal.priority}` }, `P${goal.priority}`),
        h('span', { class: 'goal-title', title: goal.title }, goal.title),
        done
          ? h('span', { class: 'pill pill-soft', dataset: { state: goal.status } }, goal.status)
          : h(
              'button',
              {
                type: 'button',
                class: 'btn btn-small',
                title: 'mark completed',
                'data-needs-scope': 'talk',
                onclick: () => complete(goal),
              },
              '✓',
            ),
      ),
      h(
        'div',
        { class: 'goal-meta' },
        h('span', { class: 'bar' }, fill),
        h('span', { class: 'num' }, `${Math.round(goal.progress * 100)}%`),
        goal.dueAt === undefined ? null : h('span', { class: 'muted' }, `due ${formatRelative(goal.dueAt)}`),
      ),
    );
  };

  const refresh = async () => {
    const goals = await client.goals.list();
    const active = goals.filter((g) => g.status === 'active').length;
    count.textContent = `${active} active · ${goals.length} in all`;
    list.replaceChildren(
      ...(goals.length === 0 ? [h('li', { class: 'empty' }, 'No goals yet: add one above.')] : goals.map(row)),
    );
  };
  const soon = throttle(refresh, 500);

  /** @param {GoalView} goal */
  const complete = (goal) => {
    client.goals
      .complete({ id: goal.id })
      .then(() => soon())
      .catch((err) => toast(`Could not complete “${goal.title}”: ${describeFailure(err)}`, 'error'));
  };

  form.addEventListener('submit', (submit) => {
    submit.preventDefault();
    const text = title.value.trim();
    if (text === '') return;
    client.goals
      .add({ title: text, priority: Number(priority.value) })
      .then((goal) => {
        title.value = '';
        toast(`Goal added: ${goal.title}`, 'ok');
        return refresh();
      })
      .catch((err) => toast(`Could not add the goal: ${describeFailure(err)}`, 'error'));
  });

  return {
    refresh,
    onEvent(event) {
      if (event.type.startsWith('goal.') || event.type === 'checkpoint.restored') soon();
    },
  };
}
