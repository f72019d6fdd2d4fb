// @ts-check
/** The event feed panel: the newest events, newest first, with the gateway's own type filter (exact or `prefix.*`). */
import { byId, formatTime, h, typeMatcher } from './dom-helpers.js';

/** @typedef {import('./dashboard-app.js').Panel} Panel */
/** @typedef {import('./vigil-client.js').VigilEvent} VigilEvent */
/** @typedef {import('./vigil-client.js').DroppedNotification} DroppedNotification */

// Beats are kept apart, so a fast heartbeat never pushes the rarer events out of the page.
const KEEP = 1000;
const KEEP_BEATS = 200;
const SHOWN = 150;
const CHIPS = ['agent.*', 'checkpoint.*', 'think.*', 'goal.*', 'memory.*', 'heartbeat.*'];
const ENVELOPE = new Set(['seq', 'type', 'at', 'beat']);

/**
 * @returns {Panel & { dropped(notice: DroppedNotification): void }}
 */
export function createEventsPanel() {
  const list = byId('events');
  const filter = /** @type {HTMLInputElement} */ (byId('events-filter'));
  const hideBeats = /** @type {HTMLInputElement} */ (byId('events-hide-beats'));
  const chips = byId('events-chips');
  const count = byId('events-count');
  /** @typedef {VigilEvent | { type: 'dropped', seq: number, notice: DroppedNotification }} Item */
  /** Everything but beats, oldest first. @type {Item[]} */
  const buffer = [];
  /** `heartbeat.beat` events, oldest first. @type {Item[]} */
  const beats = [];
  let matches = typeMatcher([]);
  let timer = 0;
  let renderedAt = 0;

  const readFilter = () => {
    const patterns = filter.value.split(/[\s,]+/).filter((p) => p !== '');
    matches = typeMatcher(patterns);
    for (const chip of chips.children) chip.classList.toggle('active', patterns.includes(chip.textContent ?? ''));
    render();
  };
  chips.replaceChildren(
    ...CHIPS.map((pattern) =>
      h(
        'button',
        {
          type: 'button',
          class: 'chip',
          onclick: () => {
            filter.value = filter.value.trim() === pattern ? '' : pattern;
            readFilter();
          },
        },
        pattern,
      ),
    ),
  );
  filter.addEventListener('input', readFilter);
  hideBeats.addEventListener('change', () => render());

  /** @param {VigilEvent} event */
  const row = (event) => {
    const payload = Object.fromEntries(Object.entries(event).filter(([key]) => !ENVELOPE.has(key)));
    const text = JSON.stringify(payload);
    return h(
      'li',
      { dataset: { type: event.type, seq: event.seq } },
      h('time', { datetime: event.at }, formatTime(event.at)),
      h('span', { class: 'seq' }, `#${event.seq}`),
      h('span', { class: 'etype', dataset: { group: event.type.split('.')[0] } }, event.type),
      h('span', { class: 'payload', title: text }, text === '{}' ? '' : text),
    );
  };

  function render() {
    timer = 0;
    renderedAt = Date.now();
    /** @type {HTMLElement[]} */
    const rows = [];
    // Newest first: walk both buffers back from their ends, merging by seq.
    let i = buffer.length - 1;
    let j = hideBeats.checked ? -1 : beats.length - 1;
    while (rows.length < SHOWN && (i >= 0 || j >= 0)) {
      const takeBeat = j >= 0 && (i < 0 || (beats[j]?.seq ?? 0) > (buffer[i]?.seq ?? 0));
      const item = takeBeat ? beats[j--] : buffer[i--];
      if (item === undefined) continue;
      if ('notice' in item) {
        rows.push(
          h(
            'li',
            { class: 'dropped' },
            `${item.notice.count} events skipped while this page fell behind (seq ${item.notice.firstSeq}–${item.notice.lastSeq})`,
          ),
        );
      } else if (matches(item.type)) {
        rows.push(row(item));
      }
    }
    list.replaceChildren(...(rows.length === 0 ? [h('li', { class: 'empty' }, 'No matching events yet.')] : rows));
    count.textContent = `${rows.length} shown · ${buffer.length + beats.length} kept`;
  }
  // At most five renders a second however fast events come (a 10 ms heartbeat sends a hundred).
  const schedule = () => {
    if (timer === 0) timer = window.setTimeout(render, Math.max(0, renderedAt + 200 - Date.now()));
  };

  return {
    async refresh() {},
    onEvent(event) {
      const into = event.type === 'heartbeat.beat' ? beats : buffer;
      into.push(event);
      const keep = into === beats ? KEEP_BEATS : KEEP;
      if (into.length > keep + 100) into.splice(0, into.length - keep);
      schedule();
    },
    dropped(notice) {
      buffer.push({ type: 'dropped', seq: notice.lastSeq, notice });
      schedule();
    },
  };
}
