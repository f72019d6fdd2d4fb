/** `vigil run`: validate config, open the store, restore, beat, serve the gateway; stop cleanly on SIGTERM/SIGINT. */
import { loadConfig, parseRunArgs, type VigilConfig } from './config.js';
import { describeError, isVigilError } from './errors.js';
import { startGateway } from './gateway/http-server.js';
import { assertTokenPolicy, ensureTokenFile } from './shared/token-file.js';
import { createRuntime } from './runtime/create-runtime.js';
import { createLogger } from './shared/logger.js';
import { repairVigilDb, withRepairHint } from './subsystems/store/vigil-db.js';

/** Where the daemon writes what is not a log line (usage and configuration errors). */
export interface DaemonIo {
  env: Record<string, string | undefined>;
  stderr: (line: string) => void;
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
    io.stderr(`vigil: ${describeError(err)}`);
    return isVigilError(err) ? 2 : 1;
  }
  const log = createLogger(config.logLevel);

  if (repair) {
    try {
      const recovered = await repairVigilDb(config.dataDir);
      // What survived; the boot that follows still validates every checkpoint (checkpoint.corrupt for the bad ones).
      log.info({ dataDir: config.dataDir, ...recovered }, 'store repaired');
    } catch (err) {
      log.error({ err: describeError(err) }, 'store repair failed');
      io.stderr(`vigil: ${describeError(err)}`);
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
    io.stderr(`vigil: ${describeError(err)}`);
    // A wrong or missing VIGIL_CHECKPOINT_KEY for a sealed data dir is a configuration error, like an invalid value.
    return code === 'CONFIG_INVALID' || code === 'STORE_KEY_INVALID' ? 2 : 1;
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
  try {
    let token = config.token;
    if (token === undefined) {
      const file = await ensureTokenFile(config.dataDir);
      token = file.token;
      log.info({ tokenFile: file.path, created: file.created }, file.created ? 'gateway token created in the data dir' : 'gateway token read from the data dir');
    }
    gateway = await startGateway({
      host: config.host,
      port: config.port,
      runtime,
      token,
      log,
      maxSubscriptions: config.maxSubscriptions,
      subscriberBuffer: config.subscriberBuffer,
      rpcRateLimit: config.rpcRateLimit,
      rpcRateBurst: config.rpcRateBurst,
    });
  } catch (err) {
    log.error({ err: describeError(err) }, 'gateway failed to start');
    io.stderr(`vigil: the gateway cannot listen on ${config.host}:${config.port}: ${describeError(err)}`);
    await runtime.stop('gateway_failed');
    return 1;
  }
  // Handlers go in before the line that tells clients we are up: a SIGTERM right after it must stop us cleanly.
  const stopSignal = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  log.info({ url: gateway.url }, 'gateway listening');
  listening();

  const signal = await stopSignal;
  log.info({ signal }, 'stopping: finishing the current beat and writing a final checkpoint');
  await gateway.close();
  await runtime.stop(signal);
  log.info({ beatCount: runtime.status().beatCount }, 'stopped');
  return 0;
}
