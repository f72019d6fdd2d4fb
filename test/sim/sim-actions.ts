/**
 * What the simulated clients and operator do, at seeded moments: send messages, subscribe, disconnect and resume,
 * approve and deny tool calls, top up the budget, create and restore checkpoints, add schedules (interval, cron and
 * one-shot, each catch-up policy); and what the world does to the
 * runtime: crashes (at a quiet moment or armed inside a storage operation), disk fault windows, dropped MCP
 * connections; and, on a stream of their own, webhook endpoints and their receivers (sim-webhook-actions.ts). Every action is fired without waiting for it (a crash may cut it), and its outcome is recorded.
 */
import { describeError, isVigilError } from '../../src/errors.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { Incarnation } from './sim-incarnation.js';
import { words } from './sim-model.js';
import type { SimRandom } from './sim-random.js';
import type { SimRun } from './sim-run.js';
import { SimWebhookActions } from './sim-webhook-actions.js';

/** Schedules one run adds at most: each fires a turn a minute or so, beside the clients' messages. */
const MAX_SCHEDULES = 3;

/** Event type filters a client may subscribe with (undefined: every event). */
const FEED_TYPES: readonly (readonly string[] | undefined)[] = [
  undefined,
  undefined,
  ['agent.*'],
  ['agent.reply', 'agent.unanswered'],
  ['tool.*', 'agent.reply'],
  ['heartbeat.beat', 'agent.reply', 'agent.unanswered', 'checkpoint.*'],
];

type ActionKind =
  | 'send'
  | 'subscribe'
  | 'disconnect'
  | 'resume'
  | 'approve'
  | 'deny'
  | 'topUp'
  | 'checkpoint'
  | 'restore'
  | 'schedule'
  | 'crash'
  | 'armCrash'
  | 'mcpDrop'
  | 'diskFault';

/** The clients' and the world's actions. */
export class SimActions {
  /** When the next action happens (epoch ms). */
  nextAt: number;
  readonly webhooks: SimWebhookActions;
  private sampledAt = '';
  private schedulesAdded = 0;

  constructor(
    private readonly run: SimRun,
    private readonly rng: SimRandom,
  ) {
    this.nextAt = run.scenario.startAt + this.gap();
    this.webhooks = new SimWebhookActions(run, run.rng.fork('webhooks'), run.webhookReceiver);
  }

  /** Performs the action due now and draws the next one's time. */
  act(): void {
    this.nextAt = this.run.world.now() + this.gap();
    const incarnation = this.run.current;
    if (incarnation === null || !incarnation.alive) return;
    const kind = this.rng.weighted(this.weights());
    this.perform(kind, incarnation);
    this.webhooks.maybeAct(incarnation);
  }

  /** Right before incarnation `incarnation` boots: perhaps a crash inside its boot. */
  armBootCrash(incarnation: Incarnation): void {
    if (this.run.phase === 'drain' || !this.crashesLeft() || !this.rng.chance(0.15)) return;
    incarnation.db.arm({ atOp: this.rng.int(1, 60), when: this.rng.chance(0.5) ? 'before' : 'after' });
  }

  /** After a boot: clients cut off by the crash come back (most of them, at once). */
  afterBoot(incarnation: Incarnation): void {
    for (const chain of this.run.clients.chains) {
      const last = chain.sessions[chain.sessions.length - 1];
      if (last?.endedBy === 'crash' && (this.run.phase === 'drain' || this.rng.chance(0.7)))
        this.run.clients.resume(chain, incarnation, this.run.world.now());
    }
  }

  /**
   * A drain step: decide every waiting tool call, wake a sleeper with a top-up, bring every client back. True when
   * no user turn is left: no pending message, no waiting call, no send in flight (autonomous work may go on).
   */
  drainTick(): boolean {
    const incarnation = this.run.current!;
    const { runtime } = incarnation;
    for (const chain of this.run.clients.chains) this.run.clients.resume(chain, incarnation, this.run.world.now());
    const pending = runtime.pendingToolCalls();
    for (const call of pending) this.decide(runtime, incarnation, call.callId, this.rng.chance(0.7));
    const status = runtime.status();
    if (status.state === 'dormant') this.fire(incarnation, 'drain topUp', () => runtime.topUp({ amountUsd: 5 }));
    const sendsInFlight = this.run.history.sends.some(
      (s) => s.incarnation === incarnation.number && s.turnId === null && s.error === null,
    );
    // A turn a think has taken is no longer pending but still open: a schedule's firing opens one with no send to wait on.
    const openTurns = incarnation.published.filter(
      (event) => event.type === 'agent.message' && runtime.isTurnOpen(event.turnId),
    ).length;
    // A schedule whose due time has come and whose next time has not moved on is firing (its synced write under way).
    const now = this.run.world.now();
    const firing = runtime
      .listSchedules()
      .filter((schedule) => schedule.nextAt !== null && Date.parse(schedule.nextAt) <= now).length;
    const webhooks = this.webhooks.drainPending(incarnation);
    const chat = this.chatPending(runtime);
    const chatState = chat === undefined ? '' : `, chat: ${chat ?? 'all answered'}`;
    this.run.drainState = `${status.pendingMessages} pending messages, ${openTurns} open turns, ${firing} schedules firing, ${pending.length} calls awaiting approval, sends in flight: ${sendsInFlight}, webhooks: ${webhooks ?? 'all delivered'}${chatState}, phase ${status.phase}, ${status.state}`;
    return (
      status.pendingMessages === 0 &&
      openTurns === 0 &&
      firing === 0 &&
      pending.length === 0 &&
      !sendsInFlight &&
      webhooks === null &&
      (chat ?? null) === null
    );
  }

  /** What the chat channel still owes: updates not yet confirmed, replies not yet over (undefined: no channel). */
  private chatPending(runtime: Runtime): string | null | undefined {
    const chat = this.run.chat;
    if (chat === null) return undefined;
    const unconfirmed = chat.unconfirmed();
    const replies = runtime.channels.list().reduce((sum, view) => sum + view.pending, 0);
    return unconfirmed === 0 && replies === 0 ? null : `${unconfirmed} updates unconfirmed, ${replies} replies open`;
  }

  /** Records what a client would read of the budget now, whenever something was published since the last look. */
  sampleBudget(): void {
    const incarnation = this.run.current;
    if (incarnation === null || !incarnation.alive) return;
    const seen = `${incarnation.number}:${incarnation.published.length}`;
    if (seen === this.sampledAt) return;
    this.sampledAt = seen;
    const status = incarnation.runtime.budgetStatus();
    this.run.history.budget.push({
      at: this.run.world.now(),
      incarnation: incarnation.number,
      resetsAt: status.resetsAt,
      spentTodayUsd: status.spentTodayUsd,
    });
  }

  private weights(): Record<ActionKind, number> {
    const crash = this.crashesLeft() ? 2 : 0;
    return {
      send: 40,
      subscribe: this.run.clients.chains.length < 6 ? 6 : 1,
      disconnect: 5,
      resume: 6,
      approve: 7,
      deny: 3,
      topUp: 2,
      checkpoint: 3,
      restore: 1,
      schedule: this.schedulesAdded < MAX_SCHEDULES ? 3 : 0,
      crash,
      armCrash: crash,
      mcpDrop: 1,
      diskFault: this.run.scenario.writeFailP > 0 ? 2 : 0,
    };
  }

  private perform(kind: ActionKind, incarnation: Incarnation): void {
    const { rng, run } = this;
    const { runtime } = incarnation;
    const now = run.world.now();
    const chains = run.clients.chains;
    switch (kind) {
      case 'send':
        return this.send(incarnation);
      case 'subscribe':
        run.clients.subscribe(incarnation, rng.pick(FEED_TYPES), rng.chance(0.5) ? 'live' : 'replay', now);
        return;
      case 'disconnect': {
        const connected = chains.filter((c) => run.clients.isConnected(c));
        if (connected.length > 0) run.clients.disconnect(rng.pick(connected), 'disconnect');
        return;
      }
      case 'resume': {
        const away = chains.filter((c) => !run.clients.isConnected(c));
        if (away.length > 0) run.clients.resume(rng.pick(away), incarnation, now);
        return;
      }
      case 'approve':
      case 'deny': {
        const pending = runtime.pendingToolCalls();
        if (pending.length > 0) this.decide(runtime, incarnation, rng.pick(pending).callId, kind === 'approve');
        return;
      }
      case 'topUp':
        return this.fire(incarnation, 'topUp', () => runtime.topUp({ amountUsd: rng.pick([0.1, 0.5, 2]) }));
      case 'checkpoint':
        return this.fire(incarnation, 'checkpoint.create', () => runtime.createCheckpoint());
      case 'restore':
        return this.fire(incarnation, 'checkpoint.restore', async () => {
          const list = await runtime.listCheckpoints({ limit: 10 });
          if (list.length === 0) return 'none stored';
          return runtime.restoreCheckpoint(rng.pick(list).id, { confirm: true });
        });
      case 'schedule':
        return this.addSchedule(incarnation);
      case 'crash':
        run.crashNow('crash at a quiet moment');
        return;
      case 'armCrash':
        incarnation.db.arm({
          atOp: incarnation.db.opCount + rng.int(1, 400),
          when: rng.chance(0.5) ? 'before' : 'after',
        });
        this.record(incarnation, 'armCrash', 'armed');
        return;
      case 'mcpDrop':
        void run.mcp.drop(incarnation.number);
        this.record(incarnation, 'mcpDrop', 'dropped');
        return;
      case 'diskFault':
        run.faultUntil = now + rng.int(1_000, 30_000);
        this.record(incarnation, 'diskFault', `until +${run.faultUntil - now} ms`);
        return;
    }
  }

  private send(incarnation: Incarnation): void {
    const { rng, run } = this;
    const long = rng.chance(0.08);
    const text = long ? words(rng, rng.int(300, 900)) : words(rng, rng.int(2, 60));
    const record = {
      at: run.world.now(),
      incarnation: incarnation.number,
      chars: text.length,
      turnId: null as string | null,
      error: null as string | null,
    };
    run.history.sends.push(record);
    incarnation.runtime.send({ text }).then(
      (result) => (record.turnId = result.turnId),
      (err: unknown) => (record.error = isVigilError(err) ? err.code : describeError(err)),
    );
  }

  /** Adds a schedule that falls due a few times in the run: every one to three minutes, a cron, or a one-shot. */
  private addSchedule(incarnation: Incarnation): void {
    const { rng } = this;
    this.schedulesAdded += 1;
    const timing = rng.weighted({ interval: 4, cron: 3, once: 2 });
    const params = {
      text: `scheduled check ${this.schedulesAdded}: ${words(rng, rng.int(2, 12))}`,
      catchUp: rng.pick(['skip', 'once', 'all'] as const),
      maxCatchUp: rng.int(1, 4),
      ...(timing === 'interval'
        ? { everyMs: rng.pick([60_000, 90_000, 150_000]) }
        : timing === 'cron'
          ? { cron: rng.pick(['* * * * *', '*/2 * * * *']), timezone: rng.pick(['UTC', 'Europe/Berlin']) }
          : { at: new Date(this.run.world.now() + rng.int(5_000, 200_000)).toISOString() }),
    };
    this.fire(incarnation, `schedules.add ${JSON.stringify(params)}`, () => incarnation.runtime.addSchedule(params));
  }

  private decide(runtime: Runtime, incarnation: Incarnation, callId: string, approve: boolean): void {
    if (approve) this.fire(incarnation, `approve ${callId}`, () => runtime.approveToolCall(callId));
    else
      this.fire(incarnation, `deny ${callId}`, () =>
        runtime.denyToolCall({ callId, reason: 'the simulated operator said no' }),
      );
  }

  /** Starts `work` without waiting; its outcome is recorded when (if ever) it settles. */
  private fire(incarnation: Incarnation, action: string, work: () => Promise<unknown>): void {
    const record = this.record(incarnation, action, 'in flight');
    work().then(
      () => (record.outcome = 'ok'),
      (err: unknown) => (record.outcome = isVigilError(err) ? err.code : describeError(err)),
    );
  }

  private record(incarnation: Incarnation, action: string, outcome: string) {
    const record = { at: this.run.world.now(), incarnation: incarnation.number, action, outcome };
    this.run.history.actions.push(record);
    return record;
  }

  private crashesLeft(): boolean {
    return this.run.phase === 'active' && this.run.crashes < this.run.scenario.maxCrashes;
  }

  /** An exponential gap around the scenario's mean, at least 50 ms. */
  private gap(): number {
    return Math.max(50, Math.round(-Math.log(1 - this.rng.next()) * this.run.scenario.meanGapMs));
  }
}
