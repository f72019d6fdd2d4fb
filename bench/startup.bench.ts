/**
 * Bench 5: start-up of the compiled package. `vigil run` on an empty data dir until its "gateway listening" line, and
 * one client call (`vigil rpc heartbeat.status`) against a running daemon, beside `node -e 0` (the process start
 * floor) measured in turn with them, and against the absolute targets (400 ms and 250 ms). The boot is also held to
 * its dependency floor, measured in turn with it: a bare Node importing only the core dependencies
 * (`core-deps-floor.mjs`), at most 1.5× (issue 51): what Vigil adds to them must stay small.
 */
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, percentile, withTempDir } from './bench-utils.js';
import { timeToExit, timeToLine, type TimedLine } from './child-timing.js';
import { pairedRatioCheck, ratioCheck, ratioInfo, sanity, type BenchOutcome, type Measure } from './report.js';

/** How many of each. */
export interface StartupOptions {
  boots: number;
  calls: number;
}

export const DEFAULT_STARTUP_OPTIONS: StartupOptions = { boots: 15, calls: 25 };

/** The targets of the start-up issue, in ms: absolute, unlike every other limit here. */
export const STARTUP_TARGETS = { bootMs: 400, cliMs: 250 } as const;

/** The most a boot may take against its dependency floor, measured in the same run. */
export const BOOT_DEPS_FLOOR_LIMIT = 1.5;

const BIN = fileURLToPath(new URL('../bin/vigil.js', import.meta.url));
const FLOOR = ['-e', '0'];
// XState, zod, LevelDB, ws, RxJS and pino imported from node_modules, and nothing else.
const DEPS_FLOOR = [fileURLToPath(new URL('./core-deps-floor.mjs', import.meta.url))];
const isListening = (line: Record<string, unknown>): boolean => line['msg'] === 'gateway listening';

/** Starts a daemon on a fresh empty dir under `root`; resolves once it listens. */
async function boot(root: string): Promise<TimedLine & { dataDir: string }> {
  const dataDir = await mkdtemp(join(root, 'boot-'));
  const started = await timeToLine([BIN, 'run', '--data-dir', dataDir, '--port', '0'], isListening);
  return { ...started, dataDir };
}

/** SIGTERM, as an operator stops it; resolves with the exit code. */
async function stop(daemon: TimedLine): Promise<number | null> {
  daemon.child.kill('SIGTERM');
  return daemon.exited;
}

/** Runs bench 5. */
export async function startupBench(options: StartupOptions = DEFAULT_STARTUP_OPTIONS): Promise<BenchOutcome> {
  return withTempDir('startup', async (root) => {
    const bootMs: number[] = [];
    const bootFloorMs: number[] = [];
    const depsFloorMs: number[] = [];
    const stopCodes: Array<number | null> = [];
    // One of each first, not counted: the file system cache then holds node, dist and node_modules for every run.
    await timeToExit(FLOOR);
    await timeToExit(DEPS_FLOOR);
    stopCodes.push(await stop(await boot(root)));
    // Floors and boot alternate, so drift in the machine's speed reaches them alike.
    for (let i = 0; i < options.boots; i += 1) {
      bootFloorMs.push((await timeToExit(FLOOR)).ms);
      depsFloorMs.push((await timeToExit(DEPS_FLOOR)).ms);
      const daemon = await boot(root);
      bootMs.push(daemon.ms);
      stopCodes.push(await stop(daemon));
    }

    const daemon = await boot(root);
    const callMs: number[] = [];
    const callFloorMs: number[] = [];
    const versionMs: number[] = [];
    const failedCalls: string[] = [];
    try {
      const call = [BIN, 'rpc', 'heartbeat.status', '--url', String(daemon.line['url']), '--data-dir', daemon.dataDir];
      await timeToExit(call);
      for (let i = 0; i < options.calls; i += 1) {
        callFloorMs.push((await timeToExit(FLOOR)).ms);
        const result = await timeToExit(call);
        callMs.push(result.ms);
        const answered =
          result.code === 0 &&
          typeof (JSON.parse(result.stdout || 'null') as { beatCount?: unknown } | null)?.beatCount === 'number';
        if (!answered) failedCalls.push(`exit ${result.code}: ${result.stderr.trim() || result.stdout.trim()}`);
      }
      for (let i = 0; i < 10; i += 1) versionMs.push((await timeToExit([BIN, '--version'])).ms);
    } finally {
      stopCodes.push(await stop(daemon));
    }

    const ms = (value: number, what: string): Measure => ({ value, unit: 'ms', what });
    const boot50 = median(bootMs);
    const call50 = median(callMs);
    return {
      id: 'startup',
      title: `5. Start-up (${options.boots} boots on empty data dirs, ${options.calls} CLI calls, each after a node -e 0)`,
      checks: [
        ratioCheck(
          'startup.boot',
          'vigil run → "gateway listening", median / target',
          ms(boot50, 'boot'),
          ms(STARTUP_TARGETS.bootMs, 'target'),
          '<=',
          1,
        ),
        // Each boot over the floor run just before it: drift in the machine's load between pairs does not move it.
        pairedRatioCheck(
          'startup.boot-deps',
          'vigil run → "gateway listening" / node importing xstate, zod, level, ws, rxjs and pino',
          { values: bootMs, unit: 'ms', what: 'boot' },
          { values: depsFloorMs, unit: 'ms', what: 'core dependencies' },
          '<=',
          BOOT_DEPS_FLOOR_LIMIT,
        ),
        ratioInfo(
          'startup.boot-floor',
          'vigil run → "gateway listening" / node -e 0',
          ms(boot50, 'boot'),
          ms(median(bootFloorMs), 'node -e 0'),
        ),
        ratioCheck(
          'startup.cli',
          'vigil rpc heartbeat.status wall, median / target',
          ms(call50, 'CLI call'),
          ms(STARTUP_TARGETS.cliMs, 'target'),
          '<=',
          1,
        ),
        ratioInfo(
          'startup.cli-floor',
          'vigil rpc heartbeat.status / node -e 0',
          ms(call50, 'CLI call'),
          ms(median(callFloorMs), 'node -e 0'),
        ),
      ],
      details: [
        { label: 'boot to "gateway listening", median', value: boot50, unit: 'ms' },
        { label: 'boot to "gateway listening", p90', value: percentile(bootMs, 90), unit: 'ms' },
        { label: 'node -e 0 beside the boots, median', value: median(bootFloorMs), unit: 'ms' },
        { label: "core dependencies imported (the boot's floor), median", value: median(depsFloorMs), unit: 'ms' },
        { label: 'vigil rpc heartbeat.status, median', value: call50, unit: 'ms' },
        { label: 'vigil rpc heartbeat.status, p90', value: percentile(callMs, 90), unit: 'ms' },
        { label: 'node -e 0 beside the calls, median', value: median(callFloorMs), unit: 'ms' },
        { label: 'vigil --version (the binary alone), median', value: median(versionMs), unit: 'ms' },
      ],
      sanity: [
        sanity(
          'every CLI call printed a status',
          failedCalls.length === 0,
          failedCalls.length === 0 ? `${options.calls} of ${options.calls}` : failedCalls[0]!,
        ),
        sanity(
          'every daemon stopped cleanly on SIGTERM',
          stopCodes.every((code) => code === 0),
          `exit codes ${[...new Set(stopCodes)].join(', ')}`,
        ),
      ],
      notes: [
        'Wall time from spawn, through bin/vigil.js and the compiled dist/ (npm run bench builds first); vigil run loads its bundle, dist/bundle/.',
        'The targets are absolute; node -e 0 beside them is what Node itself takes to start and exit on this machine.',
        'The dependency floor (bench/core-deps-floor.mjs) imports xstate, zod, level, ws, rxjs and pino from node_modules and exits; the boot must stay within 1.5x of it.',
      ],
    };
  });
}

// `node --import tsx bench/startup.bench.ts` runs it alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const outcome = await startupBench();
  console.log(JSON.stringify(outcome, null, 2));
}
