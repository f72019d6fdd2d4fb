import { MemoryLevel } from 'memory-level';
import { describe, expect, it } from 'vitest';
import { createSimulatedClock } from '../../src/shared/clock.js';
import type { VigilDb } from '../../src/subsystems/store/vigil-db.js';
import { useRuntimes, type RuntimeHarness } from '../fixtures/runtime.fixture.js';
import { ScriptedThinker } from '../fixtures/scripted-thinker.js';

const start = useRuntimes();
const HOUR = 3_600_000;
const ms = (iso: string): number => Date.parse(iso);

/** A runtime whose simulated clock starts at `iso`. */
function startAt(iso: string, options: Parameters<typeof start>[0] = {}): Promise<RuntimeHarness> {
  return start({ ...options, clock: createSimulatedClock(ms(iso)) });
}

/** Jumps straight to 2 s before `iso`, then walks 6 s in 100 ms steps, so a firing due at `iso` happens on time and is answered. */
async function passThrough(h: RuntimeHarness, iso: string): Promise<void> {
  const before = ms(iso) - 2000 - h.clock.now();
  if (before > 0) await h.advance(before, before);
  await h.advance(6000, 100);
  await h.runtime.schedulesSettled();
  await h.settle();
}

/** Every turn a schedule fired ends in exactly one terminal event. */
function expectEachFiringAnsweredOnce(h: RuntimeHarness): void {
  for (const fired of h.ofType('schedule.fired')) {
    const endings = [...h.ofType('agent.reply'), ...h.ofType('agent.unanswered')].filter(
      (e) => e.turnId === fired.turnId,
    );
    expect(endings, `turn ${fired.turnId}`).toHaveLength(1);
  }
}

describe('schedules', () => {
  it('fires a Europe/Berlin cron at 08:00 local across the spring-forward, each firing a turn answered once', async () => {
    const h = await startAt('2026-03-28T12:00:00Z');
    const schedule = await h.runtime.addSchedule({
      text: 'morning summary',
      cron: '0 8 * * *',
      timezone: 'Europe/Berlin',
    });
    expect(schedule).toMatchObject({
      timezone: 'Europe/Berlin',
      catchUp: 'once',
      maxCatchUp: 10,
      nextAt: '2026-03-29T06:00:00.000Z',
      createdBy: 'operator',
    });
    await passThrough(h, '2026-03-29T06:00:00Z');
    await passThrough(h, '2026-03-30T06:00:00Z');
    expect(h.ofType('schedule.fired').map((e) => e.dueAt)).toEqual([
      '2026-03-29T06:00:00.000Z',
      '2026-03-30T06:00:00.000Z',
    ]);
    expect(h.ofType('schedule.fired').every((e) => !e.catchUp)).toBe(true);
    expect(h.ofType('agent.message').map((e) => [e.from, e.text])).toEqual([
      [`schedule:${schedule.id}`, 'morning summary'],
      [`schedule:${schedule.id}`, 'morning summary'],
    ]);
    expectEachFiringAnsweredOnce(h);
    expect(h.ofType('schedule.missed')).toEqual([]);
    const [listed] = h.runtime.listSchedules();
    expect(listed).toMatchObject({ nextAt: '2026-03-31T06:00:00.000Z', fired: 2, missed: 0 });
  });

  it('fires a Europe/Berlin cron at 08:00 local across the fall-back, and a gap-time cron once', async () => {
    const h = await startAt('2026-10-24T12:00:00Z');
    await h.runtime.addSchedule({ text: 'morning', cron: '0 8 * * *', timezone: 'Europe/Berlin' });
    await h.runtime.addSchedule({ text: 'night', cron: '30 2 * * *', timezone: 'Europe/Berlin' });
    // 02:30 happens twice on 2026-10-25 (00:30Z CEST, 01:30Z CET): it fires at the first only.
    await passThrough(h, '2026-10-25T00:30:00Z');
    await passThrough(h, '2026-10-25T01:30:00Z');
    await passThrough(h, '2026-10-25T07:00:00Z');
    expect(h.ofType('schedule.fired').map((e) => e.dueAt)).toEqual([
      '2026-10-25T00:30:00.000Z',
      '2026-10-25T07:00:00.000Z',
    ]);
    expectEachFiringAnsweredOnce(h);
  });

  it('fires an interval schedule every interval and a one-shot once', async () => {
    const h = await startAt('2026-06-01T10:00:00Z');
    const every = await h.runtime.addSchedule({ text: 'hourly check', everyMs: HOUR });
    const once = await h.runtime.addSchedule({ text: 'call the bank', at: '2026-06-01T11:30:00Z', name: 'bank' });
    await passThrough(h, '2026-06-01T11:00:00Z');
    await passThrough(h, '2026-06-01T11:30:00Z');
    await passThrough(h, '2026-06-01T12:00:00Z');
    await passThrough(h, '2026-06-01T13:00:00Z');
    const fired = h.ofType('schedule.fired').map((e) => [e.scheduleId, e.dueAt]);
    expect(fired).toEqual([
      [every.id, '2026-06-01T11:00:00.000Z'],
      [once.id, '2026-06-01T11:30:00.000Z'],
      [every.id, '2026-06-01T12:00:00.000Z'],
      [every.id, '2026-06-01T13:00:00.000Z'],
    ]);
    expectEachFiringAnsweredOnce(h);
    expect(h.runtime.listSchedules().find((s) => s.id === once.id)).toMatchObject({
      name: 'bank',
      nextAt: null,
      fired: 1,
      lastFiredAt: expect.any(String),
    });
  });

  it('wakes the heartbeat for a firing at once, whatever the beat interval', async () => {
    const slow = { beatMs: 600_000, beatMinMs: 600_000, beatMaxMs: 600_000 };
    const h = await startAt('2026-06-01T10:00:00Z', { config: slow });
    await h.runtime.addSchedule({ text: 'now-ish', at: '2026-06-01T10:00:05Z' });
    await h.advance(6000, 100);
    const [fired] = h.ofType('schedule.fired');
    expect(h.ofType('agent.reply').map((e) => e.turnId)).toEqual([fired!.turnId]);
    expect(h.clock.now()).toBeLessThan(ms('2026-06-01T10:00:07Z'));
  });

  it('treats a clock that jumped past firings as downtime: the catch-up policy and schedule.missed', async () => {
    const h = await startAt('2026-06-01T10:00:00Z');
    const s = await h.runtime.addSchedule({ text: 'tick', everyMs: HOUR });
    // One step of 2 h 10 min: the timer wakes long after 11:00 and 12:00 (a suspended laptop, an NTP correction).
    await h.advance(2 * HOUR + 600_000, 2 * HOUR + 600_000);
    await h.runtime.schedulesSettled();
    await h.advance(2000, 100);
    expect(h.ofType('schedule.missed')).toMatchObject([{ scheduleId: s.id, count: 2, policy: 'once', fired: 1 }]);
    expect(h.ofType('schedule.fired')).toMatchObject([
      { scheduleId: s.id, catchUp: true, dueAt: new Date(ms(s.nextAt!) + HOUR).toISOString() },
    ]);
    expectEachFiringAnsweredOnce(h);
  });

  it('pauses and resumes: nothing fires or is counted missed while paused', async () => {
    const h = await startAt('2026-06-01T10:00:00Z');
    const s = await h.runtime.addSchedule({ text: 'tick', everyMs: HOUR });
    expect(await h.runtime.pauseSchedule(s.id)).toMatchObject({ paused: true, nextAt: null });
    await passThrough(h, '2026-06-01T11:00:00Z');
    await passThrough(h, '2026-06-01T12:00:00Z');
    expect(h.ofType('schedule.fired')).toEqual([]);
    const resumed = await h.runtime.resumeSchedule(s.id);
    expect(resumed.paused).toBe(false);
    await passThrough(h, resumed.nextAt!);
    expect(h.ofType('schedule.fired')).toHaveLength(1);
    expect(h.ofType('schedule.missed')).toEqual([]);
    expect(h.ofType('schedule.changed').map((e) => e.change)).toEqual(['added', 'paused', 'resumed']);
    expect(await h.runtime.removeSchedule(s.id)).toBe(true);
    expect(h.runtime.listSchedules()).toEqual([]);
  });

  it('refuses bad input naming the field, and unknown ids', async () => {
    const h = await startAt('2026-06-01T10:00:00Z');
    const refused = async (params: unknown) =>
      h.runtime.addSchedule(params).then(
        () => null,
        (err: { code: string; message: string; data: Array<{ path: string[] }> }) => err,
      );
    expect(await refused({ text: 'x' })).toMatchObject({ code: 'RPC_INVALID_PARAMS', data: [{ path: ['cron'] }] });
    expect(await refused({ text: 'x', cron: '61 * * * *' })).toMatchObject({
      code: 'RPC_INVALID_PARAMS',
      message: expect.stringMatching(/cron: .*minute/),
    });
    expect(await refused({ text: 'x', cron: '0 0 8 * * *' })).toMatchObject({ data: [{ path: ['cron'] }] });
    expect(await refused({ text: 'x', everyMs: 1000 })).toMatchObject({ data: [{ path: ['everyMs'] }] });
    expect(await refused({ text: 'x', at: '2026-05-01T00:00:00Z' })).toMatchObject({
      message: expect.stringMatching(/at: .* is in the past/),
    });
    expect(await refused({ text: 'x', cron: '* * * * *', timezone: 'Mars/Olympus' })).toMatchObject({
      data: [{ path: ['timezone'] }],
    });
    expect(await refused({ text: 'x', everyMs: HOUR, catchUp: 'sometimes' })).toMatchObject({
      data: [{ path: ['catchUp'] }],
    });
    await expect(h.runtime.removeSchedule('s-nope')).rejects.toMatchObject({ code: 'SCHEDULE_NOT_FOUND' });
    await expect(h.runtime.pauseSchedule('s-nope')).rejects.toMatchObject({ code: 'SCHEDULE_NOT_FOUND' });
    await expect(h.runtime.resumeSchedule('s-nope')).rejects.toMatchObject({ code: 'SCHEDULE_NOT_FOUND' });
  });
});

describe('schedules across a restart', () => {
  it('catches up what fell due while down under each policy, and reports it with schedule.missed', async () => {
    const db: VigilDb = new MemoryLevel();
    const before = await startAt('2026-06-01T10:00:00Z', { db });
    const skip = await before.runtime.addSchedule({ text: 'skip me', everyMs: HOUR, catchUp: 'skip' });
    const once = await before.runtime.addSchedule({ text: 'once', everyMs: HOUR });
    const all = await before.runtime.addSchedule({ text: 'all', everyMs: HOUR, catchUp: 'all', maxCatchUp: 3 });
    await before.crash();

    // Down from 10:00 to 15:00:30: each fell due 5 times (11:00 … 15:00).
    const after = await startAt('2026-06-01T15:00:30Z', { db });
    await after.runtime.schedulesSettled();
    await after.advance(2000, 100);
    const missed = after.ofType('schedule.missed');
    expect(missed.map((e) => [e.scheduleId, e.count, e.policy, e.fired])).toEqual([
      [skip.id, 5, 'skip', 0],
      [once.id, 5, 'once', 1],
      [all.id, 5, 'all', 3],
    ]);
    expect(missed[0]).toMatchObject({
      firstDueAt: '2026-06-01T11:00:00.000Z',
      lastDueAt: '2026-06-01T15:00:00.000Z',
      exact: true,
    });
    const fired = after.ofType('schedule.fired');
    expect(fired.map((e) => [e.scheduleId, e.dueAt, e.catchUp])).toEqual([
      [once.id, '2026-06-01T15:00:00.000Z', true],
      [all.id, '2026-06-01T13:00:00.000Z', true],
      [all.id, '2026-06-01T14:00:00.000Z', true],
      [all.id, '2026-06-01T15:00:00.000Z', true],
    ]);
    expect(after.ofType('agent.message').find((e) => e.turnId === fired[0]!.turnId)?.text).toMatch(
      /^once\n\n\[Catch-up: this schedule fell due 5 times/,
    );
    expectEachFiringAnsweredOnce(after);
    // Back on time afterwards: the next firing of each is 16:00.
    expect(after.runtime.listSchedules().map((s) => s.nextAt)).toEqual(Array(3).fill('2026-06-01T16:00:00.000Z'));
    const metrics = await after.metrics.text();
    expect(metrics).toMatch(/^vigil_schedules_active 3$/m);
    expect(metrics).toMatch(/^vigil_schedule_firings_total\{kind="catch_up"\} 4$/m);
    expect(metrics).toMatch(/^vigil_schedule_missed_total\{policy="skip"\} 5$/m);
    expect(metrics).toMatch(/^vigil_schedule_missed_total\{policy="all"\} 5$/m);
  });

  it('answers a firing cut off by a crash right after it was written, and never fires it again', async () => {
    const db: VigilDb = new MemoryLevel();
    const before = await startAt('2026-06-01T10:00:00Z', { db });
    await before.runtime.addSchedule({ text: 'tick', everyMs: HOUR });
    // Kill -9 as soon as the firing is durable: the heartbeat never sees the turn, no reply is written.
    const internals = before.runtime as unknown as { core: { actor: { stop(): void }; stoppedFlag: boolean } };
    before.bus.events$.subscribe((event) => {
      if (event.type !== 'schedule.fired') return;
      internals.core.actor.stop();
      internals.core.stoppedFlag = true;
    });
    await passThrough(before, '2026-06-01T11:00:00Z');
    const [fired] = before.ofType('schedule.fired');
    expect(before.ofType('agent.reply')).toEqual([]);

    const after = await startAt('2026-06-01T11:00:10Z', { db });
    await after.advance(3000, 100);
    expect(after.ofType('schedule.fired')).toEqual([]);
    expect(after.ofType('schedule.missed')).toEqual([]);
    expect(after.ofType('agent.reply').map((e) => e.turnId)).toEqual([fired!.turnId]);
  });

  it('waits while asleep over the budget (no think), then catches up after the wake', async () => {
    const thinker = new ScriptedThinker();
    thinker.costMicroUsd = 450_000;
    const h = await startAt('2026-06-01T10:00:00Z', {
      thinker,
      config: { dailyBudgetUsd: 1, windDownPct: 90, hardStopPct: 110 },
    });
    await h.runtime.send({ text: 'one' });
    await h.advance(1000);
    await h.runtime.send({ text: 'two' });
    await h.advance(1000);
    expect(h.runtime.status().state).toBe('dormant');
    const thinks = thinker.calls.length;
    const tick = await h.runtime.addSchedule({ text: 'tick', everyMs: HOUR, catchUp: 'all' });
    const first = ms(tick.nextAt!);
    await passThrough(h, tick.nextAt!);
    await passThrough(h, new Date(first + HOUR).toISOString());
    expect(h.ofType('schedule.fired')).toEqual([]);
    expect(thinker.calls).toHaveLength(thinks);

    await h.runtime.topUp({ amountUsd: 5 });
    await h.advance(2000, 100);
    await h.runtime.schedulesSettled();
    await h.advance(2000, 100);
    expect(h.ofType('schedule.missed')).toMatchObject([{ count: 2, policy: 'all', fired: 2 }]);
    expect(h.ofType('schedule.fired').map((e) => ms(e.dueAt))).toEqual([first, first + HOUR]);
    expectEachFiringAnsweredOnce(h);
  });
});
