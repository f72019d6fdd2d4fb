/**
 * The runtime's mind parts: what a think is shown beyond its own messages (the rolling summary and the recent
 * conversation, recalled long-term memory) and what each think leaves behind (its trace, exported as spans when an
 * OTLP endpoint is set). Opened at boot, after the tools, before the heartbeat.
 */
import type { VigilConfig } from '../config.js';
import type { EventBus } from '../events/event-bus.js';
import type { Clock } from '../shared/clock.js';
import { createIdFactory } from '../shared/ids.js';
import type { VigilLogger } from '../shared/logger.js';
import type { ConversationLog } from '../subsystems/conversation/conversation-log.js';
import { TurnWorkLog } from '../subsystems/conversation/turn-work-log.js';
import { ConversationIndex } from '../subsystems/conversation/conversation-index.js';
import { ConversationSearch } from '../subsystems/conversation/conversation-search.js';
import { followConversationSemantic } from '../subsystems/embeddings/conversation-semantic.js';
import { LongTermMemory } from '../subsystems/memory/long-term-memory.js';
import { memoryRecallOf } from '../subsystems/memory/memory-recall.js';
import type { VigilDb } from '../subsystems/store/vigil-db.js';
import { ConversationSummaryKeeper } from '../subsystems/summary/conversation-summary.js';
import { SummaryStore } from '../subsystems/summary/summary-store.js';
import { ThinkContext } from '../subsystems/summary/think-context.js';
import { extractiveSummary } from '../subsystems/thinking/summary-lines.js';
import type { Thinker } from '../subsystems/thinking/thinker.js';
import type { ToolCallLog } from '../subsystems/tools/tool-call-log.js';
import { retention as traceRetention, ThinkTraceStore } from '../subsystems/traces/think-trace-store.js';
import { ThinkTracer } from '../subsystems/traces/think-tracer.js';
import type { CleanupStack } from './cleanup-stack.js';
import type { SemanticParts } from './semantic-parts.js';
import { exportThinkSpans, type ThinkTelemetry } from './think-span-export.js';

/** What the mind parts are built from. */
export interface MindPartsDeps {
  db: VigilDb;
  conversation: ConversationLog;
  bus: EventBus;
  clock: Clock;
  log: VigilLogger;
  config: VigilConfig;
  thinker: Thinker;
  toolCallLog: ToolCallLog;
  telemetry: ThinkTelemetry | null;
  /** When background work that would slow the boot may start (RuntimeOptions.backgroundWorkAfter). */
  backgroundWorkAfter?: PromiseLike<unknown>;
  /** Where the summary's and memory's stops are deferred (the boot's cleanup stack). */
  stack: CleanupStack;
  /** Semantic search's parts (VIGIL_EMBEDDINGS_URL), if configured: memory gets a semantic index. */
  semantic?: SemanticParts;
}

/** Opens the summary, the think context, the conversation's search, long-term memory and the think traces. */
export async function openMindParts(deps: MindPartsDeps) {
  const { db, conversation, bus, clock, log, config, thinker, toolCallLog, telemetry, backgroundWorkAfter, stack } =
    deps;
  const memorySemantic = deps.semantic?.index('memory');
  // The rolling summary as it was last written (a kill -9 loses none of it: each version is synced).
  const summaries = new SummaryStore(db);
  const summary = new ConversationSummaryKeeper({
    store: summaries,
    conversation,
    clock,
    log,
    contextTokens: config.contextTokens,
    summarize:
      thinker.summarize === undefined
        ? (request) => Promise.resolve(extractiveSummary(request))
        : thinker.summarize.bind(thinker),
  });
  // A background update is aborted and waited for before the database closes.
  stack.defer('conversation summary', () => summary.stop());
  await summary.open();
  const context = new ThinkContext({
    keeper: summary,
    conversation,
    work: new TurnWorkLog(),
    toolCalls: () => toolCallLog.all(),
  });
  // Indexed from the log in the background, after the boot (like long-term memory's): 10,000 messages never hold up
  // 'gateway listening'; messages written meanwhile are indexed as they are written.
  const conversationIndex = new ConversationIndex(conversation, {
    buildAfter: backgroundWorkAfter,
    format: { timeZone: config.timezone },
    onBuildError: (err) =>
      log.error({ err }, 'the conversation could not be indexed; conversation search fails until restart'),
  });
  // Before `open`: a build it schedules for later finds the index stopping and lets go.
  stack.defer('conversation index', () => conversationIndex.stop());
  conversationIndex.open();
  const conversationSearch = new ConversationSearch(conversationIndex, conversation);
  const conversationSemantic = deps.semantic?.index('conversation');
  if (conversationSemantic !== undefined) {
    stack.defer('conversation vectors', () => conversationSemantic.stop());
    // In the background, after the lexical build: searches rank lexically until the vectors are in.
    void followConversationSemantic({
      log: conversation,
      index: conversationIndex,
      search: conversationSearch,
      semantic: conversationSemantic,
      logger: log,
    });
  }
  // Its index is built in the background, after the boot: a large long-term memory never holds up 'gateway listening'.
  const memory = new LongTermMemory(db, {
    onLoadError: (err) =>
      log.error({ err }, 'long-term memory could not be indexed; memory search fails until restart'),
    indexAfter: backgroundWorkAfter,
    maxCount: config.memoryMaxCount,
    onEvicted: (evicted) => {
      const ids = evicted.map((memory) => memory.id);
      log.info(
        { count: ids.length, maxCount: config.memoryMaxCount },
        'long-term memory at its bound: forgot the least worth keeping',
      );
      bus.emit('memory.evicted', { ids, count: ids.length });
    },
    onRecallWriteError: (err) =>
      log.warn({ err }, 'could not note that memories were used; their retention counts them from before'),
    ...(memorySemantic === undefined ? {} : { semantic: memorySemantic }),
  });
  // Before `open`: a build it schedules for later (indexAfter) finds memory stopping and lets go.
  stack.defer('long-term memory', () => memory.stop());
  await memory.open();
  // The model's `recall` searches its memories and the whole conversation together.
  thinker.useMemory?.(memoryRecallOf(memory, () => clock.now(), conversationSearch));
  // Only the newest id is read during the boot; the others after it, like the memory index.
  const traces = await ThinkTraceStore.open(
    db,
    traceRetention(config.traceMaxCount, config.traceMaxAgeDays),
    (err) => log.error({ err }, 'a think trace listener threw; tracing goes on'),
    backgroundWorkAfter === undefined ? {} : { readIdsAfter: backgroundWorkAfter },
  );
  // Each stored trace becomes its spans (invoke_agent → chat → execute_tool), only with an OTLP endpoint.
  const exporting = telemetry;
  if (exporting !== null) traces.onTrace((trace) => exportThinkSpans(exporting, trace));
  const traceIds = createIdFactory(clock, 'th-');
  const newestTrace = traces.newestId();
  if (newestTrace !== undefined) traceIds.observe(newestTrace);
  const tracer = new ThinkTracer({
    store: traces,
    ids: traceIds,
    includeContent: config.traceContent,
    bus,
    log,
    now: () => clock.now(),
  });
  return { summaries, summary, context, memory, conversationSearch, traces, tracer };
}
