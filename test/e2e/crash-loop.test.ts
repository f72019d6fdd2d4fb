import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCrashLoop, type CrashLoopReport } from '../faults/crash-loop-harness.js';
import { seedFrom } from '../faults/seeded-random.js';

// VIGIL_CRASH_SEED=<n> deals the same kill moments again (the second loop uses n + 1); VIGIL_CRASH_KILLS raises the
// count. `npm run soak` runs the same harness for 500 kills.
const SEED = seedFrom(process.env, 'VIGIL_CRASH_SEED');
const KILLS = Math.max(25, Number(process.env['VIGIL_CRASH_KILLS'] ?? 25) || 25);
// Two loops on two data dirs at once: a daemon start is mostly one core's work (~0.3 s idle, compiled), so two cores
// halve the wall time.
const LOOPS = [
  { seed: SEED, kills: Math.ceil(KILLS / 2) },
  { seed: (SEED + 1) >>> 0, kills: Math.floor(KILLS / 2) },
];

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function loop(seed: number, kills: number): Promise<CrashLoopReport> {
  const dataDir = await mkdtemp(join(tmpdir(), 'vigil-crash-loop-'));
  dirs.push(dataDir);
  return runCrashLoop({ dataDir, kills, seed, progress: (line) => console.log(line) });
}

describe('vigil run in a crash loop (CONTRACT §6)', () => {
  it(
    `survives ${KILLS} SIGKILLs at random moments (seeds ${LOOPS.map((l) => l.seed).join(', ')}) without losing a checkpoint, a goal, a message or a cent`,
    async () => {
      const reports = await Promise.all(LOOPS.map(({ seed, kills }) => loop(seed, kills)));
      for (const report of reports) console.log(`crash loop report: ${JSON.stringify(report)}`);
      expect(reports.reduce((sum, r) => sum + r.kills, 0)).toBe(KILLS);
      for (const report of reports) {
        // Kill moments are dealt from a shuffled deck of 10, so each loop of 12+ kills meets every kind.
        for (const count of Object.values(report.killsByMode)) expect(count).toBeGreaterThan(0);
        expect(report.maxCheckpointBeat).toBeGreaterThan(0);
        expect(report.goalsVerified).toBeGreaterThan(0);
        expect(report.spentTodayUsd).toBeGreaterThan(0);
        expect(report.finalCheckpoints).toBeLessThanOrEqual(3);
      }
      expect(reports.reduce((sum, r) => sum + r.messagesVerified, 0)).toBeGreaterThan(0);
    },
    // The loop takes ~15 s (daemon starts ~0.9 s each with two loops on a loaded two-core box); bounded well above that.
    240_000,
  );
});
