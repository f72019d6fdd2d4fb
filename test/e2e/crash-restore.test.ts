import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import { createSimulatedClock } from '../../src/shared/clock.js';
import { CheckpointStore } from '../../src/subsystems/checkpoint/checkpoint.store.js';
import type { CognitiveCheckpoint } from '../../src/protocol/checkpoint-format.schema.js';
import { SUBLEVELS, vigilDbLocation, type VigilDb } from '../../src/subsystems/store/vigil-db.js';
import { settle } from '../fixtures/runtime.fixture.js';
import { FAST_ENV, startDaemon, type DaemonProcess } from './daemon-process.js';

let dataDir: string;
const started: DaemonProcess[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'vigil-e2e-'));
});
afterAll(async () => {
  for (const daemon of started) daemon.kill('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

function run(extraEnv: Record<string, string> = {}): DaemonProcess {
  const daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], { ...FAST_ENV, ...extraEnv });
  started.push(daemon);
  return daemon;
}

/** Opens the (unlocked) data dir, runs `fn` on it, closes it. */
async function withStore<T>(fn: (store: CheckpointStore, db: VigilDb) => Promise<T>): Promise<T> {
  const db = new Level(vigilDbLocation(dataDir)) as unknown as VigilDb;
  await db.open();
  try {
    const store = new CheckpointStore(db, createSimulatedClock(Date.now()));
    await store.open();
    return await fn(store, db);
  } finally {
    await db.close();
  }
}

const newestCheckpoint = () =>
  withStore(async (store) => {
    const [meta] = await store.list({ limit: 1 });
    return store.load(meta!.id);
  });

const isCreated = (line: Record<string, unknown>) => line.msg === 'checkpoint.created';
const countCreated = (daemon: DaemonProcess) => daemon.lines.filter(isCreated).length;

async function killAfterCheckpoints(daemon: DaemonProcess, count: number): Promise<void> {
  await daemon.waitFor(() => countCreated(daemon) >= count, 20_000, `${count} checkpoints`);
  daemon.kill('SIGKILL');
  expect(await daemon.exited).toBe('SIGKILL');
}

describe('vigil run, killed with SIGKILL and started again', () => {
  it('seeds an agent with goals, memory and feelings through the library', async () => {
    // Real time on a simulated clock: the agent's state is made in the "now" the daemon will resume in.
    const clock = createSimulatedClock(Date.now());
    const runtime = await createRuntime({ config: { dataDir, beatMs: 1000, beatMinMs: 1000, beatMaxMs: 1000 }, clock });
    runtime.start();
    runtime.addGoal({ title: 'Keep the lighthouse lit', priority: 9 });
    runtime.addGoal({ title: 'Log the ships that pass', priority: 4 });
    await runtime.send({ text: 'Remember the harbour code is 4417. Wonderful work today!' });
    for (let i = 0; i < 3; i += 1) {
      clock.increment(1000);
      await settle();
      await runtime.flush();
    }
    await runtime.stop();
  });

  it('restores beat count, goals, working memory and affect from the newest checkpoint', async () => {
    const first = run();
    await killAfterCheckpoints(first, 3);
    const newest = await newestCheckpoint();
    expect(newest.actors.goals.goals).toHaveLength(2);
    expect(newest.actors.workingMemory.items.length).toBeGreaterThan(0);

    const second = run();
    const restored = await second.waitFor((l) => l.msg === 'checkpoint.restored', 20_000, 'checkpoint.restored');
    expect(restored).toMatchObject({
      type: 'checkpoint.restored',
      checkpointId: newest.id,
      beatsRecovered: newest.beatCount,
    });
    const startedLine = await second.waitFor((l) => l.msg === 'runtime started');
    expect(startedLine).toMatchObject({ restoredFrom: newest.id, beatCount: newest.beatCount, goals: 2 });
    expect(startedLine.memoryItems).toBe(newest.actors.workingMemory.items.length);
    // The log shows affect as it is at start: the checkpoint's, decayed over the second or two since (half-life 5 min).
    const affect = startedLine.affect as Record<string, number>;
    for (const [dimension, value] of Object.entries(newest.actors.affect.dimensions)) {
      expect(affect[dimension]).toBeCloseTo(value, 2);
    }
    await second.waitFor((l) => l.msg === 'gateway listening');
    await killAfterCheckpoints(second, 2);
  });

  it('skips a corrupt newest checkpoint with checkpoint.corrupt and resumes from the next older one', async () => {
    const [newest, older] = await withStore(async (store, db) => {
      const metas = await store.list({ limit: 2 });
      const bodies = db.sublevel<string, Uint8Array>(SUBLEVELS.checkpointBodies, { valueEncoding: 'view' });
      await bodies.put(metas[0]!.id, new TextEncoder().encode('not a gzip stream'));
      return [metas[0]!, await store.load(metas[1]!.id)] as const;
    });

    const third = run();
    const corrupt = await third.waitFor((l) => l.msg === 'checkpoint.corrupt', 20_000, 'checkpoint.corrupt');
    expect(corrupt).toMatchObject({ level: 40, type: 'checkpoint.corrupt', checkpointId: newest.id });
    const startedLine = await third.waitFor((l) => l.msg === 'runtime started');
    expect(startedLine).toMatchObject({ restoredFrom: older.id, beatCount: older.beatCount, goals: 2 });
    await third.waitFor((l) => l.msg === 'gateway listening');

    // A second daemon on the same data dir refuses at once.
    const intruder = run();
    expect(await intruder.exited).toBe(1);
    expect(intruder.stderr()).toMatch(/in use/);

    // SIGTERM: finish the beat, write a final checkpoint, exit 0.
    third.kill('SIGTERM');
    expect(await third.exited).toBe(0);
    // A final checkpoint was written after the stop began (a periodic one may still land just before it).
    const msgs = third.lines.map((l) => l.msg);
    const stopping = msgs.findIndex((m) => typeof m === 'string' && m.startsWith('stopping'));
    expect(stopping).toBeGreaterThan(-1);
    expect(msgs.slice(stopping)).toContain('checkpoint.created');
    expect(msgs.at(-1)).toBe('stopped');
    const final: CognitiveCheckpoint = await newestCheckpoint();
    expect(final.beatCount).toBeGreaterThanOrEqual(older.beatCount);
    expect(final.actors.goals.goals.map((g) => g.title)).toEqual(older.actors.goals.goals.map((g) => g.title));
  });
});
