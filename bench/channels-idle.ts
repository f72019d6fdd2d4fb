/**
 * Bench 18 (c): the idle beat with a connected, idle Telegram channel against the idle beat without one, measured as
 * bench 17 measures it beside webhook endpoints: runtimes on simulated clocks driven beat for beat in rotating
 * repetitions, each drive settled first (journals written, the heap collected), with a second runtime without a
 * channel as the control. The channel's long poll is real HTTP to the fake Bot API, held there until its timeout.
 */
import { createRuntime } from '../src/runtime/create-runtime.js';
import type { Runtime } from '../src/runtime/runtime.js';
import { createSimulatedClock } from '../src/shared/clock.js';
import type { FakeTelegram } from '../test/fixtures/fake-telegram.js';
import { collectGarbage, internalsOf, median, withTempDir, yieldToLoop } from './bench-utils.js';
import { CountingThinker } from './counting-thinker.js';
import { BEAT_MS, START } from './idle-beat.bench.js';
import { pairedRatioCheck, pairedRatioInfo, sanity, type Check, type Detail, type Sanity } from './report.js';
import { BOT_TOKEN, CHANNEL, channelEntry, startFakeTelegram, TOKEN_ENV } from './telegram-rig.js';

/** How much to drive. */
export interface IdleChannelOptions {
  warmupBeats: number;
  beatsPerRep: number;
  reps: number;
}

type SimClock = ReturnType<typeof createSimulatedClock>;

/**
 * Bench 1's `drive`: `beats` beats by `clock.increment(BEAT_MS)`, each in its own macrotask (a setImmediate between
 * beats), so work a beat defers is counted as between real beats; the total in real time, as bench 17 reads it, and
 * the process's CPU time meanwhile (all threads: Node 20 has no `process.threadCpuUsage`, which bench 1's own reads).
 */
async function drive(clock: SimClock, beats: number): Promise<{ totalMs: number; cpuMs: number }> {
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < beats; i += 1) {
    clock.increment(BEAT_MS);
    await new Promise((resolve) => setImmediate(resolve));
  }
  const totalMs = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  await yieldToLoop(1);
  return { totalMs, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/**
 * A runtime that only beats, as bench 1's `startIdleRuntime` makes it (on-disk LevelDB, no checkpoints, a fixed
 * interval, the simulated `clock`), with a Telegram channel on `fake` when one is given.
 */
function startRuntime(dataDir: string, clock: SimClock, thinker: CountingThinker, fake?: FakeTelegram) {
  return createRuntime({
    clock,
    thinker,
    config: {
      dataDir,
      thinker: 'offline',
      checkpointEnabled: false,
      beatMs: BEAT_MS,
      beatMinMs: BEAT_MS,
      beatMaxMs: BEAT_MS,
      ...(fake === undefined ? {} : { channels: { channels: { [CHANNEL]: channelEntry(fake, [810_001]) } } }),
    },
    // The daemon's long poll (30 s, real time): held by the fake and answered empty at its timeout, then asked again.
    ...(fake === undefined ? {} : { channels: { env: { [TOKEN_ENV]: BOT_TOKEN } } }),
  });
}

interface Side {
  runtime: Runtime;
  clock: SimClock;
  thinker: CountingThinker;
  us: number[];
  cpuUs: number[];
}

/** Runs part (c). */
export async function idleChannelBench(
  options: IdleChannelOptions,
): Promise<{ checks: Check[]; details: Detail[]; sanity: Sanity[] }> {
  return withTempDir('channels-idle', async (root) => {
    const fake = await startFakeTelegram();
    const sides: Side[] = [];
    const side = async (name: string, withChannel: boolean): Promise<Side> => {
      const clock = createSimulatedClock(START);
      const thinker = new CountingThinker();
      const runtime = await startRuntime(`${root}/${name}`, clock, thinker, withChannel ? fake : undefined);
      const made = { runtime, clock, thinker, us: [] as number[], cpuUs: [] as number[] };
      sides.push(made);
      return made;
    };
    try {
      const none = await side('none', false);
      const channel = await side('channel', true);
      // A second runtime without a channel: its ratio to the first is what the bench reads when nothing differs.
      const control = await side('control', false);
      for (const { runtime } of sides) runtime.start();
      // Connected (getMe answered) and long polling before any beat is timed.
      await fake.waitForHeldPoll();
      const realStart = performance.now();
      for (const { clock } of sides) await drive(clock, options.warmupBeats);
      const perBeatUs = (ms: number): number => (ms / options.beatsPerRep) * 1000;
      // As bench 17: each repetition drives the three in an order that rotates; before each drive every runtime
      // writes what its journal has queued and the heap is collected, so each drive pays for its own work only.
      for (let rep = 0; rep < options.reps; rep += 1) {
        for (let turn = 0; turn < sides.length; turn += 1) {
          const run = sides[(rep + turn) % sides.length]!;
          for (const { runtime } of sides) await internalsOf(runtime).parts.journal.flush();
          collectGarbage();
          await yieldToLoop(1);
          const { totalMs, cpuMs } = await drive(run.clock, options.beatsPerRep);
          run.us.push(perBeatUs(totalMs));
          run.cpuUs.push(perBeatUs(cpuMs));
        }
      }
      const realS = (performance.now() - realStart) / 1000;
      const expected = options.warmupBeats + options.beatsPerRep * options.reps;
      const [listed] = channel.runtime.channels.list();
      const polls = fake.polls.length;
      const held = await Promise.race([fake.waitForHeldPoll().then(() => true), yieldToLoop(3).then(() => false)]);
      return {
        checks: [
          pairedRatioCheck(
            'channels.idle-beat',
            'idle beat: a connected idle Telegram channel / none',
            { values: channel.us, unit: 'µs/beat', what: 'idle channel' },
            { values: none.us, unit: 'µs/beat', what: 'no channel' },
            '<=',
            1.05,
          ),
          pairedRatioInfo(
            'channels.idle-beat-control',
            'idle beat: a second runtime without a channel / none (what the bench reads when nothing differs)',
            { values: control.us, unit: 'µs/beat', what: 'no channel, second runtime' },
            { values: none.us, unit: 'µs/beat', what: 'no channel' },
          ),
          // CPU time does not count the time the process waited for a core, which other work on the machine adds to.
          pairedRatioInfo(
            'channels.idle-beat-cpu',
            'idle beat in CPU time (the process, all threads): a connected idle Telegram channel / none',
            { values: channel.cpuUs, unit: 'µs/beat', what: 'idle channel' },
            { values: none.cpuUs, unit: 'µs/beat', what: 'no channel' },
          ),
          pairedRatioInfo(
            'channels.idle-beat-cpu-control',
            'idle beat in CPU time: a second runtime without a channel / none',
            { values: control.cpuUs, unit: 'µs/beat', what: 'no channel, second runtime' },
            { values: none.cpuUs, unit: 'µs/beat', what: 'no channel' },
          ),
        ],
        details: [
          { label: 'with an idle channel, median repetition', value: median(channel.us), unit: 'µs/beat' },
          { label: 'without, median repetition', value: median(none.us), unit: 'µs/beat' },
          { label: 'second runtime without, median repetition', value: median(control.us), unit: 'µs/beat' },
          { label: 'getUpdates served, the first included (30 s long polls)', value: polls, unit: 'polls' },
          { label: 'real time the drives took', value: realS, unit: 's' },
        ],
        sanity: [
          sanity(
            'every runtime beat N times, idle (no think)',
            sides.every(({ runtime, thinker }) => runtime.status().beatCount === expected && thinker.thinks === 0),
            sides
              .map(({ runtime, thinker }) => `${runtime.status().beatCount} beats, ${thinker.thinks} thinks`)
              .join('; ') + `; expected ${expected}`,
          ),
          sanity(
            'the channel stayed connected, its long poll held by the fake',
            listed?.account !== undefined && listed.state !== 'failing' && held && polls >= 1,
            `state ${listed?.state}, account ${listed?.account}, poll held: ${held}, ${polls} getUpdates`,
          ),
        ],
      };
    } finally {
      for (const { runtime } of sides) await runtime.stop();
      await fake.close();
    }
  });
}
