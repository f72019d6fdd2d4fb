// @ts-check
/** The working-memory panel: items, most salient first, each with a salience bar. */
import { byId, formatRelative, h, throttle } from './dom-helpers.js';

/** @typedef {import('./dashboard-app.js').Client} Client */
/** @typedef {import('./dashboard-app.js').Panel} Panel */

/**
 * @param {Client} client
 * @returns {Panel}
 */
export function createMemoryPanel(client) {
  const list = byId('memory');
  const count = byId('memory-count');

  const refresh = async () => {
    const items = await client.memory.list();
    count.textContent = `${items.length} item${items.length === 1 ? '' : 's'}`;
    if (items.length === 0) {
      list.replaceChildren(h('li', { class: 'empty' }, 'Nothing in working memory yet.'));
      return;
    }
    list.replaceChildren(
      ...items.map((item) => {
        const fill = h('span', { class: 'bar-fill' });
        fill.style.width = `${(item.salience * 100).toFixed(1)}%`;
        return h(
          'li',
          { dataset: { id: item.id } },
          h('p', { class: 'memory-text', title: item.content }, item.content),
          h(
            'div',
            { class: 'memory-meta' },
            h('span', { class: 'bar', title: `salience ${item.salience.toFixed(2)}` }, fill),
            h('span', { class: 'num' }, item.salience.toFixed(2)),
            h('span', { class: 'muted' }, formatRelative(item.createdAt)),
          ),
        );
      }),
    );
  };
  const soon = throttle(refresh, 1000);

  return {
    refresh,
    onEvent(event) {
      if (event.type === 'memory.admitted' || event.type === 'checkpoint.restored') soon();
    },
  };
}
