/** The parts a runtime is made of: the stores, the bus, the clock and the heartbeat's dependencies, built by `createRuntime`. */
import type { Clock } from '../shared/clock.js';
import type { IdFactory } from '../shared/ids.js';
import type { VigilLogger } from '../shared/logger.js';
import type { CheckpointManager } from '../subsystems/checkpoint/checkpoint.manager.js';
import type { CognitiveCheckpoint } from '../protocol/checkpoint-format.schema.js';
import type { CheckpointStore } from '../subsystems/checkpoint/checkpoint.store.js';
import type { ConversationLog } from '../subsystems/conversation/conversation-log.js';
import type { EventBus } from '../events/event-bus.js';
import type { SwarmResultLog } from '../subsystems/swarm-results/swarm-result-log.js';
import type { EventJournal } from '../subsystems/journal/event-journal.js';
import type { VigilDb } from '../subsystems/store/vigil-db.js';
import type { BudgetLedger } from '../subsystems/budget/budget-ledger.js';
import type { VigilMetrics } from '../subsystems/metrics/vigil-metrics.js';
import type { HeartbeatDeps, HeartbeatSeed } from '../heartbeat/heartbeat.types.js';
import type { McpHub } from '../subsystems/tools/mcp-hub.js';
import type { DurableToolCaller } from '../subsystems/tools/durable-tool-caller.js';
import type { ThinkTraceStore } from '../subsystems/traces/think-trace-store.js';
import type { ConversationSummaryKeeper } from '../subsystems/summary/conversation-summary.js';
import type { SummaryStore } from '../subsystems/summary/summary-store.js';
import type { LongTermMemory } from '../subsystems/memory/long-term-memory.js';
import type { ConversationSearch } from '../subsystems/conversation/conversation-search.js';
import type { OpenTurns } from './open-turns.js';
import type { SemanticParts } from './semantic-parts.js';
import type { ScheduleStore } from '../subsystems/schedules/schedule-store.js';
import type { TokenStore } from '../subsystems/auth/token-store.js';
import type { CallbackUrl } from '../subsystems/tools/oauth/callback-url.js';
import type { WebhookDeliveryModule } from '../subsystems/webhooks/webhook-delivery.js';
import type { WebhookStore } from '../subsystems/webhooks/webhook-store.js';
import type { WebhookInjection } from './runtime-options.js';
import type { ChannelPart } from './channel-parts.js';

/** The parts a runtime is made of; `createRuntime` builds them. */
export interface RuntimeParts {
  clock: Clock;
  bus: EventBus;
  log: VigilLogger;
  store: CheckpointStore;
  checkpoints: CheckpointManager;
  conversation: ConversationLog;
  swarmResults: SwarmResultLog;
  journal: EventJournal;
  ledger: BudgetLedger;
  metrics: VigilMetrics;
  /** The MCP servers and the registry of their tools. */
  tools: McpHub;
  /** The durable tool caller, which also keeps the calls waiting for approval. */
  toolCalls: DurableToolCaller;
  /** Where OAuth sign-ins send the browser back (VIGIL_PUBLIC_URL, or the gateway's URL once it listens). */
  callbackUrl: CallbackUrl;
  /** The think traces (CONTRACT §10). */
  traces: ThinkTraceStore;
  /** The rolling conversation summary, and its stored versions (a restore goes back to the one its checkpoint saw). */
  summary: ConversationSummaryKeeper;
  summaries: SummaryStore;
  /** Long-term memory: its store and full-text index. */
  memory: LongTermMemory;
  /** Semantic search (VIGIL_EMBEDDINGS_URL): its indexes start filling once the heartbeat runs. Unset: lexical only. */
  semantic?: SemanticParts;
  /** The conversation's full-text search (CONTRACT §17), over every message the log keeps. */
  conversationSearch: ConversationSearch;
  /** The schedules (CONTRACT §11). */
  schedules: ScheduleStore;
  /** The scoped gateway tokens (CONTRACT §14). */
  tokens: TokenStore;
  /** The webhook endpoints (CONTRACT §16) and how they are delivered (VIGIL_WEBHOOK_*, and what a host injected). */
  webhooks: {
    store: WebhookStore;
    /** The outbox's module, loaded at boot when the store holds an endpoint; else the facade loads it at the first add. */
    delivery?: WebhookDeliveryModule;
    settings: WebhookInjection & {
      timeoutMs: number;
      retryHours: number;
      backlogMax: number;
      /** VIGIL_WEBHOOK_ALLOW_PRIVATE. */
      allowPrivate: boolean;
      /** The gateway's own URLs known from the configuration (VIGIL_PUBLIC_URL, VIGIL_HOST:VIGIL_PORT). */
      gatewayUrls: string[];
    };
  };
  /** The chat channels (CONTRACT §18), by name: each one's entry, store and platform adapter. */
  channels: ReadonlyMap<string, ChannelPart>;
  /** The database everything above lives in. */
  db: VigilDb;
  ids: IdFactory;
  /** The open turns the tool caller reads; the core points them at its heartbeat once it is built. */
  openTurns: OpenTurns;
  /** VIGIL_DAILY_BUDGET_USD in micro-dollars (a run-time cap is kept only while this is unchanged). */
  configuredCapMicroUsd: number;
  deps: HeartbeatDeps;
  /** The seed to start from (a restored checkpoint or a cold start). */
  seed: HeartbeatSeed;
  /** The checkpoint the seed came from, for `checkpoint.restored` at start. */
  restored: CognitiveCheckpoint | null;
  /** Closes what the runtime owns after it stops: the boot's cleanup stack, newest first (createRuntime). */
  close: () => Promise<void>;
}
