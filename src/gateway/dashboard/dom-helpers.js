// @ts-check
/** Small DOM and formatting helpers the panels share; every text goes in through textContent, never as HTML. */

/** @typedef {string | number | boolean | null | undefined} AttrValue An attribute's or a data- attribute's value. */

/**
 * Builds an element: `h('li', { class: 'goal', dataset: { id } }, 'text', child)`.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, AttrValue | ((event: never) => void) | Record<string, AttrValue>> | null} [attrs]
 * @param {Array<Node | string | number | null | undefined | false>} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'dataset' && typeof value === 'object') {
      // An absent value leaves its data- attribute out (Object.assign would write "undefined").
      for (const [name, data] of Object.entries(value)) {
        if (data !== undefined && data !== null) el.dataset[name] = String(data);
      }
    } else if (key.startsWith('on') && typeof value === 'function')
      el.addEventListener(key.slice(2), /** @type {EventListener} */ (value));
    // An object or a function anywhere else is a mistake: never written as "[object Object]" or as source text.
    else if (typeof value !== 'object' && typeof value !== 'function')
      el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'object' ? child : String(child));
  }
  return el;
}

/**
 * The element with `id`, typed by the caller; fails loudly when the page and the script disagree.
 * @template {HTMLElement} T
 * @param {string} id
 * @returns {T}
 */
export function byId(id) {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`The page has no element #${id}.`);
  return /** @type {T} */ (el);
}

/**
 * Runs `fn` at most once per `ms`, always once more after the last call (so the final state is never missed).
 * @param {() => void | Promise<void>} fn
 * @param {number} ms
 * @returns {() => void}
 */
export function throttle(fn, ms) {
  let last = 0;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const run = () => {
    timer = undefined;
    last = Date.now();
    void Promise.resolve(fn()).catch((err) => console.warn(err));
  };
  return () => {
    if (timer !== undefined) return;
    const wait = Math.max(0, last + ms - Date.now());
    timer = setTimeout(run, wait);
  };
}

/**
 * The same type filter the gateway applies: exact types or prefixes ending in `*`; none matches everything.
 * @param {string[]} patterns
 * @returns {(type: string) => boolean}
 */
export function typeMatcher(patterns) {
  if (patterns.length === 0 || patterns.includes('*')) return () => true;
  const exact = new Set(patterns.filter((p) => !p.endsWith('*')));
  const prefixes = patterns.filter((p) => p.endsWith('*')).map((p) => p.slice(0, -1));
  return (type) => exact.has(type) || prefixes.some((prefix) => type.startsWith(prefix));
}

// A 24-hour clock: compact, and unambiguous on an operator's screen.
const timeFormat = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});
const shortFormat = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});
const dateTimeFormat = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

/** @param {string | number | Date} at @returns {string} Local wall-clock time, seconds included. */
export const formatTime = (at) => timeFormat.format(new Date(at));

const clockFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/** @param {string | number | Date} at @returns {string} Local hours and minutes. */
export const formatClock = (at) => clockFormat.format(new Date(at));

/** @param {string | number | Date} at @returns {string} Local date and time, in full. */
export const formatDateTime = (at) => dateTimeFormat.format(new Date(at));

/** @param {string | number | Date} at @returns {string} The time alone if it is today, else a short date and time. */
export function formatWhen(at) {
  const date = new Date(at);
  return date.toDateString() === new Date().toDateString() ? timeFormat.format(date) : shortFormat.format(date);
}

/** @param {number} ms @returns {string} A duration as `3d 19h`, `3h 05m`, `4m 10s` or `12s`. */
export function formatDuration(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  // Days from two on (a weekly schedule's next firing); under that, hours read better (`30h 05m`).
  if (s >= 2 * 86_400) return `${Math.floor(s / 86_400)}d ${String(Math.floor((s % 86_400) / 3600)).padStart(2, '0')}h`;
  if (s >= 3600) return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}

/** @param {string | number} at @returns {string} `in 4h 10m` or `12s ago`. */
export function formatRelative(at) {
  const delta = new Date(at).getTime() - Date.now();
  return delta >= 0 ? `in ${formatDuration(delta)}` : `${formatDuration(-delta)} ago`;
}

/** @param {number} bytes @returns {string} `2.4 KiB`. */
export function formatBytes(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
}

/** @param {number} usd @returns {string} `$1.23` (four decimals below a cent, where thinks are priced). */
export function formatUsd(usd) {
  return Math.abs(usd) > 0 && Math.abs(usd) < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/**
 * Shows a short notice in the corner.
 * @param {string} message
 * @param {'info' | 'ok' | 'error'} [kind]
 */
export function toast(message, kind = 'info') {
  const host = byId('toasts');
  const note = h('div', { class: `toast toast-${kind}`, role: kind === 'error' ? 'alert' : 'status' }, message);
  host.append(note);
  setTimeout(() => note.remove(), kind === 'error' ? 8000 : 4000);
}

/**
 * The message to show for a failed call.
 * @param {unknown} err
 * @returns {string}
 */
export function describeFailure(err) {
  if (err instanceof Error) {
    const code = /** @type {{ code?: unknown }} */ (err).code;
    return typeof code === 'number' ? `${err.message} (${code})` : err.message;
  }
  return String(err);
}

/**
 * Lets `work` run without waiting for it; a failure goes to the console with what was being done (a bare `void`
 * would leave it an unhandled rejection). For work whose failure the user must see, `.catch` with a toast instead.
 * @param {Promise<unknown>} work
 * @param {string} what
 */
export function runDetached(work, what) {
  work.catch((err) => console.warn(`${what} failed: ${describeFailure(err)}`));
}
