import { describe, expect, it } from 'vitest';
import { WIND_DOWN_NOTICE } from '../../src/heartbeat/turn-tracker.js';
import { createSimulatedClock } from '../../src/shared/clock.js';
import { BudgetLedger } from '../../src/subsystems/budget/budget-ledger.js';
import { deferred, useRuntimes } from '../fixtures/runtime.fixture.js';
import { ScriptedThinker } from '../fixtures/scripted-thinker.js';

const start = useRuntimes();

const CAP = { dailyBudgetUsd: 1, windDownPct: 90, hardStopPct: 110 };
const replyAll = (thinker: ScriptedThinker) => thinker;

describe('budget', () => {
  it('records every think in the ledger before applying it, and reports the spend', async () => {
    const thinker = replyAll(new ScriptedThinker());
    thinker.costMicroUsd = 120_000;
    const h = await start({ thinker, config: CAP });
    await h.runtime.send({ text: 'hello' });
    await h.advance(1000);
    expect(h.ofType('think.completed')).toMatchObject([
      { model: 'scripted', inputTokens: 100, outputTokens: 20, costUsd: 0.12 },
    ]);
    // One at start (where the money stands), one per think.
    expect(h.ofType('agent.budget_updated')).toMatchObject([
      { budgetPct: 0, spentTodayUsd: 0, dailyCapUsd: 1 },
      { budgetPct: 12, spentTodayUsd: 0.12, dailyCapUsd: 1 },
    ]);
    // The charge came before the reply it paid for.
    const order = h.events.map((e) => e.type).filter((t) => t === 'agent.budget_updated' || t === 'agent.reply');
    expect(order).toEqual(['agent.budget_updated', 'agent.budget_updated', 'agent.reply']);
    const ledger = new BudgetLedger(h.db);
    expect((await ledger.readDay('2026-03-01')).spentMicroUsd).toBe(120_000);
    expect(h.runtime.budgetStatus()).toMatchObject({
      dailyCapUsd: 1,
      spentTodayUsd: 0.12,
      remainingUsd: 0.88,
      pct: 12,
      state: 'ok',
      timezone: 'UTC',
      resetsAt: '2026-03-02T00:00:00.000Z',
    });
  });

  it('at 90 % finishes the turn, then sleeps; nothing thinks while asleep', async () => {
    const thinker = new ScriptedThinker();
    thinker.costMicroUsd = 450_000;
    const h = await start({ thinker, config: CAP });
    await h.runtime.send({ text: 'one' });
    await h.advance(1000);
    const { turnId } = await h.runtime.send({ text: 'two' });
    await h.advance(1000);
    const types = h.events.map((e) => e.type);
    expect(types.indexOf('agent.sleeping')).toBeGreaterThan(types.lastIndexOf('agent.reply'));
    expect(h.ofType('agent.reply').at(-1)).toMatchObject({ turnId });
    expect(h.ofType('agent.sleeping')).toMatchObject([
      { reason: 'budget_wind_down', wakeAt: '2026-03-02T00:00:00.000Z' },
    ]);
    expect(h.runtime.status()).toMatchObject({ state: 'dormant', phase: 'dormant' });
    expect(h.runtime.budgetStatus().state).toBe('sleeping');

    await h.runtime.send({ text: 'three' });
    await h.advance(120_000, 1_000);
    expect(thinker.calls).toHaveLength(2);
    // Dormant beats slow to the longest interval but go on.
    expect(h.ofType('heartbeat.beat').at(-1)).toMatchObject({ intervalMs: 1000 });
    expect(h.runtime.status().beatCount).toBeGreaterThan(100);
  });

  it('tells the agent once, in the prompt, to wrap up when a message is still pending at wind-down, then sleeps', async () => {
    const gates = [deferred(), deferred(), deferred()];
    const thinker = new ScriptedThinker(async (input, call) => {
      await gates[call - 1]?.promise;
      return input.pendingMessages.map((m) => ({ type: 'reply' as const, turnId: m.turnId, text: `re: ${m.text}` }));
    });
    thinker.costMicroUsd = 450_000;
    const h = await start({ thinker, config: { ...CAP, busyStrategy: 'enqueue' } });
    await h.runtime.send({ text: 'first' });
    await h.advance(1000);
    gates[0]!.resolve();
    await h.advance(1000);
    // The second think takes spend to 90 %; a third message arrives while it runs.
    await h.runtime.send({ text: 'second' });
    await h.advance(1000);
    const { turnId } = await h.runtime.send({ text: 'third' });
    gates[1]!.resolve();
    await h.advance(2000);
    expect(h.runtime.status().state).toBe('awake');
    expect(h.runtime.status()).toMatchObject({ phase: 'think', activity: 'wrapping_up' });
    gates[2]!.resolve();
    await h.advance(1000);

    expect(thinker.calls.map((c) => c.notices.includes(WIND_DOWN_NOTICE))).toEqual([false, false, true]);
    expect(thinker.calls[2]!.pendingMessages.map((m) => m.text)).toEqual(['third']);
    const types = h.events.map((e) => e.type);
    expect(h.ofType('agent.reply').at(-1)).toMatchObject({ turnId });
    expect(types.indexOf('agent.sleeping')).toBeGreaterThan(types.lastIndexOf('agent.reply'));
    await h.runtime.send({ text: 'fourth' });
    await h.advance(10_000);
    expect(thinker.calls).toHaveLength(3);
  });

  it('at the hard stop aborts the in-flight think at once, never applying it', async () => {
    const taskGate = deferred<string>();
    const thinkGate = deferred();
    const thinker = new ScriptedThinker(
      async (input) => {
        if (input.pendingMessages.some((m) => m.text === 'spawn'))
          return [{ type: 'spawn_task', prompt: 'expensive research' }];
        await thinkGate.promise;
        return input.pendingMessages.map((m) => ({ type: 'reply' as const, turnId: m.turnId, text: 'never applied' }));
      },
      () => taskGate.promise,
    );
    thinker.taskCostMicroUsd = 1_150_000;
    const h = await start({ thinker, config: CAP });
    await h.runtime.send({ text: 'spawn' });
    await h.advance(2000);
    expect(thinker.tasks).toHaveLength(1);
    await h.runtime.send({ text: 'slow question' });
    await h.advance(1000);
    expect(h.runtime.status().phase).toBe('think');

    taskGate.resolve('found it'); // the task's cost lands while the think is in flight: 115 %
    await h.settle();
    expect(thinker.aborted).toHaveLength(1);
    expect(h.ofType('agent.budget_exceeded')).toMatchObject([{ spentTodayUsd: 1.15, dailyCapUsd: 1 }]);
    expect(h.ofType('agent.sleeping')).toMatchObject([{ reason: 'budget_exceeded' }]);
    expect(h.runtime.budgetStatus().state).toBe('exceeded');
    thinkGate.resolve();
    await h.advance(10_000);
    expect(h.ofType('agent.reply').filter((r) => r.text === 'never applied')).toHaveLength(0);
    expect(h.ofType('think.failed')).toHaveLength(0);
  });

  it('wakes at local midnight in Europe/Berlin, also across the spring DST change', async () => {
    const thinker = new ScriptedThinker();
    thinker.costMicroUsd = 950_000;
    // 21:00 in Berlin (CET, UTC+1) on the day before the clocks spring forward.
    const clock = createSimulatedClock(Date.parse('2026-03-28T20:00:00Z'));
    const h = await start({ thinker, clock, config: { ...CAP, timezone: 'Europe/Berlin', beatMaxMs: 60_000 } });
    await h.runtime.send({ text: 'spend' });
    await h.advance(1000);
    expect(h.ofType('agent.sleeping')).toMatchObject([{ wakeAt: '2026-03-28T23:00:00.000Z' }]);
    await h.advance(Date.parse('2026-03-28T23:00:00Z') - h.clock.now() - 1, 60_000);
    expect(h.ofType('agent.waking')).toHaveLength(0);
    await h.advance(1, 1);
    expect(h.ofType('agent.waking')).toMatchObject([{ reason: 'daily_reset', at: '2026-03-28T23:00:00.000Z' }]);
    expect(h.runtime.budgetStatus()).toMatchObject({
      spentTodayUsd: 0,
      state: 'ok',
      resetsAt: '2026-03-29T22:00:00.000Z',
    });

    // March 29 has 23 hours in Berlin: the next midnight is 22:00 UTC.
    await h.runtime.send({ text: 'spend again' });
    await h.advance(1000);
    expect(h.ofType('agent.sleeping').at(-1)).toMatchObject({ wakeAt: '2026-03-29T22:00:00.000Z' });
    await h.advance(Date.parse('2026-03-29T22:00:00Z') - h.clock.now(), 60_000);
    expect(h.ofType('agent.waking').at(-1)).toMatchObject({ reason: 'daily_reset', at: '2026-03-29T22:00:00.000Z' });
  });

  it('wakes at once on a top-up and answers what waited', async () => {
    const thinker = new ScriptedThinker();
    thinker.costMicroUsd = 950_000;
    const h = await start({ thinker, config: CAP });
    await h.runtime.send({ text: 'spend it all' });
    await h.advance(1000);
    const { turnId } = await h.runtime.send({ text: 'waiting' });
    await h.advance(10_000);
    expect(h.runtime.status().state).toBe('dormant');
    thinker.costMicroUsd = 10_000;
    const status = await h.runtime.topUp({ amountUsd: 2 });
    expect(status).toMatchObject({ state: 'ok', remainingUsd: 2.05, topUpUsd: 2 });
    expect(h.ofType('agent.waking')).toMatchObject([{ reason: 'top_up' }]);
    expect(h.runtime.status().state).toBe('awake');
    await h.advance(1000);
    expect(h.ofType('agent.reply').at(-1)).toMatchObject({ turnId });
  });

  it('stays asleep across a crash and restart, and a top-up persisted before the crash wakes it', async () => {
    const thinker = new ScriptedThinker();
    thinker.costMicroUsd = 950_000;
    const h = await start({ thinker, config: CAP });
    await h.runtime.send({ text: 'spend it all' });
    await h.advance(1000);
    expect(h.runtime.status().state).toBe('dormant');
    await h.crash();

    const asleep = await start({ db: h.db, clock: h.clock, thinker, config: CAP });
    expect(asleep.runtime.status().state).toBe('dormant');
    expect(asleep.runtime.budgetStatus()).toMatchObject({ spentTodayUsd: 0.95, state: 'sleeping' });
    await asleep.runtime.send({ text: 'anyone?' });
    await asleep.advance(30_000);
    expect(thinker.calls).toHaveLength(1);
    // The top-up reaches the ledger, then the process dies before the wake is acted on.
    await new BudgetLedger(asleep.db).topUp('2026-03-01', 1_000_000, asleep.clock.now());
    await asleep.crash();

    const woken = await start({ db: h.db, clock: h.clock, thinker, config: CAP });
    expect(woken.ofType('agent.waking')).toMatchObject([{ reason: 'top_up' }]);
    // Awake, it answers the message that waited through the sleep at once, without waiting a beat.
    expect(thinker.calls).toHaveLength(2);
    expect(woken.ofType('agent.reply')).toMatchObject([{ text: 're: anyone?' }]);
  });

  it('never gives money back after a crash, even with no checkpoint since the spend', async () => {
    const thinker = new ScriptedThinker();
    thinker.costMicroUsd = 300_000;
    const h = await start({ thinker, config: { ...CAP, checkpointEnabled: false } });
    await h.runtime.send({ text: 'a' });
    await h.advance(1000);
    await h.crash();
    const again = await start({ db: h.db, clock: h.clock, thinker, config: CAP });
    expect(again.runtime.status().restoredFrom).toBeNull();
    expect(again.runtime.budgetStatus().spentTodayUsd).toBe(0.3);
  });

  it('keeps a run-time cap across restarts until the configured cap changes', async () => {
    const h = await start({ config: CAP });
    expect(await h.runtime.setCap({ dailyCapUsd: 3 })).toMatchObject({ dailyCapUsd: 3 });
    await h.runtime.stop();
    const same = await start({ db: h.db, clock: h.clock, config: CAP });
    expect(same.runtime.budgetStatus().dailyCapUsd).toBe(3);
    await same.runtime.stop();
    const changed = await start({ db: h.db, clock: h.clock, config: { ...CAP, dailyBudgetUsd: 7 } });
    expect(changed.runtime.budgetStatus().dailyCapUsd).toBe(7);
  });

  it('keeps the live budget through a restore: money spent or topped up after the checkpoint is not rolled back', async () => {
    const thinker = new ScriptedThinker();
    thinker.costMicroUsd = 300_000;
    const h = await start({ thinker, config: { ...CAP, checkpointEnabled: false } });
    await h.advance(1000);
    const created = h.runtime.createCheckpoint();
    await h.settle();
    const checkpoint = await created;
    await h.runtime.send({ text: 'spend after the checkpoint' });
    await h.advance(1000);
    await h.runtime.topUp({ amountUsd: 2 });
    const before = h.runtime.budgetStatus();
    expect(before).toMatchObject({ spentTodayUsd: 0.3, topUpUsd: 2 });
    const restoring = h.runtime.restoreCheckpoint(checkpoint.id, { confirm: true });
    await h.settle();
    await restoring;
    expect(h.runtime.budgetStatus()).toEqual(before);
  });
});
