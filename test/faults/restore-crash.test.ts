/**
 * `checkpoint.restore` cut by a crash at every write it makes, on real on-disk LevelDB: the process "dies" at the
 * k-th write after the restore starts (that write and every later one never reach the disk), the runtime is dropped
 * without a close, and a new runtime opens the same data dir. Whatever k, no turn answered before the crash is open
 * again, and every turn ends exactly once. Crashing at each write covers crashing at each await: between two writes
 * the disk holds the same thing whichever await the process died at.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { VigilError } from '../../src/errors.js';
import { createSimulatedClock } from '../../src/shared/clock.js';
import type { ThinkAction, ThinkInput } from '../../src/subsystems/thinking/thinker.schema.js';
import { openVigilDb, type VigilDb } from '../../src/subsystems/store/vigil-db.js';
import { startRuntime, type RuntimeHarness } from '../fixtures/runtime.fixture.js';
import { ScriptedThinker } from '../fixtures/scripted-thinker.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Kills the "process" at the k-th write once armed: that write and all after it fail, and none reaches the disk. */
function crashAtWrite(db: VigilDb): { arm(k: number): void; readonly crashed: boolean } {
  let armedAt: number | null = null;
  let writes = 0;
  let crashed = false;
  const target = db as unknown as Record<'_put' | '_del' | '_batch', (...args: unknown[]) => Promise<void>>;
  for (const method of ['_put', '_del', '_batch'] as const) {
    const original = target[method].bind(db);
    target[method] = (...args: unknown[]) => {
      if (armedAt !== null && !crashed) {
        writes += 1;
        if (writes >= armedAt) crashed = true;
      }
      if (crashed)
        return Promise.reject(
          Object.assign(new Error('the process died before this write'), { code: 'LEVEL_IO_ERROR' }),
        );
      return original(...args);
    };
  }
  return {
    arm: (k) => (armedAt = k),
    get crashed() {
      return crashed;
    },
  };
}

/** Answers every pending message, except while `refusing`: the API then refuses the key, so the turns wait. */
function refusableThinker(): { thinker: ScriptedThinker; refuse: (on: boolean) => void } {
  let refusing = false;
  const thinker = new ScriptedThinker((input: ThinkInput): ThinkAction[] => {
    if (refusing && input.pendingMessages.length > 0)
      throw new VigilError('THINK_AUTH_FAILED', 'the key was refused (scripted)');
    return input.pendingMessages.map((m) => ({ type: 'reply', turnId: m.turnId, text: `re: ${m.text}` }));
  });
  return { thinker, refuse: (on) => (refusing = on) };
}

/** Advances simulated time in 1 s steps until `done`, waiting on real disk I/O in between; bounded in real time. */
async function until(h: RuntimeHarness, done: () => boolean | Promise<boolean>, stepMs = 1000): Promise<void> {
  await vi.waitFor(
    async () => {
      await h.advance(stepMs, stepMs);
      expect(await done()).toBe(true);
    },
    { timeout: 20_000, interval: 1 },
  );
}

const CONFIG = { checkpointEnabled: false };
const terminalTypes = ['agent.reply', 'agent.unanswered'];

/**
 * One run: turns answered before a checkpoint C, open in C and answered after it, opened after it and answered, and
 * one still open; then a restore of C that dies at its k-th write, and a restart on the same data dir.
 */
async function restoreCrashingAtWrite(k: number) {
  const dir = await mkdtemp(join(tmpdir(), 'vigil-restore-crash-'));
  dirs.push(dir);
  const clock = createSimulatedClock(Date.parse('2026-03-01T10:00:00Z'));
  const db = await openVigilDb(dir);
  const crash = crashAtWrite(db);
  const first = refusableThinker();
  const h = await startRuntime({ db, clock, thinker: first.thinker, config: { ...CONFIG, dataDir: dir } });
  const endedIn = (life: RuntimeHarness, turnId: string) =>
    life.events.some((e) => terminalTypes.includes(e.type) && 'turnId' in e && e.turnId === turnId);

  const one = await h.runtime.send({ text: 'one' });
  await until(h, () => endedIn(h, one.turnId));
  // Open in C, answered after it.
  first.refuse(true);
  const three = await h.runtime.send({ text: 'three' });
  await until(h, () => h.ofType('thinker.paused').length === 1);
  const c = h.runtime.createCheckpoint();
  await until(h, () => h.ofType('checkpoint.created').length === 1);
  const restoreTo = (await c).id;
  first.refuse(false);
  await until(h, () => endedIn(h, three.turnId), 10_000);
  // Opened after C, open in K (the newest checkpoint before the restore), answered after K.
  first.refuse(true);
  const four = await h.runtime.send({ text: 'four' });
  await until(h, () => h.ofType('thinker.paused').length === 2);
  const kp = h.runtime.createCheckpoint();
  await until(h, () => h.ofType('checkpoint.created').length === 2);
  const newestBefore = (await kp).id;
  first.refuse(false);
  await until(h, () => endedIn(h, four.turnId), 10_000);
  // Still open when the restore comes.
  first.refuse(true);
  const five = await h.runtime.send({ text: 'five' });
  await until(h, () => h.ofType('thinker.paused').length === 3);

  crash.arm(k);
  let settled = false;
  const restoring = h.runtime.restoreCheckpoint(restoreTo, { confirm: true }).finally(() => (settled = true));
  restoring.catch(() => undefined);
  await until(h, () => settled || crash.crashed, 100);
  const restoredWithoutCrash = !crash.crashed;
  // kill -9: no final checkpoint, nothing flushed; then the process is gone and the files are let go.
  await h.crash();
  await vi.waitFor(() => expect(settled || crash.crashed).toBe(true));
  await db.close();

  const db2 = await openVigilDb(dir);
  const second = refusableThinker();
  const again = await startRuntime({ db: db2, clock, thinker: second.thinker, config: { ...CONFIG, dataDir: dir } });
  try {
    const turns = [one, three, four, five].map((t) => t.turnId);
    const endings = async () =>
      (await again.runtime.history({ types: terminalTypes, limit: 1000 })) as Array<{
        turnId: string;
        type: string;
        code?: string;
      }>;
    // Right after the boot: a turn that has its ending on disk is not open again.
    for (const ending of await endings()) expect(again.runtime.isTurnOpen(ending.turnId)).toBe(false);
    await until(again, () => again.runtime.status().pendingMessages === 0);
    await again.advance(5000, 1000);
    const ended = await endings();
    for (const turnId of turns)
      expect(
        ended.filter((e) => e.turnId === turnId),
        `turn ${turnId} after a crash at write ${k}`,
      ).toHaveLength(1);
    const restored = again.runtime.status().restoredFrom !== newestBefore;
    // All or nothing: restored, the open turn was cancelled; not restored, it was answered after the restart.
    const fiveEnding = ended.find((e) => e.turnId === five.turnId)!;
    expect(fiveEnding).toMatchObject(
      restored ? { type: 'agent.unanswered', code: 'TURN_CANCELLED' } : { type: 'agent.reply' },
    );
    const archived = await (await again.conversation()).listArchives();
    expect(archived.length).toBe(restored ? 1 : 0);
    return { restoredWithoutCrash, restored };
  } finally {
    await again.runtime.stop();
    await db2.close();
  }
}

describe('a restore cut by a crash', () => {
  it('never reopens an answered turn and ends every turn exactly once, whichever write it dies at', async () => {
    const outcomes: Array<{ k: number; restored: boolean }> = [];
    for (let k = 1; k <= 20; k += 1) {
      const outcome = await restoreCrashingAtWrite(k);
      outcomes.push({ k, restored: outcome.restored });
      if (outcome.restoredWithoutCrash) break;
    }
    // The last run let the restore finish; every run before it died somewhere inside it.
    expect(outcomes.at(-1)).toMatchObject({ restored: true });
    expect(outcomes.length).toBeGreaterThan(1);
  }, 240_000);

  it('changes nothing when its one batch cannot be written, and succeeds when tried again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vigil-restore-fail-'));
    dirs.push(dir);
    const db = await openVigilDb(dir);
    // Once armed, the next checkpoint write (the restore's) fails, as a full disk would fail it.
    let failNextCheckpoint = false;
    const target = db as unknown as { _batch: (ops: Array<{ key: unknown }>, ...rest: unknown[]) => Promise<void> };
    const batch = target._batch.bind(db);
    target._batch = (ops, ...rest) => {
      if (failNextCheckpoint && ops.some((op) => String(op.key).includes('checkpoint-body'))) {
        failNextCheckpoint = false;
        return Promise.reject(Object.assign(new Error('No space left on device'), { code: 'LEVEL_IO_ERROR' }));
      }
      return batch(ops, ...rest);
    };
    const { thinker, refuse } = refusableThinker();
    const h = await startRuntime({ db, thinker, config: { ...CONFIG, dataDir: dir } });
    try {
      const one = await h.runtime.send({ text: 'one' });
      await until(h, () => h.ofType('agent.reply').length === 1);
      const c = h.runtime.createCheckpoint();
      await until(h, () => h.ofType('checkpoint.created').length === 1);
      const restoreTo = (await c).id;
      h.runtime.addGoal({ title: 'added after the checkpoint' });
      const two = await h.runtime.send({ text: 'two' });
      await until(h, () => h.ofType('agent.reply').length === 2);
      refuse(true);
      const three = await h.runtime.send({ text: 'three' });
      await until(h, () => h.ofType('thinker.paused').length === 1);
      const beatCount = h.runtime.status().beatCount;

      failNextCheckpoint = true;
      const failed = h.runtime.restoreCheckpoint(restoreTo, { confirm: true }).catch((err: unknown) => err);
      let outcome: unknown;
      void failed.then((err) => (outcome = err));
      await until(h, () => outcome !== undefined, 100);
      expect(outcome).toMatchObject({ code: 'CHECKPOINT_SAVE_FAILED' });
      // As it was: the later goal and beats, the open turn, the whole log live, no new checkpoint, no archive.
      expect(h.runtime.listGoals().map((g) => g.title)).toEqual(['added after the checkpoint']);
      expect(h.runtime.status().beatCount).toBeGreaterThanOrEqual(beatCount);
      expect(h.runtime.isTurnOpen(three.turnId)).toBe(true);
      expect((await h.runtime.listConversation()).map((e) => e.text)).toEqual([
        'one',
        're: one',
        'two',
        're: two',
        'three',
      ]);
      expect(await h.runtime.listCheckpoints()).toHaveLength(1);
      expect(await (await h.conversation()).listArchives()).toEqual([]);
      expect(h.ofType('agent.unanswered')).toEqual([]);

      let restored = false;
      const again = h.runtime.restoreCheckpoint(restoreTo, { confirm: true }).then(() => (restored = true));
      await until(h, () => restored, 100);
      await again;
      expect(h.runtime.listGoals()).toEqual([]);
      expect(h.ofType('agent.unanswered')).toMatchObject([{ turnId: three.turnId, code: 'TURN_CANCELLED' }]);
      const ended = (await h.runtime.history({ types: terminalTypes, limit: 100 })) as Array<{ turnId: string }>;
      for (const turn of [one, two, three]) expect(ended.filter((e) => e.turnId === turn.turnId)).toHaveLength(1);
      // The endings written in the restore's batch went out before its checkpoint.created, all in seq order.
      const seqs = h.events.map((e) => e.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      const order = h.events
        .map((e) => e.type)
        .filter((t) => t === 'agent.unanswered' || t === 'checkpoint.created' || t === 'checkpoint.restored');
      expect(order.slice(-3)).toEqual(['agent.unanswered', 'checkpoint.created', 'checkpoint.restored']);
    } finally {
      await h.runtime.stop();
      await db.close();
    }
  });
});
