/**
 * The crash loop: `vigil run` as a child process, killed with SIGKILL at seeded-random moments (right after a
 * checkpoint, while one is being saved, mid-think, right after a message was logged, at a random beat, during boot)
 * and started again, with CONTRACT §6's promises checked after every restart. Used by `test/e2e/crash-loop.test.ts`
 * (25+ kills) and `npm run soak` (500). Framework-free: a broken promise throws `CrashLoopViolation`.
 */
import type { Subscription } from 'rxjs';
import { connect, type VigilClient } from '../../src/client/vigil-client.js';
import { describeError } from '../../src/errors.js';
import { readTokenFile } from '../../src/shared/token-file.js';
import { startDaemon, type DaemonProcess, type LogLine } from '../e2e/daemon-process.js';
import { bootProblems, finalDiskProblems, median } from './crash-loop-checks.js';
import { createKillDealer } from './crash-loop-plan.js';
import type { CrashLoopOptions, CrashLoopReport, Expectations, KillMode, Plan } from './crash-loop.types.js';
import { inspectDataDir } from './data-dir-inspect.js';
import { seededRandom, type SeededRandom } from './seeded-random.js';

export { KILL_MODE_DECK } from './crash-loop-plan.js';
export type { CrashLoopOptions, CrashLoopReport, KillMode } from './crash-loop.types.js';

/** Daemon settings of the loop: fast beats, a checkpoint every 4 beats, 3 kept, each offline think costing money. */
export const CRASH_LOOP_ENV = {
  VIGIL_BEAT_MS: '20',
  VIGIL_BEAT_MIN_MS: '10',
  VIGIL_BEAT_MAX_MS: '40',
  VIGIL_CHECKPOINT_INTERVAL_BEATS: '4',
  VIGIL_CHECKPOINT_MAX_COUNT: '3',
  VIGIL_OFFLINE_COST_USD: '0.0001',
  VIGIL_DAILY_BUDGET_USD: '1000',
  VIGIL_LOG_LEVEL: 'info',
} as const;

/** A promise of CONTRACT §6 that did not hold; the message names the seed, the kill and what was seen. */
export class CrashLoopViolation extends Error {
  override readonly name = 'CrashLoopViolation';
}

const isCreated = (line: LogLine): boolean => line.msg === 'checkpoint.created';
const pastIso = (): string => new Date(Date.now() - 60_000).toISOString();

/** Runs `options.kills` kill-restart cycles, then one clean stop, checking every promise; resolves to the report. */
export async function runCrashLoop(options: CrashLoopOptions): Promise<CrashLoopReport> {
  const loop = new CrashLoop(options);
  return loop.run();
}

class CrashLoop {
  private readonly rng: SeededRandom;
  private readonly env: Record<string, string>;
  private readonly interval: number;
  private readonly maxCount: number;
  private readonly bootTimeoutMs: number;
  private readonly triggerTimeoutMs: number;
  private readonly expect: Expectations = {
    maxCheckpointBeat: 0,
    newestCheckpointId: null,
    spentFloorUsd: 0,
    spentDay: null,
    unverifiedGoals: new Map(),
    maxSeq: 0,
    ackedMessages: [],
  };
  private readonly killsByMode: Record<KillMode, number> = {
    'after-checkpoint': 0,
    'mid-save': 0,
    'mid-think': 0,
    'after-message': 0,
    'random-beat': 0,
    'during-boot': 0,
  };
  private readonly deal: () => Plan;
  private readonly bootMs: number[] = [];
  private savesCutShort = 0;
  private bootsCutShort = 0;
  private checkpointsCreated = 0;
  private goalsVerified = 0;
  private cycle = 0;
  private plan: Plan = { mode: 'after-checkpoint', nth: 1 };
  private daemon: DaemonProcess | undefined;

  constructor(private readonly options: CrashLoopOptions) {
    this.rng = seededRandom(options.seed);
    this.env = { ...CRASH_LOOP_ENV, ...options.env };
    this.interval = Number(this.env['VIGIL_CHECKPOINT_INTERVAL_BEATS']);
    this.maxCount = Number(this.env['VIGIL_CHECKPOINT_MAX_COUNT']);
    this.bootTimeoutMs = options.bootTimeoutMs ?? 30_000;
    this.triggerTimeoutMs = options.triggerTimeoutMs ?? 15_000;
    this.deal = createKillDealer(this.rng, this.interval);
  }

  async run(): Promise<CrashLoopReport> {
    const started = performance.now();
    const { kills, seed } = this.options;
    const every = this.options.progressEvery ?? 25;
    this.options.progress?.(
      `crash loop: ${kills} kills, seed ${seed} (set VIGIL_CRASH_SEED=${seed} to draw the same kills again)`,
    );
    try {
      for (this.cycle = 1; this.cycle <= kills; this.cycle += 1) {
        this.plan = this.deal();
        await this.lifetime();
        this.killsByMode[this.plan.mode] += 1;
        if (this.cycle % every === 0 || this.cycle === kills) {
          this.options.progress?.(
            `  kill ${this.cycle}/${kills} (${this.plan.mode}): checkpoint beat ${this.expect.maxCheckpointBeat}, ` +
              `spent $${this.expect.spentFloorUsd.toFixed(4)}, ${this.goalsVerified} goals verified`,
          );
        }
      }
      this.cycle = kills + 1;
      this.plan = { mode: 'after-checkpoint', nth: 0 };
      const finalCheckpoints = await this.finalLifetime();
      const disk = await inspectDataDir(this.options.dataDir);
      return {
        seed,
        kills,
        killsByMode: this.killsByMode,
        savesCutShort: this.savesCutShort,
        bootsCutShort: this.bootsCutShort,
        checkpointsCreated: this.checkpointsCreated,
        maxCheckpointBeat: this.expect.maxCheckpointBeat,
        goalsVerified: this.goalsVerified,
        messagesVerified: this.expect.ackedMessages.length,
        maxSeq: this.expect.maxSeq,
        spentTodayUsd: disk.spentTodayMicroUsd / 1_000_000,
        bootMs: { median: median(this.bootMs), max: Math.max(...this.bootMs) },
        durationMs: performance.now() - started,
        finalCheckpoints,
      };
    } finally {
      this.daemon?.kill('SIGKILL');
    }
  }

  /** One daemon life: boot, check, give it work, kill it at the planned moment, learn what it stored. */
  private async lifetime(): Promise<void> {
    const daemon = this.spawn();
    const closed = new Promise<void>((resolve) => daemon.proc.once('close', () => resolve()));
    const startedAt = performance.now();
    if (this.plan.mode === 'during-boot' && this.plan.nth === 2) {
      await this.killMidBoot(daemon, closed);
      return;
    }
    const started = await this.waitLine(
      daemon,
      (l) => l.msg === 'runtime started',
      this.bootTimeoutMs,
      '"runtime started"',
    );
    this.checkBoot(daemon, started);
    if (this.plan.mode === 'during-boot') {
      daemon.kill('SIGKILL');
    } else {
      const listening = await this.waitLine(
        daemon,
        (l) => l.msg === 'gateway listening',
        this.bootTimeoutMs,
        '"gateway listening"',
      );
      this.bootMs.push(performance.now() - startedAt);
      const client = await this.connect(String(listening['url']));
      try {
        await this.exercise(daemon, client);
      } finally {
        daemon.kill('SIGKILL');
        await client.close();
      }
    }
    const exit = await daemon.exited;
    await closed;
    if (exit !== 'SIGKILL') this.fail(daemon, `the daemon exited with ${String(exit)} before the kill`);
    this.learn(daemon);
  }

  /**
   * A kill at a random time late in the boot (half to all of the last boot's length after spawn), so that it lands in
   * LevelDB's open (log replay, a new table and MANIFEST) or the restore about as often as in module loading. The
   * timer picks the fault's moment; nothing waits on it.
   */
  private async killMidBoot(daemon: DaemonProcess, closed: Promise<void>): Promise<void> {
    const lastBootMs = this.bootMs.at(-1) ?? 2_000;
    const timer = setTimeout(() => daemon.kill('SIGKILL'), Math.round((0.5 + 0.5 * this.rng.next()) * lastBootMs));
    const exit = await daemon.exited;
    clearTimeout(timer);
    await closed;
    if (exit !== 'SIGKILL') this.fail(daemon, `the daemon exited with ${String(exit)} before the kill`);
    const started = daemon.lines.find((l) => l.msg === 'runtime started');
    if (started !== undefined) this.checkBoot(daemon, started);
    else this.bootsCutShort += 1;
    const warnings = daemon.lines.filter((l) => (l.level ?? 0) >= 40);
    if (started === undefined && warnings.length > 0) this.fail(daemon, `the boot logged ${JSON.stringify(warnings)}`);
    this.learn(daemon);
  }

  /** The last life: boot, check, then SIGTERM — exit 0 with a final checkpoint — and read the data dir. */
  private async finalLifetime(): Promise<number> {
    const daemon = this.spawn();
    const started = await this.waitLine(
      daemon,
      (l) => l.msg === 'runtime started',
      this.bootTimeoutMs,
      '"runtime started"',
    );
    this.checkBoot(daemon, started);
    const listening = await this.waitLine(
      daemon,
      (l) => l.msg === 'gateway listening',
      this.bootTimeoutMs,
      '"gateway listening"',
    );
    const client = await this.connect(String(listening['url']));
    try {
      await this.checkAfterRestart(daemon, client);
      await this.answerPending(daemon, client);
    } finally {
      await client.close();
    }
    daemon.kill('SIGTERM');
    const exit = await daemon.exited;
    if (exit !== 0) this.fail(daemon, `SIGTERM gave exit ${String(exit)}, not 0`);
    this.learn(daemon);
    const disk = await inspectDataDir(this.options.dataDir);
    const problems = finalDiskProblems(disk, this.expect, this.maxCount);
    if (problems.length > 0) this.fail(daemon, `after the final stop: ${problems.join('; ')}`);
    return disk.indexIds.length;
  }

  private spawn(): DaemonProcess {
    const daemon = startDaemon(['run', '--data-dir', this.options.dataDir, '--port', '0'], this.env);
    this.daemon = daemon;
    return daemon;
  }

  private async connect(url: string): Promise<VigilClient> {
    const token = await readTokenFile(this.options.dataDir);
    return connect({ url, token, reconnect: false, requestTimeoutMs: this.triggerTimeoutMs });
  }

  /** From the boot log alone (see `bootProblems`). */
  private checkBoot(daemon: DaemonProcess, started: LogLine): void {
    const problems = bootProblems(daemon.lines, started, this.expect);
    if (problems.length > 0) this.fail(daemon, problems.join('; '));
  }

  /** Over RPC: beat count, checkpoints (count, each decodes), money, goals. */
  private async checkAfterRestart(daemon: DaemonProcess, client: VigilClient): Promise<void> {
    const status = await client.heartbeat.status();
    if (status.beatCount < this.expect.maxCheckpointBeat) {
      this.fail(
        daemon,
        `heartbeat.status says beat ${status.beatCount}, below checkpoint beat ${this.expect.maxCheckpointBeat}`,
      );
    }
    const list = await client.checkpoint.list({});
    if (list.length > this.maxCount)
      this.fail(daemon, `${list.length} checkpoints listed, VIGIL_CHECKPOINT_MAX_COUNT is ${this.maxCount}`);
    for (const meta of list) {
      // The client validates the answer against the checkpoint schema; a corrupt one is an RpcError -32005.
      const checkpoint = await client.checkpoint.get({ id: meta.id }).catch((err: unknown) => {
        // A checkpoint pruned between list and get is fine; anything else is not.
        if ((err as { code?: number }).code === -32004) return null;
        return this.fail(daemon, `checkpoint ${meta.id} does not decode: ${describeError(err)}`);
      });
      if (checkpoint !== null && checkpoint.beatCount !== meta.beatCount) {
        this.fail(daemon, `checkpoint ${meta.id} holds beat ${checkpoint.beatCount}, its index says ${meta.beatCount}`);
      }
    }
    const budget = await client.budget.status();
    if (this.expect.spentDay === budget.resetsAt && budget.spentTodayUsd < this.expect.spentFloorUsd) {
      this.fail(daemon, `spent today fell from $${this.expect.spentFloorUsd} to $${budget.spentTodayUsd}`);
    }
    if (this.expect.spentDay !== budget.resetsAt) this.expect.spentFloorUsd = 0;
    this.expect.spentDay = budget.resetsAt;
    this.expect.spentFloorUsd = Math.max(this.expect.spentFloorUsd, budget.spentTodayUsd);
    const goals = new Set((await client.goals.list()).map((g) => g.id));
    for (const [id, title] of this.expect.unverifiedGoals) {
      if (!goals.has(id)) this.fail(daemon, `goal ${id} ("${title}"), added before a stored checkpoint, is gone`);
      this.goalsVerified += 1;
    }
    this.expect.unverifiedGoals.clear();
  }

  /** Checks the restart, gives the agent a due goal (it thinks every beat), then waits for the planned kill moment. */
  private async exercise(daemon: DaemonProcess, client: VigilClient): Promise<void> {
    let trigger: ((type: string, beatCount: number) => boolean) | null = null;
    let fired!: () => void;
    const firedPromise = new Promise<void>((resolve) => (fired = resolve));
    let lastSpent: number | null = null;
    let lastCheckpointBeat = -1;
    const seqFloor = this.expect.maxSeq;
    let seqProblem: string | null = null;
    const feed: Subscription = client
      .subscribe(['heartbeat.beat', 'think.completed', 'agent.budget_updated'])
      .subscribe({
        next: (event) => {
          // Checked after the kill: throwing here would only reach rxjs's unhandled-error hook.
          if (event.seq <= seqFloor)
            seqProblem ??= `event seq ${event.seq} (${event.type}) is not above ${seqFloor}, issued before the kill`;
          this.expect.maxSeq = Math.max(this.expect.maxSeq, event.seq);
          if (event.type === 'agent.budget_updated') lastSpent = event.spentTodayUsd;
          const beatCount = event.type === 'heartbeat.beat' ? event.beatCount : event.beat;
          if (trigger !== null && trigger(event.type, beatCount)) {
            // Synchronously, in the same tick the event arrived: as close to the moment as a client can get.
            daemon.kill('SIGKILL');
            if (event.type === 'heartbeat.beat') lastCheckpointBeat = event.beatCount;
            trigger = null;
            fired();
          }
        },
        error: () => undefined,
      });
    try {
      await this.checkAfterRestart(daemon, client);
      const title = `Crash loop chore ${this.cycle}`;
      const goal = await client.goals.add({ title, priority: this.rng.int(1, 10), dueAt: pastIso() });
      if (this.cycle === 1) await client.goals.add({ title: 'A standing chore, not yet due', priority: 3 });
      const addedAtBeat = (await client.heartbeat.status()).beatCount;
      const { mode, nth } = this.plan;
      let seen = 0;
      const countTo = (match: boolean): boolean => match && (seen += 1) >= nth;
      switch (mode) {
        case 'after-checkpoint': {
          const before = new Set(daemon.lines.filter(isCreated));
          await this.waitLine(
            daemon,
            (l) => isCreated(l) && !before.has(l) && (seen += 1) >= nth,
            this.triggerTimeoutMs,
            'a checkpoint',
          );
          daemon.kill('SIGKILL');
          break;
        }
        case 'mid-save':
          trigger = (type, beat) => countTo(type === 'heartbeat.beat' && beat > 0 && beat % this.interval === 0);
          break;
        case 'mid-think':
          trigger = (type) => countTo(type === 'think.completed');
          break;
        case 'random-beat':
          trigger = (type) => countTo(type === 'heartbeat.beat');
          break;
        case 'after-message': {
          // Answered once the message is logged (synced): it must be replayed and answered after the restart.
          const { turnId } = await client.agent.send({
            text: `Please note chore ${this.cycle} is urgent.`,
            from: 'crash-loop',
          });
          daemon.kill('SIGKILL');
          this.expect.ackedMessages.push(turnId);
          break;
        }
        case 'during-boot':
          throw new Error('during-boot kills happen before the gateway listens');
      }
      if (trigger !== null) await this.within(firedPromise, this.triggerTimeoutMs, daemon, `the ${mode} moment`);
      const exit = await daemon.exited;
      if (exit !== 'SIGKILL') this.fail(daemon, `the daemon exited with ${String(exit)} before the kill`);
      if (seqProblem !== null) this.fail(daemon, seqProblem);
      await new Promise<void>((resolve) =>
        daemon.proc.stdout!.readableEnded ? resolve() : daemon.proc.stdout!.once('end', () => resolve()),
      );
      // The goal counts as committed once a checkpoint taken after it was reported stored.
      const committed = daemon.lines.some((l) => isCreated(l) && Number(l['beatCount']) > addedAtBeat);
      if (committed) this.expect.unverifiedGoals.set(goal.id, title);
      if (
        mode === 'mid-save' &&
        !daemon.lines.some((l) => isCreated(l) && Number(l['beatCount']) === lastCheckpointBeat)
      ) {
        this.savesCutShort += 1;
      }
      if (lastSpent !== null && this.expect.spentDay !== null) {
        this.expect.spentFloorUsd = Math.max(this.expect.spentFloorUsd, lastSpent);
      }
    } finally {
      feed.unsubscribe();
    }
  }

  /** Waits (bounded, on `agent.reply` events) until no message is left unanswered, so the final log can be checked. */
  private async answerPending(daemon: DaemonProcess, client: VigilClient): Promise<void> {
    let replied!: () => void;
    let next = new Promise<void>((resolve) => (replied = resolve));
    const feed = client.subscribe(['agent.reply']).subscribe({ next: () => replied(), error: () => undefined });
    try {
      while ((await client.heartbeat.status()).pendingMessages > 0) {
        await this.within(next, this.triggerTimeoutMs, daemon, 'an answer to the messages replayed after the kills');
        next = new Promise<void>((resolve) => (replied = resolve));
      }
    } finally {
      feed.unsubscribe();
    }
  }

  /** After a life: every checkpoint it reported stored raises what the next life must restore at least. */
  private learn(daemon: DaemonProcess): void {
    for (const line of daemon.lines.filter(isCreated)) {
      this.checkpointsCreated += 1;
      this.expect.maxCheckpointBeat = Math.max(this.expect.maxCheckpointBeat, Number(line['beatCount']));
      const id = String(line['checkpointId']);
      if (this.expect.newestCheckpointId === null || id > this.expect.newestCheckpointId)
        this.expect.newestCheckpointId = id;
    }
  }

  private async waitLine(
    daemon: DaemonProcess,
    predicate: (line: LogLine) => boolean,
    timeoutMs: number,
    what: string,
  ): Promise<LogLine> {
    try {
      return await daemon.waitFor(predicate, timeoutMs, what);
    } catch (err) {
      return this.fail(daemon, describeError(err));
    }
  }

  private async within(promise: Promise<void>, timeoutMs: number, daemon: DaemonProcess, what: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
    });
    try {
      await Promise.race([
        promise,
        timeout,
        daemon.exited.then((code) => Promise.reject(new Error(`daemon exited (${String(code)}) before ${what}`))),
      ]);
    } catch (err) {
      this.fail(daemon, describeError(err));
    } finally {
      clearTimeout(timer);
    }
  }

  private fail(daemon: DaemonProcess | undefined, what: string): never {
    const tail =
      daemon === undefined
        ? ''
        : `\nlast log lines: ${daemon.lines
            .slice(-8)
            .map((l) => JSON.stringify(l))
            .join('\n')}\nstderr: ${daemon.stderr()}`;
    throw new CrashLoopViolation(
      `crash loop seed ${this.options.seed}, kill ${this.cycle} (${this.plan.mode} #${this.plan.nth}): ${what}${tail}`,
    );
  }
}
