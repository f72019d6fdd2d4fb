// @ts-check
/** The tasks panel: the sub-agent tasks (status, spend against their cap, tools, deadline), with cancel for those not finished. */
import { byId, describeFailure, formatRelative, formatUsd, h, throttle, toast } from './dom-helpers.js';

/** @typedef {import('./dashboard-app.js').Client} Client */
/** @typedef {import('./dashboard-app.js').Panel} Panel */
/** @typedef {import('./vigil-client.js').RpcResult<'tasks.list'>[number]} TaskView */

// Events after which the list may have changed; spend between them is picked up by polling.
const TASK_EVENTS = new Set([
  'swarm.task_spawned',
  'swarm.task_finished',
  'swarm.task_interrupted',
  'checkpoint.restored',
]);
/** The newest tasks shown; the CLI (`vigil tasks list`) has them all. */
const SHOWN = 50;
const PROMPT_CHARS = 140;

/**
 * @param {Client} client
 * @returns {Panel}
 */
export function createTasksPanel(client) {
  const body = byId('tasks');
  const count = byId('tasks-count');

  /** @param {TaskView} task */
  const cancel = (task) => {
    client.tasks
      .cancel({ id: task.id })
      .then(() => {
        toast(`Cancelled task ${task.id}`, 'ok');
        return refresh();
      })
      .catch((err) => {
        toast(`Could not cancel task ${task.id}: ${describeFailure(err)}`, 'error');
        return refresh();
      });
  };

  /** @param {TaskView} task */
  const row = (task) => {
    const open = task.status === 'queued' || task.status === 'running';
    const prompt = task.prompt.length > PROMPT_CHARS ? `${task.prompt.slice(0, PROMPT_CHARS - 1)}…` : task.prompt;
    const outcome = task.error ?? task.result ?? '';
    return h(
      'tr',
      { class: 'task', dataset: { id: task.id, status: task.status, turn: task.turnId } },
      h('td', {}, h('span', { class: `pill task-status task-${task.status}` }, task.status)),
      h('td', { class: 'task-prompt', title: outcome === '' ? task.prompt : `${task.prompt}\n\n→ ${outcome}` }, prompt),
      h(
        'td',
        { class: 'mono small task-tools', title: task.tools.join('\n') },
        task.tools.length === 0 ? '—' : task.tools.join(', '),
      ),
      h('td', { class: 'num task-spend' }, `${formatUsd(task.costUsd)} / ${formatUsd(task.maxCostUsd)}`),
      h('td', { class: 'muted small', title: task.createdAt }, formatRelative(task.createdAt)),
      h(
        'td',
        { class: 'muted small' },
        task.deadlineAt === undefined ? `${task.deadlineSeconds} s` : formatRelative(task.deadlineAt),
      ),
      h(
        'td',
        {},
        open
          ? h(
              'button',
              {
                type: 'button',
                class: 'btn btn-small btn-danger task-cancel',
                'data-needs-scope': 'operate',
                onclick: () => cancel(task),
              },
              'Cancel',
            )
          : null,
      ),
    );
  };

  const refresh = async () => {
    const tasks = await client.tasks.list();
    const open = tasks.filter((task) => task.status === 'queued' || task.status === 'running').length;
    count.textContent = `${open} open · ${tasks.length} in all`;
    const newest = [...tasks]
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0))
      .slice(0, SHOWN);
    body.replaceChildren(
      ...(newest.length === 0
        ? [h('tr', { class: 'empty' }, h('td', { colspan: 7 }, 'No sub-agent tasks yet.'))]
        : newest.map(row)),
    );
  };
  const soon = throttle(refresh, 300);

  return {
    refresh,
    onEvent(event) {
      if (TASK_EVENTS.has(event.type)) soon();
    },
  };
}
