// @ts-check
/** The long-term memory search box (in the working-memory card): `memory.search` hits, each with a Forget button. */
import { byId, describeFailure, formatRelative, h, runDetached, toast } from './dom-helpers.js';

/** @typedef {import('./dashboard-app.js').Client} Client */
/** @typedef {import('./dashboard-app.js').Panel} Panel */

/**
 * @param {Client} client
 * @returns {Panel}
 */
export function createLongTermMemoryPanel(client) {
  const form = /** @type {HTMLFormElement} */ (byId('ltm-form'));
  const input = /** @type {HTMLInputElement} */ (byId('ltm-query'));
  const results = byId('ltm-results');
  /** The query shown, so a refresh (after a forget, a restore or a reconnection) searches it again. */
  let shown = '';

  /** @param {string} id @param {string} content */
  const forget = (id, content) => {
    client.memory
      .forget({ id })
      .then(() => {
        toast(`Forgotten: ${content}`, 'ok');
        return search(shown);
      })
      .catch((err) => toast(`Could not forget it: ${describeFailure(err)}`, 'error'));
  };

  /** @param {string} query */
  const search = async (query) => {
    shown = query;
    if (query === '') {
      results.hidden = true;
      results.replaceChildren();
      return;
    }
    const hits = await client.memory.search({ query, limit: 20 });
    results.hidden = false;
    if (hits.length === 0) {
      results.replaceChildren(h('li', { class: 'empty' }, `No long-term memory matches “${query}”.`));
      return;
    }
    results.replaceChildren(
      ...hits.map((hit) => {
        const button = h(
          'button',
          { type: 'button', class: 'btn', title: 'Forget this memory for good', 'data-needs-scope': 'operate' },
          'Forget',
        );
        button.addEventListener('click', () => forget(hit.id, hit.content));
        return h(
          'li',
          { dataset: { id: hit.id } },
          h('p', { class: 'memory-text', title: hit.content }, hit.content),
          h(
            'div',
            { class: 'memory-meta' },
            h('span', { class: 'num', title: 'relevance' }, hit.score.toFixed(1)),
            h('span', { class: 'muted' }, hit.source.replace('_', ' ')),
            h('span', { class: 'muted' }, formatRelative(hit.createdAt)),
            button,
          ),
        );
      }),
    );
  };

  form.addEventListener('submit', (submit) => {
    submit.preventDefault();
    search(input.value.trim()).catch((err) => toast(`Search failed: ${describeFailure(err)}`, 'error'));
  });
  input.addEventListener('search', () => {
    // The field's clear button: hide the results.
    if (input.value === '') runDetached(search(''), 'clearing the search');
  });

  return {
    refresh: () => search(shown),
    onEvent(event) {
      if (event.type === 'checkpoint.restored' && shown !== '')
        runDetached(search(shown), 'searching again after a restore');
    },
  };
}
