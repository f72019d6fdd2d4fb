// @ts-check
/** The affect panel: the five dimensions sampled once a second and plotted over the last minutes with uPlot. */
import uPlot from 'uplot';
import { byId, formatTime, h } from './dom-helpers.js';

/** @typedef {import('./dashboard-app.js').Client} Client */
/** @typedef {import('./dashboard-app.js').Panel} Panel */
/** @typedef {import('./vigil-client.js').RpcResult<'affect.get'>} AffectView */

const WINDOW_S = 5 * 60;
// Until five minutes have been sampled, the chart spans at least this much, so a fresh page is not all zoom.
const MIN_SPAN_S = 30;
// Samples survive a reload of the tab (the daemon keeps no affect history to ask for).
const STORAGE_KEY = 'vigil.affect';
/** @type {ReadonlyArray<{ key: 'valence' | 'arousal' | 'dominance' | 'certainty' | 'goalCongruence', label: string, color: string }>} */
const DIMENSIONS = [
  { key: 'valence', label: 'valence', color: '#3fd0b0' },
  { key: 'arousal', label: 'arousal', color: '#f2b84b' },
  { key: 'dominance', label: 'dominance', color: '#5aa9ff' },
  { key: 'certainty', label: 'certainty', color: '#b18cff' },
  { key: 'goalCongruence', label: 'goal fit', color: '#ff7a90' },
];

/**
 * @param {Client} client
 * @returns {Panel}
 */
export function createAffectPanel(client) {
  const host = byId('affect-chart');
  const legend = byId('affect-legend');
  const emotion = byId('affect-emotion');
  const { times, series } = loadSamples();
  let sampled = 0;
  const values = DIMENSIONS.map((d) =>
    h(
      'span',
      { class: 'affect-value' },
      h('i', { class: 'swatch', dataset: { dim: d.key } }),
      d.label,
      ' ',
      h('b', null, '—'),
    ),
  );
  legend.replaceChildren(...values);
  values.forEach((v, i) => {
    const swatch = /** @type {HTMLElement} */ (v.querySelector('.swatch'));
    swatch.style.background = DIMENSIONS[i]?.color ?? '';
  });

  const axis = {
    stroke: '#8593a3',
    grid: { stroke: '#1f2731', width: 1 },
    ticks: { stroke: '#1f2731', width: 1 },
    font: '11px system-ui, sans-serif',
  };
  const chart = new uPlot(
    {
      width: Math.max(host.clientWidth, 200),
      height: Math.max(host.clientHeight, 100),
      legend: { show: false },
      cursor: { drag: { x: false, y: false }, points: { size: 6 } },
      scales: {
        x: {
          time: true,
          // min and max are null while there is no sample yet.
          range: (_u, min, max) => {
            const hi = max ?? Date.now() / 1000;
            return [Math.min(min ?? hi, hi - MIN_SPAN_S), hi];
          },
        },
        y: { range: [-1, 1] },
      },
      axes: [
        { ...axis, space: 70, values: (_u, splits) => splits.map((s) => formatTime(s * 1000)) },
        {
          ...axis,
          size: 34,
          splits: () => [-1, -0.5, 0, 0.5, 1],
          values: (_u, splits) => splits.map((v) => v.toFixed(1)),
        },
      ],
      series: [
        {},
        ...DIMENSIONS.map((d) => ({ label: d.label, stroke: d.color, width: 1.75, points: { show: false } })),
      ],
    },
    [times, ...series],
    host,
  );
  window.addEventListener('pagehide', () => saveSamples(times, series));
  new ResizeObserver(() =>
    chart.setSize({ width: Math.max(host.clientWidth, 200), height: Math.max(host.clientHeight, 100) }),
  ).observe(host);

  return {
    async refresh() {
      const affect = await client.affect.get();
      const now = Date.now() / 1000;
      times.push(now);
      DIMENSIONS.forEach((d, i) => series[i]?.push(affect[d.key]));
      while (times.length > 0 && (times[0] ?? now) < now - WINDOW_S) {
        times.shift();
        for (const s of series) s.shift();
      }
      chart.setData([times, ...series]);
      sampled += 1;
      if (sampled % 5 === 0) saveSamples(times, series);
      emotion.textContent = affect.emotion;
      DIMENSIONS.forEach((d, i) => {
        const b = values[i]?.querySelector('b');
        if (b) b.textContent = affect[d.key].toFixed(2);
      });
    },
  };
}

/**
 * The samples this tab kept, without those older than the window.
 * @returns {{ times: number[], series: number[][] }}
 */
function loadSamples() {
  const empty = { times: [], series: DIMENSIONS.map(() => []) };
  try {
    // What this tab wrote (saveSamples), or a damaged or older entry: the shape is checked before use.
    /** @type {unknown} */
    const parsed = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null');
    const saved = /** @type {{ times?: number[], series?: number[][] } | null} */ (parsed);
    if (
      saved === null ||
      !Array.isArray(saved.times) ||
      !Array.isArray(saved.series) ||
      saved.series.length !== DIMENSIONS.length
    )
      return empty;
    const from = saved.times.findIndex((t) => t >= Date.now() / 1000 - WINDOW_S);
    if (from < 0) return empty;
    return { times: saved.times.slice(from), series: saved.series.map((s) => s.slice(from)) };
  } catch {
    return empty;
  }
}

/**
 * @param {number[]} times
 * @param {number[][]} series
 */
function saveSamples(times, series) {
  try {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ times, series }));
  } catch {
    // A full storage loses the history across reloads, nothing else.
  }
}
