/** `RuntimeOptions`: what a host may hand `createRuntime` (settings, clock, database, bus, thinker, MCP transports). */
import type { VigilConfig } from '../config.js';
import type { EventBus } from '../events/event-bus.js';
import type { McpServerEntry } from '../protocol/mcp-config.schema.js';
import type { Clock } from '../shared/clock.js';
import type { VigilLogger } from '../shared/logger.js';
import type { CheckpointZip } from '../subsystems/checkpoint/checkpoint.codec.js';
import type { VigilMetrics } from '../subsystems/metrics/vigil-metrics.js';
import type { VigilDb } from '../subsystems/store/vigil-db.js';
import type { Thinker } from '../subsystems/thinking/thinker.js';
import type { ServerTransport, TransportAuth } from '../subsystems/tools/mcp-transport.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ConnectionTiming } from '../subsystems/tools/server-connection.js';
import type { BackoffSettings } from '../subsystems/webhooks/webhook-backoff.js';
import type { WebhookPost } from '../subsystems/webhooks/webhook-post.js';
import type { WebhookResolver } from '../subsystems/webhooks/webhook-destination.js';
import type { ChannelAdapter } from '../subsystems/channels/channel-adapter.js';
import type { ChannelConfig } from '../protocol/channels.schema.js';

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
  mcp?: {
    timing?: Partial<ConnectionTiming>;
    createTransport?: (entry: McpServerEntry, auth?: TransportAuth) => ServerTransport;
    /** The fetch of Streamable HTTP servers that sign in (OAuth), their authorization servers' requests included. */
    fetch?: FetchLike;
  };
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
  /**
   * How webhooks are sent (tests and the simulator substitute these): the POST (default `httpWebhookPost`, and for the retries at a failing endpoint the same on a thread of its own, `WebhookPostThread`), the backoff
   * (default about 1 s doubling to one hour) and the jitter's source (default Math.random).
   */
  webhooks?: WebhookInjection;
  /**
   * Chat channels (`config.channels`, CONTRACT §18): where the secrets an entry names are read (default
   * `process.env`), and the adapters (default: the platform's, e.g. grammY's Telegram) that tests and the simulator
   * may substitute.
   */
  channels?: ChannelInjection;
}

/** The parts of the chat channels a host may substitute. */
export interface ChannelInjection {
  env?: Record<string, string | undefined>;
  createAdapter?: (name: string, entry: ChannelConfig, secret: string) => ChannelAdapter;
  /** A new pairing code. */
  newCode?: () => string;
  /** Seconds a Telegram long poll waits (default 30); for email, the longest IDLE (default 120). */
  pollTimeoutS?: number;
}

/** The parts of webhook delivery a host may substitute. */
export interface WebhookInjection {
  post?: WebhookPost;
  /** How a destination's host name is resolved, at `webhooks.add` and at each connection (default the system's). */
  resolve?: WebhookResolver;
  backoff?: BackoffSettings;
  random?: () => number;
}
