/**
 * The boot's first phases: the database (sealed with VIGIL_CHECKPOINT_KEY), the event wiring (seq, bus, warning log,
 * metrics, span export, journal) and the stores every later phase reads. Each defers its undoing as it acquires.
 */
import type { EventBus } from '../events/event-bus.js';
import { dayKeyIn } from '../actors/budget/budget-calendar.js';
import { BudgetLedger } from '../subsystems/budget/budget-ledger.js';
import { cacheReadShare } from '../subsystems/budget/cache-share.js';
import { CheckpointManager } from '../subsystems/checkpoint/checkpoint.manager.js';
import { CheckpointStore } from '../subsystems/checkpoint/checkpoint.store.js';
import { ConversationLog } from '../subsystems/conversation/conversation-log.js';
import { TurnTimersStore } from '../subsystems/conversation/turn-timers-store.js';
import { EventJournal } from '../subsystems/journal/event-journal.js';
import { VigilMetrics } from '../subsystems/metrics/vigil-metrics.js';
import { PersistedSeq } from '../subsystems/store/persisted-seq.js';
import { sealStore } from '../subsystems/store/store-seal.js';
import { compactBeforeClose, openVigilDb, type VigilDb } from '../subsystems/store/vigil-db.js';
import { SwarmResultLog } from '../subsystems/swarm-results/swarm-result-log.js';
import { SwarmTaskLog } from '../subsystems/swarm-results/swarm-task-log.js';
import { ToolCallLog } from '../subsystems/tools/tool-call-log.js';
import type { BootBase } from './boot-phase.js';
import { createLoggedBus, logWarningEvents } from './event-log.js';
import { startThinkTelemetry, type ThinkTelemetry } from './think-span-export.js';

/** The database every store writes through: with VIGIL_CHECKPOINT_KEY, one that seals each value first. */
export async function openStorage({ options, config, log, stack }: BootBase): Promise<VigilDb> {
  const ownsDb = options.db === undefined;
  const storeDb = options.db ?? (await openVigilDb(config.dataDir));
  // A host's database is the host's to close.
  if (ownsDb) stack.defer('database', () => storeDb.close());
  // Deferred second, so it runs after every store has written its last and just before the close.
  if (ownsDb) stack.defer('database compaction', () => compactBeforeClose(storeDb));
  const sealing = await sealStore(storeDb, config.checkpointKey, { closeInner: ownsDb, dataDir: config.dataDir });
  // The sealing database closes the one under it only when the runtime opened that one itself (then the close above finds it closed).
  if (ownsDb && sealing.db !== storeDb) stack.defer('sealed database', () => sealing.db.close());
  if (sealing.report.resealed > 0)
    log.info(sealing.report, 'data dir sealed: values written before VIGIL_CHECKPOINT_KEY was set are now encrypted');
  return sealing.db;
}

/** The event wiring: what every later part publishes on, and what records, counts and logs it. */
export interface EventWiring {
  bus: EventBus;
  journal: EventJournal;
  metrics: VigilMetrics;
  telemetry: ThinkTelemetry | null;
}

/** Opens the seq, the bus, the warning log, metrics, the span export and the journal, in that order. */
export async function wireEvents(
  { options, config, clock, log, thinker, stack }: BootBase,
  db: VigilDb,
): Promise<EventWiring> {
  const seq = await PersistedSeq.open(db);
  const ownsBus = options.bus === undefined;
  // Deferred before the bus, so it runs after the bus's close. With its own bus closed no one can see another seq, so
  // the next start may continue right after the last one; a host's bus lives on and may stamp more, so its next start
  // is a block above the ceiling, as after a crash. A failed write here only costs that jump: it is not reported.
  stack.defer('event seq', () => (ownsBus ? seq.close() : seq.flush()).catch(() => undefined));
  // The beat is 0 until the heartbeat exists: the runtime core points the bus at its beat count.
  const bus = options.bus ?? createLoggedBus(clock, () => 0, log);
  bus.useBeatSource(() => 0);
  if (ownsBus) stack.defer('event bus', () => bus.close());
  bus.useSeq(seq);
  const warnings = logWarningEvents(bus, log);
  stack.defer('warning log', () => warnings.unsubscribe());
  // Observing from the start, so boot's restores and corrupt skips are counted too.
  const metrics = options.metrics ?? new VigilMetrics();
  metrics.observe(bus);
  stack.defer('metrics', () => metrics.close());
  // Spans of every think, only with an OTLP endpoint: the OpenTelemetry SDK is loaded then, and never otherwise.
  const telemetry = await startThinkTelemetry(config, { metrics, log, thinkerKind: thinker.kind });
  // After the last beat: its think's spans are in the queue, and go out before the daemon exits.
  if (telemetry !== null) stack.defer('span export', () => telemetry.shutdown());
  // Attached before restore, so even the boot's checkpoint.corrupt events are in the history.
  const journal = new EventJournal(db, {
    maxEvents: config.eventJournalSize,
    onWriteError: (err) => log.error({ err }, 'event journal write failed; those events are missing from history'),
    timers: options.offClock?.ioTimers,
  });
  journal.attach(bus);
  // Writes what it holds: every event of the run is in the history before the database closes.
  stack.defer('event journal', () => journal.detach());
  return { bus, journal, metrics, telemetry };
}

/** The append-only records and stores the seed, the tools and the heartbeat read and write. */
export interface Records {
  store: CheckpointStore;
  checkpoints: CheckpointManager;
  conversation: ConversationLog;
  swarmResults: SwarmResultLog;
  swarmTasks: SwarmTaskLog;
  ledger: BudgetLedger;
  turnTimers: TurnTimersStore;
  toolCallLog: ToolCallLog;
}

/** Opens the checkpoint store, the conversation log and the other records on `db`. */
export async function openRecords(
  { options, config, clock, stack }: BootBase,
  db: VigilDb,
  events: EventWiring,
): Promise<Records> {
  const store = new CheckpointStore(db, clock, { key: config.checkpointKey, zip: options.offClock?.zip });
  await store.open();
  const conversation = new ConversationLog(db);
  await conversation.open();
  const swarmResults = new SwarmResultLog(db);
  const checkpoints = new CheckpointManager(store, events.bus, {
    enabled: config.checkpointEnabled,
    intervalBeats: config.checkpointIntervalBeats,
    maxCount: config.checkpointMaxCount,
  });
  const ledger = new BudgetLedger(db);
  events.metrics.readCacheShareWith(() => cacheReadShare(ledger.knownDay(dayKeyIn(config.timezone, clock.now()))));
  const turnTimers = new TurnTimersStore(db);
  const swarmTasks = new SwarmTaskLog(db);
  const toolCallLog = await ToolCallLog.open(db);
  // A call's result is written after the call returns (with the next batch of the log): it lands before the close.
  stack.defer('tool call log', () => toolCallLog.settled());
  return { store, checkpoints, conversation, swarmResults, swarmTasks, ledger, turnTimers, toolCallLog };
}
