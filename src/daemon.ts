/** `vigil run`: validate config, open the store, restore, beat, serve the gateway; stop cleanly on SIGTERM/SIGINT. */
import { statSync } from 'node:fs';
import { delimiter } from 'node:path';
import { DEFAULT_CONFIG_ENV, loadConfig, parseRunArgs, unknownVariables, type VigilConfig } from './config.js';
import { describeError, isVigilError, VigilError } from './errors.js';
import { startGateway } from './gateway/http-server.js';
import { cliInvocation, nextStepsLine } from './gateway/next-steps.js';
import { assertCanListen, listenError } from './gateway/port-check.js';
import { assertDataDirUsable } from './shared/data-dir-check.js';
import { findExposedPaths, tightenExposedPaths } from './shared/data-dir-exposure.js';
import { makeNewFilesPrivate } from './shared/private-files.js';
import { failureReport } from './shared/failure-report.js';
import { clientReachableUrl, readDaemonFile, removeDaemonFile, writeDaemonFile } from './shared/daemon-file.js';
import { assertTokenPolicy, ensureTokenFile } from './shared/token-file.js';
import { createRuntime } from './runtime/create-runtime.js';
import { createLogger, type VigilLogger } from './shared/logger.js';
import { repairVigilDb, withRepairHint } from './subsystems/store/vigil-db.js';

/** Where the daemon writes what is not a log line (usage and configuration errors, the next-steps line). */
export interface DaemonIo {
  env: Record<string, string | undefined>;
  stderr: (line: string) => void;
  /** Stdout is a terminal: log lines are written for a person instead of as JSON. */
  stdoutIsTerminal?: boolean;
}

/** The line a start-up failure prints on stderr (its stack too with VIGIL_LOG_LEVEL=debug or trace). */
function failureLine(err: unknown, io: DaemonIo): string {
  return failureReport(err, io.env).trimEnd();
}

/** Exit code for a start-up error (CONTRACT §2): 2 for configuration (a sealed data dir's key included), else 1. */
function startExitCode(err: unknown): number {
  return isVigilError(err, 'CONFIG_INVALID') || isVigilError(err, 'STORE_KEY_INVALID') ? 2 : 1;
}

/**
 * Before anything is opened: the port is free (a taken port says --port, or that this data dir's own daemon has it)
 * and the data dir can be created and read. Throws the VigilError to report.
 */
async function preflight(config: VigilConfig): Promise<void> {
  try {
    await assertCanListen(config.host, config.port);
  } catch (err) {
    const running = isVigilError(err, 'GATEWAY_PORT_IN_USE') ? await readDaemonFile(config.dataDir) : undefined;
    if (running?.kind === 'found' && running.alive) {
      throw new VigilError(
        'STORE_LOCKED',
        `The data dir ${config.dataDir} is in use by another Vigil daemon (pid ${running.info.pid}, listening at ${running.info.url}).`,
        { cause: err },
      );
    }
    throw err;
  }
  await assertDataDirUsable(config.dataDir);
}

/** Warns (once, at boot) about each `VIGIL_*` variable no setting reads, naming the nearest known one. */
function warnUnknownVariables(env: DaemonIo['env'], log: VigilLogger): void {
  for (const { name, suggestion } of unknownVariables(env)) {
    const hint = suggestion === undefined ? 'no Vigil setting has this name' : `did you mean ${suggestion}?`;
    log.warn({ variable: name, suggestion }, `unknown variable ${name} is ignored: ${hint}`);
  }
}

/** Runs the daemon until a signal stops it; resolves to the exit code (CONTRACT §2). */
export async function runDaemon(argv: string[], io: DaemonIo): Promise<number> {
  let config: VigilConfig;
  let repair: boolean;
  try {
    const args = parseRunArgs(argv);
    repair = args.repair;
    config = loadConfig(io.env, args.flags);
    // Before anything is opened: a gateway reachable from other machines needs a token the operator chose.
    assertTokenPolicy(config);
  } catch (err) {
    io.stderr(failureLine(err, io));
    return isVigilError(err) ? 2 : 1;
  }
  // Before the first file is made: the data dir, its token and every LevelDB file are the user's alone (why a umask,
  // and why only here: private-files.ts).
  makeNewFilesPrivate();
  const terminal = io.stdoutIsTerminal === true;
  const log = createLogger(config.logLevel, {
    pretty: terminal,
    colour: terminal && (io.env['NO_COLOR'] ?? '') === '',
  });
  warnUnknownVariables(io.env, log);

  try {
    await preflight(config);
  } catch (err) {
    log.error({ code: isVigilError(err) ? err.code : 'INTERNAL', err: describeError(err) }, 'cannot start');
    io.stderr(failureLine(err, io));
    return startExitCode(err);
  }
  // Wider modes than 0700/0600 are tightened before anything is opened (CONTRACT §4).
  await tightenExposedPaths(await findExposedPaths(config.dataDir, config.token === undefined), log);

  if (repair) {
    try {
      const recovered = await repairVigilDb(config.dataDir);
      // What survived; the boot that follows still validates every checkpoint (checkpoint.corrupt for the bad ones).
      log.info({ dataDir: config.dataDir, ...recovered }, 'store repaired');
    } catch (err) {
      log.error({ err: describeError(err) }, 'store repair failed');
      io.stderr(failureLine(err, io));
      return 1;
    }
  }

  // Settles once the gateway listens: background work such as long-term memory's index build waits for it.
  let listening!: () => void;
  const backgroundWorkAfter = new Promise<void>((resolve) => (listening = resolve));
  let runtime;
  try {
    runtime = await createRuntime({ config, logger: log, backgroundWorkAfter });
  } catch (thrown) {
    // A store that fails to open or read at boot: say which data dir, and how to repair it.
    const err = withRepairHint(thrown, config.dataDir);
    const code = isVigilError(err) ? err.code : 'INTERNAL';
    log.error({ code, err: describeError(err) }, 'cannot start');
    io.stderr(failureLine(err, io));
    // A wrong or missing VIGIL_CHECKPOINT_KEY for a sealed data dir is a configuration error, like an invalid value.
    return startExitCode(err);
  }
  runtime.start();
  const status = runtime.status();
  log.info(
    {
      restoredFrom: status.restoredFrom,
      beatCount: status.beatCount,
      goals: runtime.listGoals().length,
      memoryItems: runtime.listMemory().length,
      affect: runtime.getAffect(),
      thinker: status.thinker,
      version: status.version,
    },
    'runtime started',
  );

  let gateway;
  let tokenFile: string | undefined;
  try {
    let token = config.token;
    if (token === undefined) {
      const file = await ensureTokenFile(config.dataDir);
      token = file.token;
      tokenFile = file.path;
      log.info(
        { tokenFile: file.path, created: file.created },
        file.created ? 'gateway token created in the data dir' : 'gateway token read from the data dir',
      );
    }
    gateway = await startGateway({
      host: config.host,
      port: config.port,
      runtime,
      token,
      log,
      maxSubscriptions: config.maxSubscriptions,
      maxConnections: config.maxConnections,
      sessionHours: config.sessionHours,
      subscriberBuffer: config.subscriberBuffer,
      rpcRateLimit: config.rpcRateLimit,
      rpcRateBurst: config.rpcRateBurst,
      mcpTools: config.mcpServerTools,
      allowedHosts: config.allowedHosts,
      allowedOrigins: config.allowedOrigins,
      ...(config.publicUrl === undefined ? {} : { publicUrl: config.publicUrl }),
    });
  } catch (thrown) {
    // The port was free a moment ago (preflight); another program may have taken it since.
    const err = isVigilError(thrown) ? thrown : listenError(thrown, config.host, config.port);
    log.error({ code: err.code, err: describeError(err) }, 'gateway failed to start');
    io.stderr(failureLine(err, io));
    await runtime.stop('gateway_failed');
    return startExitCode(err);
  }
  // Handlers go in before the line that tells clients we are up: a SIGTERM right after it must stop us cleanly.
  const stopSignal = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  const clientUrl = clientReachableUrl(gateway.url);
  // OAuth sign-ins of remote MCP servers come back here unless VIGIL_PUBLIC_URL names another address.
  runtime.mcpServers.useGatewayUrl(clientUrl);
  // A webhook may not post to the gateway itself (CONTRACT §16), at whichever address it listens.
  runtime.webhooks.useGatewayUrl(gateway.url);
  runtime.webhooks.useGatewayUrl(clientUrl);
  try {
    // Before the line clients wait for, so `vigil … --data-dir D` finds this daemon as soon as it says it listens.
    const path = await writeDaemonFile(config.dataDir, {
      url: clientUrl,
      pid: process.pid,
      startedAt: new Date().toISOString(),
    });
    log.info({ daemonFile: path }, 'daemon file written');
  } catch (err) {
    // Clients then need --url or VIGIL_PORT; the daemon itself runs on.
    log.warn({ err: describeError(err) }, 'the daemon file could not be written: clients must be given --url');
  }
  log.info({ url: gateway.url }, 'gateway listening');
  const dataDirFlag = config.dataDir === DEFAULT_CONFIG_ENV['VIGIL_DATA_DIR'] ? undefined : config.dataDir;
  const cli = cliInvocation(io.env['PATH'], isFile, delimiter);
  io.stderr(nextStepsLine({ url: clientUrl, tokenFile, dataDirFlag, cli }));
  listening();

  const signal = await stopSignal;
  log.info({ signal }, 'stopping: finishing the current beat and writing a final checkpoint');
  // First: from here on no client should be sent to this daemon.
  await removeDaemonFile(config.dataDir, process.pid).catch((err: unknown) =>
    log.warn({ err: describeError(err) }, 'the daemon file could not be removed'),
  );
  await gateway.close();
  await runtime.stop(signal);
  log.info({ beatCount: runtime.status().beatCount }, 'stopped');
  return 0;
}

/** Whether `path` is a file (the CLI's `vigil` on PATH); false for anything that cannot be read. */
function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
