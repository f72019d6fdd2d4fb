// @ts-check
/** The checkpoints panel: the newest checkpoints with create, and restore behind the gateway's own -32001 confirmation. */
import {
  byId,
  describeFailure,
  formatBytes,
  formatDateTime,
  formatWhen,
  h,
  runDetached,
  throttle,
  toast,
} from './dom-helpers.js';
import { RpcError } from './vigil-client.js';

/** @typedef {import('./dashboard-app.js').Client} Client */
/** @typedef {import('./dashboard-app.js').Panel} Panel */
/** @typedef {import('./vigil-client.js').RpcResult<'checkpoint.list'>[number]} CheckpointSummary */
/** @typedef {import('./vigil-client.js').RestoreConfirmation} RestoreConfirmation */

const CONFIRMATION_REQUIRED = -32001;

/**
 * @param {Client} client
 * @param {() => void} onRestored Called once a restore is done, so every panel reloads.
 * @returns {Panel}
 */
export function createCheckpointsPanel(client, onRestored) {
  const body = byId('checkpoints');
  const create = /** @type {HTMLButtonElement} */ (byId('checkpoint-create'));
  const dialog = /** @type {HTMLDialogElement} */ (byId('restore-dialog'));
  /** The id just created, highlighted once listed. @type {string | null} */
  let fresh = null;

  /** @param {CheckpointSummary} checkpoint */
  const row = (checkpoint) =>
    h(
      'tr',
      { dataset: { id: checkpoint.id }, class: checkpoint.id === fresh ? 'fresh' : null },
      h(
        'td',
        null,
        h(
          'time',
          { datetime: checkpoint.createdAt, title: formatDateTime(checkpoint.createdAt) },
          formatWhen(checkpoint.createdAt),
        ),
      ),
      h('td', { class: 'num' }, checkpoint.beatCount.toLocaleString()),
      h('td', { class: 'num' }, formatBytes(checkpoint.sizeBytes)),
      h('td', { class: 'mono id', title: `${checkpoint.id} (format ${checkpoint.formatVersion})` }, checkpoint.id),
      h(
        'td',
        { class: 'actions' },
        h(
          'button',
          {
            type: 'button',
            class: 'btn btn-small',
            'data-needs-scope': 'operate',
            onclick: () => runDetached(restore(checkpoint.id), 'restoring a checkpoint'),
          },
          'Restore',
        ),
      ),
    );

  const refresh = async () => {
    const checkpoints = await client.checkpoint.list({ limit: 25 });
    body.replaceChildren(
      ...(checkpoints.length === 0
        ? [h('tr', null, h('td', { colspan: 5, class: 'empty' }, 'No checkpoints yet.'))]
        : checkpoints.map(row)),
    );
  };
  const soon = throttle(refresh, 500);

  create.addEventListener('click', () => {
    create.disabled = true;
    create.textContent = 'Creating…';
    client.checkpoint
      .create()
      .then((made) => {
        fresh = made.id;
        toast(`Checkpoint ${made.id} taken at beat ${made.beatCount} (${formatBytes(made.sizeBytes)}).`, 'ok');
        return refresh();
      })
      .catch((err) => toast(`Checkpoint failed: ${describeFailure(err)}`, 'error'))
      .finally(() => {
        create.disabled = false;
        create.textContent = 'Create checkpoint';
      });
  });

  /**
   * Asks the gateway first: without `confirm` it answers -32001 with what a restore would bring back, which the
   * dialog shows; only the operator's confirmation sends `confirm: true`.
   * @param {string} id
   */
  async function restore(id) {
    try {
      const done = await client.checkpoint.restore({ id });
      restored(done);
    } catch (err) {
      if (!(err instanceof RpcError) || err.code !== CONFIRMATION_REQUIRED) {
        toast(`Restore failed: ${describeFailure(err)}`, 'error');
        return;
      }
      const data = /** @type {RestoreConfirmation} */ (err.data);
      byId('restore-message').textContent = err.message;
      byId('restore-id').textContent = data.id;
      byId('restore-beat').textContent = data.beatCount.toLocaleString();
      byId('restore-created').textContent = formatDateTime(data.createdAt);
      dialog.returnValue = '';
      dialog.showModal();
      /** @type {string} */
      const answer = await new Promise((resolve) =>
        dialog.addEventListener('close', () => resolve(dialog.returnValue), { once: true }),
      );
      if (answer !== 'confirm') return;
      try {
        restored(await client.checkpoint.restore({ id: data.id, confirm: true }));
      } catch (failure) {
        toast(`Restore failed: ${describeFailure(failure)}`, 'error');
      }
    }
  }

  /** @param {{ restored: string, beatCount: number }} done */
  function restored(done) {
    toast(`Restored ${done.restored}: the agent runs from beat ${done.beatCount}.`, 'ok');
    onRestored();
  }

  return {
    refresh,
    onEvent(event) {
      if (event.type.startsWith('checkpoint.')) soon();
    },
  };
}
