/**
 * The event seq across restarts of a runtime on on-disk LevelDB: after a clean stop of a runtime that owns its bus
 * (the daemon's case) it continues at the next number; after a crash, or when a host's bus outlives the runtime, it
 * starts a block above the stored ceiling, so no number anyone may have seen is issued again.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EventBus } from '../../src/events/event-bus.js';
import { createRuntime } from '../../src/runtime/create-runtime.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { createSimulatedClock } from '../../src/shared/clock.js';
import { DEFAULT_SEQ_BLOCK_SIZE } from '../../src/subsystems/store/persisted-seq.js';
import { openVigilDb, type VigilDb } from '../../src/subsystems/store/vigil-db.js';
import { settle, TEST_CONFIG } from '../fixtures/runtime.fixture.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const clock = createSimulatedClock(Date.parse('2026-03-01T10:00:00Z'));

/** Starts a runtime on `db` (its own bus unless `bus` is given), beats three times, and returns it with the seqs it emitted. */
async function life(db: VigilDb, dataDir: string, bus?: EventBus): Promise<{ runtime: Runtime; seqs: number[] }> {
  const runtime = await createRuntime({
    config: { ...TEST_CONFIG, dataDir },
    clock,
    db,
    ...(bus === undefined ? {} : { bus }),
  });
  const seqs: number[] = [];
  runtime.events$.subscribe((event) => seqs.push(event.seq));
  runtime.start();
  for (let beat = 0; beat < 3; beat += 1) {
    clock.increment(1000);
    await settle();
    await runtime.flush();
  }
  return { runtime, seqs };
}

async function dataDirAndDb(): Promise<{ dir: string; db: VigilDb }> {
  const dir = await mkdtemp(join(tmpdir(), 'vigil-event-seq-'));
  dirs.push(dir);
  return { dir, db: await openVigilDb(dir) };
}

describe('the event seq across restarts', () => {
  it('continues at the next number after a clean stop, and jumps a block above the ceiling after a crash', async () => {
    const { dir, db } = await dataDirAndDb();
    try {
      const first = await life(db, dir);
      await first.runtime.stop();
      const second = await life(db, dir);
      // Every event of the first life was seen (heartbeat.stopped is its last), so the second starts right after it.
      expect(second.seqs[0]).toBe(first.seqs.at(-1)! + 1);
      // kill -9: the heartbeat stops dead, nothing is closed.
      (second.runtime as unknown as { core: { actor: { stop(): void } } }).core.actor.stop();
      const third = await life(db, dir);
      const jump = third.seqs[0]! - second.seqs.at(-1)!;
      // The ceiling lies 5,000 to 15,000 above the last seq issued, and a restart after a crash starts a block above it.
      expect(jump).toBeGreaterThan(1.5 * DEFAULT_SEQ_BLOCK_SIZE);
      expect(jump).toBeLessThanOrEqual(2.5 * DEFAULT_SEQ_BLOCK_SIZE + 1);
      await third.runtime.stop();
    } finally {
      await db.close();
    }
  });

  it('starts a block above the ceiling after a clean stop when the bus was the host’s, which may stamp more', async () => {
    const { dir, db } = await dataDirAndDb();
    try {
      const bus = new EventBus({ clock, currentBeat: () => 0 });
      const first = await life(db, dir, bus);
      await first.runtime.stop();
      // The host goes on publishing with the same seqs after the runtime stopped.
      const later = bus.emit('heartbeat.stopped', { beatCount: 0, reason: 'host' }).seq;
      const second = await life(db, dir);
      expect(second.seqs[0]).toBeGreaterThan(later + DEFAULT_SEQ_BLOCK_SIZE);
      await second.runtime.stop();
    } finally {
      await db.close();
    }
  });
});
