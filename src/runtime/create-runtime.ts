/** `createRuntime(options)`: wires store, bus, actors and heartbeat into a `Runtime`, restored from its newest valid checkpoint. */
import { readFile } from 'node:fs/promises';
import { configFromDefaults, type VigilConfig } from '../config.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { createIdFactory } from '../shared/ids.js';
import { silentLogger, type VigilLogger } from '../shared/logger.js';
import { VIGIL_VERSION } from '../shared/version.js';
import { BudgetLedger } from '../subsystems/budget/budget-ledger.js';
import { CheckpointManager } from '../subsystems/checkpoint/checkpoint.manager.js';
import type { CognitiveCheckpoint } from '../protocol/checkpoint-format.schema.js';
import { CheckpointStore } from '../subsystems/checkpoint/checkpoint.store.js';
import type { CheckpointZip } from '../subsystems/checkpoint/checkpoint.codec.js';
import { ConversationLog } from '../subsystems/conversation/conversation-log.js';
import { TurnCloser } from '../subsystems/conversation/turn-closer.js';
import { TurnTimersStore } from '../subsystems/conversation/turn-timers-store.js';
import type { EventBus } from '../events/event-bus.js';
import { EventJournal } from '../subsystems/journal/event-journal.js';
import { PersistedSeq } from '../subsystems/store/persisted-seq.js';
import { openVigilDb, type VigilDb } from '../subsystems/store/vigil-db.js';
import { ScheduleStore } from '../subsystems/schedules/schedule-store.js';
import { sealStore } from '../subsystems/store/store-seal.js';
import { SwarmResultLog } from '../subsystems/swarm-results/swarm-result-log.js';
import { SwarmTaskLog } from '../subsystems/swarm-results/swarm-task-log.js';
import { usdToMicroUsd } from '../subsystems/thinking/pricing.js';
import type { Thinker } from '../subsystems/thinking/thinker.js';
import { DurableToolCaller } from '../subsystems/tools/durable-tool-caller.js';
import { McpHub } from '../subsystems/tools/mcp-hub.js';
import { ToolCallLog } from '../subsystems/tools/tool-call-log.js';
import type { ServerTransport } from '../subsystems/tools/mcp-transport.js';
import type { ConnectionTiming } from '../subsystems/tools/server-connection.js';
import type { McpServerEntry } from '../protocol/mcp-config.schema.js';
import { readBudgetBasis } from './budget-basis.js';
import { createThinker } from './create-thinker.js';

export { createThinker };
import { cacheReadShare } from '../subsystems/budget/cache-share.js';
import { dayKeyIn } from '../actors/budget/budget-calendar.js';
import { createLoggedBus, logWarningEvents } from './event-log.js';
import { VigilMetrics } from '../subsystems/metrics/vigil-metrics.js';
import { coldSeed, seedFromCheckpoint } from './heartbeat-seed.js';
import { recoverBootTasks } from './boot-tasks.js';
import { Runtime } from './runtime.js';
import { RetentionKeeper } from './retention-keeper.js';
import { openMindParts } from './mind-parts.js';
import { startThinkTelemetry, type ThinkTelemetry } from './think-span-export.js';

/** How to build a runtime. Everything is optional: the defaults run an offline agent under `./data`. */
export interface RuntimeOptions {
  /** Settings; missing fields take CONTRACT §3 defaults. */
  config?: Partial<VigilConfig>;
  /** An open database to use instead of `<dataDir>/db` (e.g. memory-level); the runtime does not close it. */
  db?: VigilDb;
  clock?: Clock;
  thinker?: Thinker;
  logger?: VigilLogger;
  /** The identity text; default: the file `config.identityFile`, else the packaged default. */
  identity?: string;
  /** Beats between autonomous thinks on a goal that is not yet due (default 5). */
  goalWorkEveryBeats?: number;
  /** The metrics registry to fill (default: a new one with Node's process metrics). */
  metrics?: VigilMetrics;
  /**
   * The event bus to publish on (default: a new one). A host that passes its own sees every event and may emit its
   * own; the runtime stamps beats and seqs on it and does not close it.
   */
  bus?: EventBus;
  /** How MCP servers are reached and retried (tests shorten or substitute these); the servers come from `config.mcp`. */
  mcp?: { timing?: Partial<ConnectionTiming>; createTransport?: (entry: McpServerEntry) => ServerTransport };
  /**
   * Background work nothing waits for (long-term memory's index build) starts once this settles; a request that needs
   * it sooner starts it itself. The daemon passes its gateway's listening, so that work never slows the boot. Default: at once.
   */
  backgroundWorkAfter?: PromiseLike<unknown>;
  /**
   * The runtime's only asynchrony outside its clock, for a host that replays a run exactly (the simulator in test/sim):
   * the timers that batch journal writes (default Node's) and checkpoint compression (default zlib's thread pool).
   */
  offClock?: { ioTimers?: Pick<Clock, 'setTimeout' | 'clearTimeout'>; zip?: CheckpointZip };
}

const DEFAULT_IDENTITY_FILE = new URL('../../identity/default.md', import.meta.url);

/** Builds a runtime restored from the newest valid checkpoint (or cold); call `start()` to beat, `stop()` to end. */
export async function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const config = configFromDefaults(options.config ?? {});
  const clock = options.clock ?? systemClock;
  const log = options.logger ?? silentLogger;
  // Before touching the data dir: an unknown model's price is a configuration error, not a half-started daemon.
  const thinker = options.thinker ?? (await createThinker(config, clock));
  const ownsDb = options.db === undefined;
  const storeDb = options.db ?? (await openVigilDb(config.dataDir));
  let db: VigilDb = storeDb;
  let telemetry: ThinkTelemetry | null = null;
  try {
    // Every store below writes through `db`: with VIGIL_CHECKPOINT_KEY, a database that seals each value first.
    const sealing = await sealStore(storeDb, config.checkpointKey, { closeInner: ownsDb, dataDir: config.dataDir });
    db = sealing.db;
    if (sealing.report.resealed > 0) log.info(sealing.report, 'data dir sealed: values written before VIGIL_CHECKPOINT_KEY was set are now encrypted');
    let runtime: Runtime | undefined;
    const ownsBus = options.bus === undefined;
    const currentBeat = () => runtime?.beatCount ?? 0;
    const bus = options.bus ?? createLoggedBus(clock, currentBeat, log);
    bus.useBeatSource(currentBeat);
    logWarningEvents(bus, log);
    // Observing from the start, so boot's restores and corrupt skips are counted too.
    const metrics = options.metrics ?? new VigilMetrics();
    metrics.observe(bus);
    // Spans of every think, only with an OTLP endpoint: the OpenTelemetry SDK is loaded then, and never otherwise.
    telemetry = await startThinkTelemetry(config, { metrics, log, thinkerKind: thinker.kind });
    const seq = await PersistedSeq.open(db);
    bus.useSeq(seq);
    // Attached before restore, so even the boot's checkpoint.corrupt events are in the history.
    const journal = new EventJournal(db, {
      maxEvents: config.eventJournalSize,
      onWriteError: (err) => log.error({ err }, 'event journal write failed; those events are missing from history'),
      timers: options.offClock?.ioTimers,
    });
    journal.attach(bus);

    const store = new CheckpointStore(db, clock, { key: config.checkpointKey, zip: options.offClock?.zip });
    await store.open();
    const conversation = new ConversationLog(db);
    await conversation.open();
    const swarmResults = new SwarmResultLog(db);
    const checkpoints = new CheckpointManager(store, bus, { enabled: config.checkpointEnabled, intervalBeats: config.checkpointIntervalBeats, maxCount: config.checkpointMaxCount });

    const ledger = new BudgetLedger(db);
    metrics.readCacheShareWith(() => cacheReadShare(ledger.knownDay(dayKeyIn(config.timezone, clock.now()))));
    const configuredCapMicroUsd = usdToMicroUsd(config.dailyBudgetUsd);
    const restored = await checkpoints.loadNewestValid();
    const now = clock.now();
    // The ledger, not the checkpoint, says what was spent today: a crash loop can never reset the budget.
    const budget = await readBudgetBasis(ledger, { timezone: config.timezone, configuredCapMicroUsd }, now);
    const turnTimers = new TurnTimersStore(db);
    const turn = await turnTimers.read();
    const swarmTasks = new SwarmTaskLog(db);
    const toolCallLog = await ToolCallLog.open(db);
    const bootSeed =
      restored === null
        ? coldSeed({
            now,
            beatMs: config.beatMs,
            wmCapacity: config.wmCapacity,
            swarmConcurrency: config.swarmConcurrency,
            budget,
            turn,
            // No checkpoint: a message acknowledged before the first one must still be answered.
            messages: await conversation.readAfter(0),
          })
        : seedFromCheckpoint(restored, now, {
            messagesAfter: await conversation.readAfter(restored.conversation.watermark),
            finishedTasks: await swarmResults.find(inFlightTaskIds(restored)),
            budget,
            turn,
          });
    // No task is lost or run again blindly: tasks spawned after the checkpoint come back; one cut off after a
    // non-idempotent tool call is failed (recorded first, then announced once).
    const seed = await recoverBootTasks({ seed: bootSeed, swarmTasks, swarmResults, toolCallLog, bus, now });

    const identity = options.identity ?? (await readIdentity(config.identityFile));
    // Built here, started with the heartbeat: servers connect in the background and never hold up the boot.
    const tools = new McpHub({
      servers: config.mcp.mcpServers,
      bus,
      clock,
      log,
      clientVersion: VIGIL_VERSION,
      ...(options.mcp?.timing === undefined ? {} : { timing: options.mcp.timing }),
      ...(options.mcp?.createTransport === undefined ? {} : { createTransport: options.mcp.createTransport }),
    });
    // Before the first think: calls a crash cut short are reported (once) and never run again.
    const toolCalls = new DurableToolCaller({
      hub: tools,
      log: toolCallLog,
      journal,
      bus,
      clock,
      logger: log,
      // Late-bound: the heartbeat that holds the turns is built below.
      isTurnOpen: (turnId) => runtime?.isTurnOpen(turnId) ?? true,
    });
    await toolCalls.recover();
    thinker.useTools?.(toolCalls);
    // Hourly, on a beat: every append-only record pruned to its retention (README, "Retention").
    const retention = new RetentionKeeper(
      { db, checkpoints: store, conversation, ledger, swarmResults, toolCalls: toolCallLog },
      {
        conversationMaxMessages: config.conversationMaxMessages,
        ledgerChargeDays: config.ledgerChargeDays,
        toolCallRetentionDays: config.toolCallRetentionDays,
        timezone: config.timezone,
      },
      clock,
      log,
    );
    retention.attach(bus);
    // After the tools: the boot's prefix check sees the request a think would send now.
    thinker.useCacheHealth?.({ bus, clock }, identity);
    // What a think is shown beyond its messages, and what it leaves behind: summary, long-term memory, traces.
    const { summaries, summary, context, memory, traces, tracer } = await openMindParts({
      db,
      conversation,
      bus,
      clock,
      log,
      config,
      thinker,
      toolCallLog,
      telemetry,
      backgroundWorkAfter: options.backgroundWorkAfter,
    });
    const ids = createIdFactory(clock);
    // Ids stay unique and ordered across a restart within the same millisecond: never at or below the newest turn's.
    const [newest] = await conversation.readLast(1);
    if (newest !== undefined) ids.observe(newest.turnId.replace(/^[a-z]+-/, ''));
    runtime = new Runtime({
      clock,
      bus,
      log,
      store,
      checkpoints,
      conversation,
      swarmResults,
      journal,
      ledger,
      metrics,
      tools,
      toolCalls,
      traces,
      summary,
      summaries,
      memory,
      schedules: await ScheduleStore.open(db, { defaultTimezone: config.timezone }),
      db,
      ids,
      seed,
      configuredCapMicroUsd,
      restored,
      deps: {
        clock,
        bus,
        log,
        thinker,
        identity,
        conversation,
        swarmResults,
        swarmTasks,
        toolCalls: toolCallLog,
        checkpoints,
        closer: new TurnCloser(conversation, journal, bus),
        turnTimers,
        ledger,
        approvals: toolCalls,
        traces: tracer,
        context,
        memory,
        ids,
        runtimeVersion: VIGIL_VERSION,
        options: {
          beatMs: config.beatMs,
          beatMinMs: config.beatMinMs,
          beatMaxMs: config.beatMaxMs,
          goalWorkEveryBeats: options.goalWorkEveryBeats ?? 5,
          budgetLimits: { windDownPct: config.windDownPct, hardStopPct: config.hardStopPct },
          debriefAfterMs: config.debriefAfterS * 1000,
          stuckTurnMs: config.stuckTurnS * 1000,
          busyStrategy: config.busyStrategy,
          tasks: { deadlineMs: config.taskDeadlineMs, maxCostMicroUsd: usdToMicroUsd(config.taskMaxCostUsd) },
          contextTokens: config.contextTokens,
        },
      },
      close: async () => {
        // First: no MCP server process outlives the runtime, whatever fails after.
        await tools.stop();
        // A call's result is written after the call returns (with the next batch of the log): it lands before the close.
        await toolCallLog.settled();
        await retention.detach();
        // After the last beat: its think's spans are in the queue, and go out before the daemon exits.
        await telemetry?.shutdown();
        await summary.stop();
        await memory.stop();
        metrics.close();
        await journal.detach();
        if (ownsBus) bus.close();
        // With its own bus closed no one can see another seq, so the next start may continue right after the last
        // one; a host's bus lives on and may stamp more, so its next start is a block above the ceiling, as after a crash.
        await (ownsBus ? seq.close() : seq.flush()).catch(() => undefined);
        // The sealing database closes the one under it only when the runtime opened that one itself.
        if (ownsDb) await db.close();
      },
    });
    return runtime;
  } catch (err) {
    await telemetry?.shutdown();
    if (ownsDb) await db.close().catch(() => undefined); // the start's own failure is the one to report
    throw err;
  }
}

/** Ids of the tasks a checkpoint saw queued or running: they may have finished after it. */
export function inFlightTaskIds(checkpoint: CognitiveCheckpoint): string[] {
  return checkpoint.actors.swarms.tasks.filter((task) => task.status === 'queued' || task.status === 'running').map((task) => task.id);
}

async function readIdentity(file: string | undefined): Promise<string> {
  return (await readFile(file ?? DEFAULT_IDENTITY_FILE, 'utf8')).trim();
}
