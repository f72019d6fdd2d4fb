// @ts-check
/**
 * The webhooks panel: every endpoint with its state, backlog and last attempt, Enable for a disabled one, and
 * Redeliver, which asks for the seq to send again from (`webhooks.redeliver`) in a dialog.
 */
import { byId, describeFailure, formatRelative, h, throttle, toast } from './dom-helpers.js';

/** @typedef {import('./dashboard-app.js').Client} Client */
/** @typedef {import('./dashboard-app.js').Panel} Panel */
/** @typedef {import('./vigil-client.js').RpcResult<'webhooks.list'>[number]} WebhookView */

// After these an endpoint's state, cursor or backlog has moved; plain deliveries show on the next poll.
const WEBHOOK_EVENTS = new Set(['webhook.failing', 'webhook.disabled', 'webhook.recovered', 'webhook.gap']);
const URL_CHARS = 60;

/**
 * @param {WebhookView} hook
 * @returns {string} The last attempt's outcome: an HTTP status, or why there was none (its reason class: refused…).
 */
function lastOutcome(hook) {
  if (hook.lastAttemptAt === null) return 'never';
  if (hook.lastStatus !== null) return String(hook.lastStatus);
  return hook.lastReason ?? 'no answer';
}

/**
 * @param {Client} client
 * @param {'read' | 'talk' | 'operate'} [scope] The session's scope: only an operate session lists the endpoints.
 * @returns {Panel}
 */
export function createWebhooksPanel(client, scope = 'operate') {
  const body = byId('webhooks');
  const count = byId('webhooks-count');
  const dialog = /** @type {HTMLDialogElement} */ (byId('redeliver-dialog'));
  const seqInput = /** @type {HTMLInputElement} */ (byId('redeliver-seq'));

  /**
   * @param {string} what What the action is, for the toast.
   * @param {Promise<unknown>} action
   */
  const act = (what, action) => {
    action
      .then(() => {
        toast(what, 'ok');
        return refresh();
      })
      .catch((err) => {
        toast(`Could not ${what.toLowerCase()}: ${describeFailure(err)}`, 'error');
        return refresh();
      });
  };

  /**
   * Asks for the seq to redeliver after (the endpoint's cursor by default), then moves the cursor back to it.
   * @param {WebhookView} hook
   */
  async function redeliver(hook) {
    byId('redeliver-name').textContent = hook.name;
    byId('redeliver-url').textContent = hook.url;
    seqInput.value = String(hook.deliveredSeq);
    dialog.returnValue = '';
    dialog.showModal();
    /** @type {string} */
    const answer = await new Promise((resolve) =>
      dialog.addEventListener('close', () => resolve(dialog.returnValue), { once: true }),
    );
    const afterSeq = Number(seqInput.value);
    if (answer !== 'confirm' || !Number.isInteger(afterSeq) || afterSeq < 0) return;
    act(`Redelivering ${hook.name} after seq ${afterSeq}`, client.webhooks.redeliver({ id: hook.id, afterSeq }));
  }

  /** @param {WebhookView} hook */
  const row = (hook) => {
    const url = hook.url.length > URL_CHARS ? `${hook.url.slice(0, URL_CHARS - 1)}…` : hook.url;
    const enable =
      hook.state === 'disabled'
        ? h(
            'button',
            {
              type: 'button',
              class: 'btn btn-small webhook-enable',
              'data-needs-scope': 'operate',
              onclick: () => act(`Enabled ${hook.name}`, client.webhooks.enable({ id: hook.id })),
            },
            'Enable',
          )
        : null;
    const again = h(
      'button',
      {
        type: 'button',
        class: 'btn btn-small webhook-redeliver',
        'data-needs-scope': 'operate',
        onclick: () => void redeliver(hook),
      },
      'Redeliver',
    );
    return h(
      'tr',
      { class: 'webhook', dataset: { id: hook.id, state: hook.state } },
      h('td', {}, h('span', { class: `pill webhook-state webhook-${hook.state}` }, hook.state)),
      h(
        'td',
        { class: 'webhook-name', title: hook.url },
        h('strong', {}, hook.name),
        ' ',
        h('span', { class: 'mono small' }, url),
      ),
      h('td', { class: 'mono small webhook-types', title: hook.types.join('\n') }, hook.types.join(', ')),
      h('td', { class: 'num webhook-delivered' }, String(hook.deliveredSeq)),
      h('td', { class: 'num webhook-backlog' }, String(hook.backlog)),
      h(
        'td',
        { class: 'small webhook-last', title: hook.lastAttemptAt ?? '' },
        hook.lastAttemptAt === null ? '—' : formatRelative(hook.lastAttemptAt),
      ),
      h('td', { class: 'num webhook-status' }, lastOutcome(hook)),
      h('td', { class: 'actions' }, enable, ' ', again),
    );
  };

  const refresh = async () => {
    // webhooks.list needs operate: a read or talk session does not ask (each refusal would be an auth.denied event).
    if (scope !== 'operate') {
      count.textContent = '';
      body.replaceChildren(
        h('tr', { class: 'empty' }, h('td', { colspan: 8 }, 'Webhooks are shown to an operate token only.')),
      );
      return;
    }
    const hooks = await client.webhooks.list();
    const healthy = hooks.filter((w) => w.state === 'ok').length;
    count.textContent = `${healthy} ok · ${hooks.length} in all`;
    const byName = [...hooks].sort((a, b) => (a.name === b.name ? (a.id < b.id ? -1 : 1) : a.name < b.name ? -1 : 1));
    body.replaceChildren(
      ...(byName.length === 0
        ? [
            h(
              'tr',
              { class: 'empty' },
              h('td', { colspan: 8 }, 'No webhooks yet: add one with vigil webhooks add URL --types agent.reply.'),
            ),
          ]
        : byName.map(row)),
    );
  };
  const soon = throttle(refresh, 300);

  return {
    refresh,
    onEvent(event) {
      if (WEBHOOK_EVENTS.has(event.type)) soon();
    },
  };
}
