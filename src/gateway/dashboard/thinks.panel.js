// @ts-check
/** The thinks panel: recent thinks with their cost and cache ratio (thinks.list); one opens to its calls and prompt sections (thinks.get). */
import { byId, describeFailure, formatDateTime, formatWhen, h, runDetached, throttle, toast } from './dom-helpers.js';

/** @typedef {import('./dashboard-app.js').Client} Client */
/** @typedef {import('./dashboard-app.js').Panel} Panel */
/** @typedef {import('./vigil-client.js').RpcResult<'thinks.list'>[number]} ThinkSummary */
/** @typedef {import('./vigil-client.js').RpcResult<'thinks.get'>} ThinkTrace */

const SHOWN = 30;

/**
 * The share of the prompt read from the cache, as the CLI shows it.
 * @param {{ inputTokens: number, cacheReadTokens: number, cacheWriteTokens: number }} think
 * @returns {string}
 */
export function cacheRatioText(think) {
  const prompt = think.inputTokens + think.cacheReadTokens + think.cacheWriteTokens;
  return prompt === 0 ? '—' : `${Math.round((think.cacheReadTokens / prompt) * 100)}%`;
}

/** @param {number} usd */
const costText = (usd) => `$${usd.toFixed(usd > 0 && usd < 0.01 ? 6 : 4)}`;
/** @param {number} ms */
const msText = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`);
/** @param {number} n */
const tokensText = (n) => n.toLocaleString();

/**
 * @param {Client} client
 * @returns {Panel}
 */
export function createThinksPanel(client) {
  const body = byId('thinks');
  const count = byId('thinks-count');
  const dialog = /** @type {HTMLDialogElement} */ (byId('think-dialog'));

  /** @param {ThinkSummary} think */
  const row = (think) =>
    h(
      'tr',
      {
        dataset: { id: think.id, failed: think.error === undefined ? null : 'true' },
        tabindex: 0,
        title: `Open think ${think.id}`,
        onclick: () => runDetached(open(think.id), 'opening a think'),
        onkeydown: /** @param {KeyboardEvent} e */ (e) =>
          e.key === 'Enter' && runDetached(open(think.id), 'opening a think'),
      },
      h(
        'td',
        null,
        h(
          'time',
          { datetime: new Date(think.startedAt).toISOString(), title: formatDateTime(think.startedAt) },
          formatWhen(think.startedAt),
        ),
      ),
      h('td', null, think.reason),
      h('td', { class: 'mono' }, think.model),
      h('td', { class: 'num' }, String(think.calls.length)),
      h('td', { class: 'num' }, String(think.toolCalls.length)),
      h('td', { class: 'num', dataset: { field: 'cache' } }, cacheRatioText(think)),
      h('td', { class: 'num', dataset: { field: 'cost' } }, costText(think.costUsd)),
      h('td', { class: 'num' }, msText(think.durationMs)),
      h(
        'td',
        { class: think.error === undefined ? null : 'bad' },
        think.error === undefined ? think.stopReason : think.error.code,
      ),
    );

  const refresh = async () => {
    const thinks = await client.thinks.list({ limit: SHOWN });
    const total = thinks.reduce((sum, t) => sum + t.costUsd, 0);
    count.textContent = thinks.length === 0 ? '' : `last ${thinks.length} · ${costText(total)}`;
    body.replaceChildren(
      ...(thinks.length === 0
        ? [h('tr', null, h('td', { colspan: 9, class: 'empty' }, 'No thinks yet.'))]
        : thinks.map(row)),
    );
  };
  const soon = throttle(refresh, 500);

  /** @param {string} id */
  async function open(id) {
    /** @type {ThinkTrace} */
    let think;
    try {
      think = await client.thinks.get({ id });
    } catch (err) {
      toast(`Think ${id}: ${describeFailure(err)}`, 'error');
      return;
    }
    byId('think-title').textContent = `Think ${think.id}`;
    byId('think-facts').replaceChildren(
      ...[
        ['Reason', think.reason],
        ['Turns', think.turnIds.join(', ') || '—'],
        ['Model', think.model],
        ['Started', formatDateTime(think.startedAt)],
        ['Duration', msText(think.durationMs)],
        [
          'Stop',
          think.error === undefined
            ? think.stopReason
            : `${think.stopReason} (${think.error.code}: ${think.error.message})`,
        ],
        [
          'Tokens',
          `in ${tokensText(think.inputTokens)} · out ${tokensText(think.outputTokens)} · cache read ${tokensText(think.cacheReadTokens)} · write ${tokensText(think.cacheWriteTokens)}`,
        ],
        ['Cache ratio', cacheRatioText(think)],
        ['Cost', costText(think.costUsd)],
      ].map(([term, value]) => h('div', null, h('dt', null, term), h('dd', null, value))),
    );
    byId('think-calls').replaceChildren(
      ...(think.calls.length === 0
        ? [h('tr', null, h('td', { colspan: 8, class: 'empty' }, 'No model calls.'))]
        : think.calls.map((call, i) =>
            h(
              'tr',
              null,
              h('td', { class: 'num' }, String(i + 1)),
              h('td', { class: 'num' }, tokensText(call.inputTokens)),
              h('td', { class: 'num' }, tokensText(call.outputTokens)),
              h('td', { class: 'num' }, tokensText(call.cacheReadTokens)),
              h('td', { class: 'num' }, tokensText(call.cacheWriteTokens)),
              h('td', { class: 'num' }, costText(call.costUsd)),
              h(
                'td',
                { class: 'num' },
                `${msText(call.durationMs)}${call.retries > 0 ? ` · ${call.retries} retr.` : ''}`,
              ),
              h(
                'td',
                { class: call.error === undefined ? null : 'bad', title: call.error?.message ?? null },
                call.error === undefined ? (call.stopReason ?? '—') : call.error.type,
              ),
            ),
          )),
    );
    byId('think-tools').replaceChildren(
      ...(think.toolCalls.length === 0
        ? [h('li', { class: 'empty' }, 'No tool calls.')]
        : think.toolCalls.map((call) =>
            h(
              'li',
              { class: call.ok ? null : 'bad' },
              h('span', { class: 'mono' }, call.name),
              ` ${call.ok ? 'ok' : 'failed'} · ${msText(call.durationMs)} · ${call.resultBytes} B`,
            ),
          )),
    );
    const sectionTotal = think.sections.reduce((sum, s) => sum + s.tokens, 0);
    byId('think-sections').replaceChildren(
      ...(think.sections.length === 0
        ? [h('li', { class: 'empty' }, 'No prompt sections recorded.')]
        : think.sections.map((section) => {
            // Set through the CSSOM: the page's CSP forbids inline style attributes.
            const fill = h('span', { class: 'bar-fill' });
            fill.style.width = `${sectionTotal === 0 ? 0 : ((section.tokens / sectionTotal) * 100).toFixed(1)}%`;
            return h(
              'li',
              { dataset: { section: section.name } },
              h(
                'span',
                { class: 'section-name' },
                section.name,
                section.cached === true ? h('small', { class: 'muted' }, ' cached') : null,
              ),
              h('span', { class: 'bar', title: `${section.tokens} of ${sectionTotal} tokens` }, fill),
              h('span', { class: 'num' }, tokensText(section.tokens)),
              section.text === undefined
                ? null
                : h('details', null, h('summary', null, 'text'), h('pre', null, section.text)),
            );
          })),
    );
    dialog.showModal();
  }

  return {
    refresh,
    onEvent(event) {
      if (event.type === 'think.traced') soon();
    },
  };
}
