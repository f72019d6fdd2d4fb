// @ts-check
/** The heartbeat panel and the top bar: beat count (live from `heartbeat.beat`), phase, interval, awake/dormant with wake time. */
import { beatsPerMinute, forgetOldBeats } from './beat-rate.js';
import { byId, formatDuration, formatRelative, formatTime, runDetached } from './dom-helpers.js';

/** @typedef {import('./dashboard-app.js').Client} Client */
/** @typedef {import('./dashboard-app.js').Shared} Shared */
/** @typedef {import('./dashboard-app.js').Panel} Panel */
/** @typedef {import('./vigil-client.js').VigilEvent} VigilEvent */
/** @typedef {import('./vigil-client.js').RpcResult<'heartbeat.status'>} HeartbeatStatus */

/**
 * @param {Client} client
 * @param {Shared} shared
 * @returns {Panel}
 */
export function createHeartbeatPanel(client, shared) {
  const el = {
    beat: byId('hb-beat'),
    rate: byId('hb-rate'),
    state: byId('hb-state'),
    phase: byId('hb-phase'),
    interval: byId('hb-interval'),
    activity: byId('hb-activity'),
    wake: byId('hb-wake'),
    restored: byId('hb-restored'),
    pending: byId('hb-pending'),
    phaseBar: byId('hb-phase-bar'),
    phaseLegend: byId('hb-phase-legend'),
    thinker: byId('meta-thinker'),
    version: byId('meta-version'),
    uptime: byId('meta-uptime'),
  };
  /** @type {HeartbeatStatus | null} */
  let status = null;
  let beatCount = -1;
  let intervalMs = -1;
  /** @type {{ sense: number, think: number, integrate: number } | null} */
  let phaseMs = null;
  /** @type {string | null} */
  let wakeAt = null;
  /** The agent's times (ms) of the beats in the rate's window, oldest first. @type {number[]} */
  const beatTimes = [];
  // The agent's clock less this page's monotonic one, from the newest beat: replayed beats carry their own old times.
  let agentClockOffset = Number.NEGATIVE_INFINITY;
  let frame = 0;

  const render = () => {
    frame = 0;
    el.beat.textContent = beatCount < 0 ? '—' : beatCount.toLocaleString();
    const agentNow = performance.now() + agentClockOffset;
    forgetOldBeats(beatTimes, agentNow);
    const rate = beatsPerMinute(beatTimes, agentNow);
    el.rate.textContent = rate === null ? '—' : Math.round(rate).toLocaleString();
    el.interval.textContent = intervalMs < 0 ? '—' : `${Math.round(intervalMs).toLocaleString()} ms`;
    if (phaseMs !== null) {
      const { sense, think, integrate } = phaseMs;
      const total = Math.max(sense + think + integrate, 0.001);
      const segments = /** @type {HTMLElement[]} */ ([...el.phaseBar.children]);
      [sense, think, integrate].forEach((ms, i) => {
        const seg = segments[i];
        if (seg !== undefined) seg.style.flexGrow = String(Math.max(ms / total, 0.02));
      });
      el.phaseLegend.textContent = `last beat ${fmtMs(total)} · sense ${fmtMs(sense)} · think ${fmtMs(think)} · integrate ${fmtMs(integrate)}`;
    }
    if (status === null) return;
    el.state.textContent = status.state;
    el.state.dataset['state'] = status.state;
    el.phase.textContent = status.phase;
    el.phase.dataset['phase'] = status.phase;
    el.activity.textContent = status.activity.replace('_', ' ');
    el.restored.textContent = status.restoredFrom === null ? '—' : shortId(status.restoredFrom);
    el.restored.title = status.restoredFrom ?? '';
    el.pending.textContent = String(status.pendingMessages);
    // Dormant: the agent.sleeping event names the wake time; without one, the budget's daily reset is it.
    const wake = status.state === 'dormant' ? (wakeAt ?? shared.budget?.resetsAt ?? null) : null;
    el.wake.textContent =
      status.state === 'awake'
        ? 'awake now'
        : wake === null
          ? 'on top-up'
          : `${formatTime(wake)} (${formatRelative(wake)})`;
    el.thinker.textContent = `thinker: ${status.thinker}`;
    el.version.textContent = `v${status.version}`;
    el.uptime.textContent = `up ${formatDuration(Date.now() - Date.parse(status.startedAt))}`;
  };
  const schedule = () => {
    if (frame === 0) frame = requestAnimationFrame(render);
  };

  return {
    async refresh() {
      status = await client.heartbeat.status();
      // A poll may answer a beat behind the live feed: it never moves the count backwards (a restore resets it first).
      beatCount = Math.max(beatCount, status.beatCount);
      intervalMs = status.intervalMs;
      schedule();
    },
    onEvent(event) {
      switch (event.type) {
        case 'heartbeat.beat':
          beatCount = event.beatCount;
          intervalMs = event.intervalMs;
          phaseMs = event.phaseMs;
          {
            const at = Date.parse(event.at);
            beatTimes.push(at);
            agentClockOffset = Math.max(agentClockOffset, at - performance.now());
          }
          schedule();
          break;
        case 'heartbeat.started':
        case 'checkpoint.restored':
          beatCount = -1;
          runDetached(this.refresh(), 'refreshing the heartbeat');
          break;
        case 'agent.sleeping':
          wakeAt = event.wakeAt;
          runDetached(this.refresh(), 'refreshing the heartbeat');
          break;
        case 'agent.waking':
          wakeAt = null;
          runDetached(this.refresh(), 'refreshing the heartbeat');
          break;
        default:
          break;
      }
    },
  };
}

/** @param {number} ms */
const fmtMs = (ms) => (ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`);

/** @param {string} id */
const shortId = (id) => (id.length > 14 ? `${id.slice(0, 12)}…` : id);
