// @ts-check
/** The schedules panel: every schedule with its timing, next and last firing, counts, and pause/resume and remove. */
import {
  byId,
  describeFailure,
  formatDuration,
  formatRelative,
  formatWhen,
  h,
  throttle,
  toast,
} from './dom-helpers.js';

/** @typedef {import('./dashboard-app.js').Client} Client */
/** @typedef {import('./dashboard-app.js').Panel} Panel */
/** @typedef {import('./vigil-client.js').RpcResult<'schedules.list'>[number]} ScheduleView */

// After these the list has changed (a firing moves next/last; a change adds, removes, pauses or resumes).
const SCHEDULE_EVENTS = new Set(['schedule.fired', 'schedule.missed', 'schedule.changed', 'checkpoint.restored']);
const TEXT_CHARS = 120;

/** @param {ScheduleView} schedule @returns {string} When it fires, as the operator wrote it. */
function timing(schedule) {
  if (schedule.cron !== undefined) return `cron ${schedule.cron} (${schedule.timezone})`;
  if (schedule.everyMs !== undefined) return `every ${formatDuration(schedule.everyMs)}`;
  return schedule.at === undefined ? '—' : `once at ${formatWhen(schedule.at)}`;
}

/**
 * @param {Client} client
 * @returns {Panel}
 */
export function createSchedulesPanel(client) {
  const body = byId('schedules');
  const count = byId('schedules-count');

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

  /** @param {ScheduleView} schedule */
  const row = (schedule) => {
    const text = schedule.text.length > TEXT_CHARS ? `${schedule.text.slice(0, TEXT_CHARS - 1)}…` : schedule.text;
    const done = schedule.nextAt === null && !schedule.paused;
    const state = schedule.paused ? 'paused' : done ? 'done' : 'active';
    const toggle = schedule.paused
      ? h(
          'button',
          {
            type: 'button',
            class: 'btn btn-small schedule-resume',
            'data-needs-scope': 'operate',
            onclick: () => act(`Resumed ${schedule.name}`, client.schedules.resume({ id: schedule.id })),
          },
          'Resume',
        )
      : done
        ? null
        : h(
            'button',
            {
              type: 'button',
              class: 'btn btn-small schedule-pause',
              'data-needs-scope': 'operate',
              onclick: () => act(`Paused ${schedule.name}`, client.schedules.pause({ id: schedule.id })),
            },
            'Pause',
          );
    const remove = h(
      'button',
      {
        type: 'button',
        class: 'btn btn-small btn-danger schedule-remove',
        'data-needs-scope': 'operate',
        onclick: () => act(`Removed ${schedule.name}`, client.schedules.remove({ id: schedule.id })),
      },
      'Remove',
    );
    return h(
      'tr',
      { class: 'schedule', dataset: { id: schedule.id, state, by: schedule.createdBy } },
      h('td', {}, h('span', { class: `pill schedule-state schedule-${state}` }, state)),
      h('td', { class: 'schedule-name', title: schedule.text }, h('strong', {}, schedule.name), ' ', text),
      h('td', { class: 'mono small schedule-timing' }, timing(schedule)),
      h(
        'td',
        { class: 'small schedule-next', title: schedule.nextAt ?? '' },
        schedule.nextAt === null ? '—' : formatRelative(schedule.nextAt),
      ),
      h(
        'td',
        { class: 'muted small schedule-last', title: schedule.lastFiredAt ?? '' },
        schedule.lastFiredAt === null ? 'never' : formatRelative(schedule.lastFiredAt),
      ),
      h(
        'td',
        { class: 'num schedule-counts', title: `${schedule.fired} fired, ${schedule.missed} missed` },
        schedule.missed === 0 ? String(schedule.fired) : `${schedule.fired} · ${schedule.missed} missed`,
      ),
      h('td', { class: 'muted small' }, schedule.createdBy),
      h('td', { class: 'actions' }, toggle, ' ', remove),
    );
  };

  const refresh = async () => {
    const schedules = await client.schedules.list();
    const active = schedules.filter((s) => !s.paused && s.nextAt !== null).length;
    count.textContent = `${active} active · ${schedules.length} in all`;
    const bySoonest = [...schedules].sort((a, b) => {
      if (a.nextAt === b.nextAt) return a.name < b.name ? -1 : 1;
      if (a.nextAt === null) return 1;
      if (b.nextAt === null) return -1;
      return a.nextAt < b.nextAt ? -1 : 1;
    });
    body.replaceChildren(
      ...(bySoonest.length === 0
        ? [
            h(
              'tr',
              { class: 'empty' },
              h('td', { colspan: 8 }, 'No schedules yet: add one with vigil schedules add, or ask the agent.'),
            ),
          ]
        : bySoonest.map(row)),
    );
  };
  const soon = throttle(refresh, 300);

  return {
    refresh,
    onEvent(event) {
      if (SCHEDULE_EVENTS.has(event.type)) soon();
    },
  };
}
