/**
 * `createRuntime(options)`: the composition root. The boot runs in phases (storage, events, records, seed, tools,
 * retention, mind, runtime); each defers on one cleanup stack the undoing of what it acquires, as it acquires it. A
 * boot that fails runs that stack and leaves nothing open; the runtime's close runs the same stack, so close order is
 * always boot order reversed.
 */
import { readFile } from 'node:fs/promises';
import { configFromDefaults, type VigilConfig } from '../config.js';
import { systemClock } from '../shared/clock.js';
import { createIdFactory } from '../shared/ids.js';
import { silentLogger } from '../shared/logger.js';
import { VIGIL_VERSION } from '../shared/version.js';
import type { VigilDb } from '../subsystems/store/vigil-db.js';
import { TurnCloser } from '../subsystems/conversation/turn-closer.js';
import type { BootBase, BootPhase } from './boot-phase.js';
import { readSeed, type BootSeed } from './boot-seed.js';
import { openRecords, openStorage, wireEvents, type EventWiring, type Records } from './boot-storage.js';
import { connectTools, keepRetention, type Tools } from './boot-tools.js';
import { CleanupStack } from './cleanup-stack.js';
import { createThinker } from './create-thinker.js';
import { heartbeatOptionsFrom } from './heartbeat-options.js';
import { openMindParts } from './mind-parts.js';
import type { SemanticParts } from './semantic-parts.js';
import { OpenTurns } from './open-turns.js';
import { ScheduleStore } from '../subsystems/schedules/schedule-store.js';
import { TokenStore } from '../subsystems/auth/token-store.js';
import { WebhookStore } from '../subsystems/webhooks/webhook-store.js';
import { openChannelParts } from './channel-parts.js';
import { loadWebhookDelivery } from '../subsystems/webhooks/webhook-delivery-loader.js';
import { loadOnce } from '../shared/load-once.js';
import { Runtime } from './runtime.js';
import type { RuntimeOptions } from './runtime-options.js';

export { createThinker };
export type { RuntimeOptions };
export { inFlightTaskIds } from './boot-seed.js';

/** Semantic search's client, vector stores and indexes: loaded only with an embeddings endpoint, once only. */
export const loadSemanticParts = loadOnce(() => import('./semantic-parts.js'));
/** A seam for tests of the boot itself: `afterPhase` is called as each phase ends; a throw fails the boot there. */
export interface BootProbe {
  afterPhase?(phase: BootPhase): void;
}

const DEFAULT_IDENTITY_FILE = new URL('../../identity/default.md', import.meta.url);

/** Builds a runtime restored from the newest valid checkpoint (or cold); call `start()` to beat, `stop()` to end. */
export function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  return bootRuntime(options);
}

/** `createRuntime`, with a probe told of each phase's end (not exported from the package). */
export async function bootRuntime(options: RuntimeOptions, probe: BootProbe = {}): Promise<Runtime> {
  const config = configFromDefaults(options.config ?? {});
  const clock = options.clock ?? systemClock;
  const log = options.logger ?? silentLogger;
  // Before touching the data dir: an unknown model's price is a configuration error, not a half-started daemon.
  const thinker = options.thinker ?? (await createThinker(config, clock));
  const base: BootBase = { options, config, clock, log, thinker, stack: new CleanupStack(log) };
  try {
    const db = await openStorage(base);
    probe.afterPhase?.('storage');
    const events = await wireEvents(base, db);
    probe.afterPhase?.('events');
    const records = await openRecords(base, db, events);
    probe.afterPhase?.('records');
    const seed = await readSeed(base, records, events);
    probe.afterPhase?.('seed');
    const identity = options.identity ?? (await readIdentity(config.identityFile));
    // Read from the seed until the heartbeat, built last, is there to answer.
    const openTurns = new OpenTurns(seed.seed.turns);
    const tools = await connectTools(base, db, records, events, openTurns);
    probe.afterPhase?.('tools');
    keepRetention(base, db, records, events);
    probe.afterPhase?.('retention');
    // After the tools: the boot's prefix check sees the request a think would send now.
    thinker.useCacheHealth?.({ bus: events.bus, clock }, identity);
    // A reply's text as the model writes it goes out live (agent.reply_delta), streamed only while a feed names it.
    thinker.useReplyStream?.({
      wanted: () => events.bus.hasLiveListeners(),
      delta: (turnId, text) => events.bus.emitLive('agent.reply_delta', { turnId, text }),
    });
    // Semantic search, when an embeddings endpoint is configured; the stores it searches take its indexes. Its client,
    // vector stores and indexes are loaded only then.
    const semantic =
      config.embeddingsUrl === undefined || config.embeddingsModel === undefined
        ? undefined
        : (await loadSemanticParts()).semanticPartsOf({
            config,
            db,
            clock,
            log,
            observer: events.metrics.embeddingObserver(),
          });
    // What a think is shown beyond its messages, and what it leaves behind: summary, long-term memory, traces.
    const mind = await openMindParts({
      db,
      conversation: records.conversation,
      bus: events.bus,
      clock,
      log,
      config,
      thinker,
      toolCallLog: records.toolCallLog,
      telemetry: events.telemetry,
      backgroundWorkAfter: options.backgroundWorkAfter,
      stack: base.stack,
      ...(semantic === undefined ? {} : { semantic }),
    });
    probe.afterPhase?.('mind');
    const runtime = await assembleRuntime(base, {
      db,
      events,
      records,
      seed,
      identity,
      openTurns,
      tools,
      mind,
      semantic,
    });
    probe.afterPhase?.('runtime');
    return runtime;
  } catch (err) {
    // The start's own failure is the one to report; a disposer that fails too is logged by the stack.
    await base.stack.runAll();
    throw err;
  }
}

/** What the earlier phases built, for the last one. */
interface Built {
  db: VigilDb;
  events: EventWiring;
  records: Records;
  seed: BootSeed;
  identity: string;
  openTurns: OpenTurns;
  tools: Tools;
  mind: Awaited<ReturnType<typeof openMindParts>>;
  semantic: SemanticParts | undefined;
}

/** The `Runtime` over the parts; its close runs the boot's cleanup stack. */
async function assembleRuntime(base: BootBase, built: Built): Promise<Runtime> {
  const { options, config, clock, log, thinker, stack } = base;
  const { db, events, records, seed, identity, openTurns, tools, mind, semantic } = built;
  const { bus, journal, metrics } = events;
  const { conversation, ledger, toolCallLog, checkpoints } = records;
  const ids = createIdFactory(clock);
  // Ids stay unique and ordered across a restart within the same millisecond: never at or below the newest turn's.
  const [newest] = await conversation.readLast(1);
  if (newest !== undefined) ids.observe(newest.turnId.replace(/^[a-z]+-/, ''));
  const webhooks = await WebhookStore.open(db, { timers: options.offClock?.ioTimers });
  return new Runtime({
    clock,
    bus,
    log,
    store: records.store,
    checkpoints,
    conversation,
    swarmResults: records.swarmResults,
    journal,
    ledger,
    metrics,
    tools: tools.hub,
    toolCalls: tools.caller,
    callbackUrl: tools.callbackUrl,
    traces: mind.traces,
    summary: mind.summary,
    summaries: mind.summaries,
    memory: mind.memory,
    ...(semantic === undefined ? {} : { semantic }),
    conversationSearch: mind.conversationSearch,
    schedules: await ScheduleStore.open(db, { defaultTimezone: config.timezone }),
    tokens: await TokenStore.open(db),
    webhooks: {
      store: webhooks,
      // The outbox and its signing load only for a data dir with endpoints (the store is read whole at open anyway).
      ...(webhooks.list().length === 0 ? {} : { delivery: await loadWebhookDelivery() }),
      settings: {
        ...options.webhooks,
        timeoutMs: config.webhookTimeoutMs,
        retryHours: config.webhookRetryHours,
        backlogMax: config.webhookBacklogMax,
        allowPrivate: config.webhookAllowPrivate,
        gatewayUrls: configuredGatewayUrls(config),
      },
    },
    channels: await openChannelParts(db, config.channels, options.channels ?? {}, log),
    db,
    ids,
    openTurns,
    seed: seed.seed,
    configuredCapMicroUsd: seed.configuredCapMicroUsd,
    restored: seed.restored,
    deps: {
      clock,
      bus,
      log,
      thinker,
      identity,
      conversation,
      swarmResults: records.swarmResults,
      swarmTasks: records.swarmTasks,
      toolCalls: toolCallLog,
      checkpoints,
      closer: new TurnCloser(conversation, journal, bus),
      turnTimers: records.turnTimers,
      ledger,
      approvals: tools.caller,
      traces: mind.tracer,
      context: mind.context,
      memory: mind.memory,
      conversationSearch: mind.conversationSearch,
      ids,
      runtimeVersion: VIGIL_VERSION,
      options: heartbeatOptionsFrom(config, options),
    },
    close: async () => {
      // Every disposer runs even when one fails; the first failure is the close's, as when closing stopped at it.
      const [failure] = await stack.runAll();
      if (failure !== undefined) throw failure.error;
    },
  });
}

async function readIdentity(file: string | undefined): Promise<string> {
  return (await readFile(file ?? DEFAULT_IDENTITY_FILE, 'utf8')).trim();
}

/** The gateway's URLs the configuration tells (a webhook may not post to them): VIGIL_PUBLIC_URL, and HOST:PORT. */
function configuredGatewayUrls(config: VigilConfig): string[] {
  const urls = config.publicUrl === undefined ? [] : [config.publicUrl];
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  if (config.port !== 0 && URL.canParse(`http://${host}:${config.port}/`)) urls.push(`http://${host}:${config.port}/`);
  return urls;
}
