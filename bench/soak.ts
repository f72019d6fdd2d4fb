/**
 * `npm run soak`: the long run (1,000,000 beats in-process, memory bounds) and the crash loop (500 SIGKILLs of
 * `vigil run`). Not part of `npm test`. Exits 1 when a bound or a promise of CONTRACT §6 is broken.
 *
 *     npm run soak                                   # both, full size (about 13 minutes on two cores)
 *     npm run soak -- --beats 200000 --kills 50      # smaller
 *     npm run soak -- --only beats | --only kills    # one of the two
 *     npm run soak -- --seed 1234                    # the crash loop's kill moments (also VIGIL_CRASH_SEED)
 *     npm run soak -- --only beats --unpaced         # never wait for the journal and saves to catch up (see soak-beats.ts)
 */
import { parseArgs } from 'node:util';
import { runCrashLoop, type CrashLoopReport } from '../test/faults/crash-loop-harness.js';
import { seedFrom } from '../test/faults/seeded-random.js';
import { withTempDir } from './bench-utils.js';
import { DEFAULT_BEAT_SOAK, SOAK_BOUNDS, mib, runBeatSoak, type BeatSoakReport } from './soak-beats.js';

const { values } = parseArgs({
  options: {
    beats: { type: 'string' },
    kills: { type: 'string' },
    seed: { type: 'string' },
    only: { type: 'string' },
    unpaced: { type: 'boolean' },
  },
});
const beats = Number(values.beats ?? DEFAULT_BEAT_SOAK.beats);
const kills = Number(values.kills ?? 500);
const seed = values.seed !== undefined ? Number(values.seed) >>> 0 : seedFrom(process.env, 'VIGIL_CRASH_SEED');
const only = values.only;
const say = (line: string): void => void process.stdout.write(`${line}\n`);
const int = (n: number): string => Math.round(n).toLocaleString('en');

let failed = false;

function printBeats(report: BeatSoakReport): void {
  say('');
  say(
    `Long run: ${int(report.beats)} beats in ${report.seconds.toFixed(1)} s after warm-up (${int(report.beatsPerSecond)} beats/s)`,
  );
  say(`  forced GC before each sample: ${report.forcedGc ? 'yes' : 'NO (run with node --expose-gc)'}`);
  say(
    `  heap used   start ${mib(report.start.heapUsed)} MiB, after warm-up (beat ${int(report.warm.beat)}) ${mib(report.warm.heapUsed)} MiB, end ${mib(report.end.heapUsed)} MiB` +
      `  → growth ${mib(report.end.heapUsed - report.warm.heapUsed)} MiB (bound ${mib(SOAK_BOUNDS.heapGrowthBytes)} MiB)`,
  );
  say(
    `  RSS         start ${mib(report.start.rss)} MiB, after warm-up ${mib(report.warm.rss)} MiB, end ${mib(report.end.rss)} MiB` +
      `  → growth ${mib(report.end.rss - report.warm.rss)} MiB (bound ${mib(SOAK_BOUNDS.rssGrowthBytes)} MiB)`,
  );
  say(
    `  samples (beat: heap / rss MiB): ${report.samples.map((s) => `${int(s.beat)}: ${mib(s.heapUsed)} / ${mib(s.rss)}`).join(', ')}`,
  );
  const c = report.checkpoints;
  say(
    `  checkpoints: ${int(c.created)} created, ${c.stored} stored, newest ${int(c.newestSizeBytes)} B, largest ${int(c.maxSizeBytes)} B, ${int(c.storedBytes)} B in all; at most ${report.maxPendingSaves} saves queued at once`,
  );
  say(
    `  pacing: ${values.unpaced === true ? 'none (--unpaced)' : `every ${int(DEFAULT_BEAT_SOAK.paceEvery)} beats, waiting at most ${int(report.maxIoWaitMs)} ms for the journal and saves`}`,
  );
  const top = Object.entries(report.events.byType)
    .sort((a, b) => b[1] - a[1])
    .map(([type, n]) => `${type} ${int(n)}`)
    .join(', ');
  say(`  events: ${int(report.events.total)} (${top})`);
  say(`  spent today at the end: $${report.spentUsd.toFixed(4)}; LevelDB directory ${mib(report.dbBytes)} MiB`);
  say(`  result: ${report.problems.length === 0 ? 'PASS' : `FAIL: ${report.problems.join('; ')}`}`);
}

function printKills(report: CrashLoopReport): void {
  say('');
  say(`Crash loop: ${report.kills} SIGKILLs in ${(report.durationMs / 1000).toFixed(0)} s, seed ${report.seed}`);
  say(
    `  kill moments: ${Object.entries(report.killsByMode)
      .map(([m, n]) => `${m} ${n}`)
      .join(
        ', ',
      )}; ${report.savesCutShort} mid-save kills cut a save short, ${report.bootsCutShort} boot kills landed before the restore finished`,
  );
  say(
    `  checkpoints reported stored ${report.checkpointsCreated}, highest beat ${report.maxCheckpointBeat}, ${report.finalCheckpoints} left after the final stop`,
  );
  say(
    `  goals verified after restarts ${report.goalsVerified}, messages acknowledged before a kill and found answered ${report.messagesVerified}`,
  );
  say(`  spent today $${report.spentTodayUsd.toFixed(4)}; highest event seq ${int(report.maxSeq)}`);
  say(
    `  boot (spawn to "gateway listening"): median ${int(report.bootMs.median)} ms, max ${int(report.bootMs.max)} ms`,
  );
  say(
    '  result: PASS (every restart booted, never restored below a stored checkpoint, kept ≤ max checkpoints, all decodable, spend never fell, goals and messages kept)',
  );
}

if (only !== 'kills') {
  say(
    `Long run: ${int(beats)} beats, simulated clock (10 ms beats), offline thinker, checkpoints every ${int(DEFAULT_BEAT_SOAK.checkpointIntervalBeats)} beats…`,
  );
  await withTempDir('soak', async (dataDir) => {
    const report = await runBeatSoak({
      ...DEFAULT_BEAT_SOAK,
      dataDir,
      beats,
      warmupBeats: Math.min(DEFAULT_BEAT_SOAK.warmupBeats, Math.floor(beats / 5)),
      paceEvery: values.unpaced === true ? 0 : DEFAULT_BEAT_SOAK.paceEvery,
      progress: say,
    });
    printBeats(report);
    if (report.problems.length > 0) failed = true;
  });
}

if (only !== 'beats') {
  say('');
  // Two loops on two data dirs at once, as in the test: a daemon start is mostly one core's work, and there are two.
  const loops = [
    { seed, kills: Math.ceil(kills / 2), label: 'crash-loop-a' },
    { seed: (seed + 1) >>> 0, kills: Math.floor(kills / 2), label: 'crash-loop-b' },
  ].filter((loop) => loop.kills > 0);
  const started = performance.now();
  const outcomes = await Promise.allSettled(
    loops.map((loop) =>
      withTempDir(loop.label, (dataDir) =>
        runCrashLoop({
          dataDir,
          kills: loop.kills,
          seed: loop.seed,
          progress: (line) => say(`[${loop.label}] ${line}`),
          progressEvery: 25,
        }),
      ),
    ),
  );
  for (const outcome of outcomes) {
    if (outcome.status === 'fulfilled') printKills(outcome.value);
    else {
      failed = true;
      say(`Crash loop FAILED: ${outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason)}`);
    }
  }
  say(`\nCrash loops: ${kills} kills in all, ${((performance.now() - started) / 60_000).toFixed(1)} min`);
}

say('');
say(failed ? 'soak: FAILED' : 'soak: passed');
process.exitCode = failed ? 1 : 0;
