/** The configuration's schema and its table of environment variables (CONTRACT §3): names, defaults, meanings. */
import { z } from 'zod';
import { McpConfigFileSchema } from './protocol/mcp-config.schema.js';
import { ChannelsConfigFileSchema } from './protocol/channels.schema.js';
import { McpServerToolsSchema } from './protocol/mcp-server-tools.js';
import {
  AllowedHostsSchema,
  AllowedOriginsSchema,
  isPublicUrl,
  PUBLIC_URL_ALLOWED,
} from './protocol/request-origin.js';
import { DEFAULT_MCP_TOOLS } from './protocol/mcp-tool-names.js';
import { isValidTimeZone } from './protocol/time-zone.js';
import { CHECKPOINT_KEY_ALLOWED, isCheckpointKeyText } from './subsystems/checkpoint/checkpoint-cipher.js';
import { ALLOWED_PRICE, ModelPriceSchema } from './subsystems/thinking/model-price.schema.js';
import { OTLP_PROTOCOLS } from './subsystems/telemetry/otlp-settings.js';
import { CACHE_TTLS } from './subsystems/thinking/cache-ttl.js';
import { GATEWAY_TOKEN_ALLOWED, isStrongGatewayToken } from './shared/token-strength.js';

export { ModelPriceSchema, type ModelPrice } from './subsystems/thinking/model-price.schema.js';

/** Node's timers overflow past 2^31-1 ms and then fire after 1 ms, so no interval may exceed it. */
export const MAX_TIMER_MS = 2_147_483_647;

/** pino's level names, lowest noise last. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The thinker implementations `VIGIL_THINKER` can pick. */
export const THINKER_KINDS = ['offline', 'anthropic', 'openai'] as const;

/** `VIGIL_MODEL`'s default: a current Claude Sonnet, which no OpenAI-compatible endpoint is assumed to serve. */
export const DEFAULT_MODEL = 'claude-sonnet-5-5';

export { isValidTimeZone };

// What each variable allows, phrased to end the sentence `VIGIL_X="v" is invalid: <allowed>.`
const ALLOWED_PORT = 'expected an integer from 0 to 65535';
const ALLOWED_MS = `expected an integer number of milliseconds from 1 to ${MAX_TIMER_MS}`;
const ALLOWED_COUNT = 'expected a positive integer';
const ALLOWED_BOOL = 'expected one of true, false, 1, 0, yes, no';
const ALLOWED_PCT = 'expected a positive number (a percentage of the daily budget)';
const ALLOWED_OTLP_URL = 'expected an http(s) URL of an OTLP/HTTP collector such as http://localhost:4318';
const ALLOWED_OTLP_PROTOCOL =
  'expected "http/protobuf" or "http/json" (Vigil exports OTLP over HTTP; gRPC is not supported)';

const nonEmpty = (allowed: string) => z.string({ error: allowed }).trim().min(1, { error: allowed });
const intIn = (min: number, max: number, allowed: string) =>
  z.number({ error: allowed }).int({ error: allowed }).min(min, { error: allowed }).max(max, { error: allowed });
/** The bounds of `VIGIL_CONTEXT_TOKENS`: room for the fixed prefix at least, the model's window at most. */
export const MIN_CONTEXT_TOKENS = 4096;
export const MAX_CONTEXT_TOKENS = 1_000_000;
const CONTEXT_TOKENS_ALLOWED = `expected an integer number of tokens from ${MIN_CONTEXT_TOKENS} to ${MAX_CONTEXT_TOKENS}`;
const SESSION_HOURS_ALLOWED = 'expected a number of hours above 0, at most 720 (30 days)';
const positive = (allowed: string) => z.number({ error: allowed }).positive({ error: allowed });

/** The whole validated configuration; `VigilConfig` is inferred from it, cross-variable rules included. */
export const VigilConfigSchema = z
  .object({
    dataDir: nonEmpty('expected a non-empty directory path'),
    host: nonEmpty('expected a host name or IP address'),
    allowedHosts: AllowedHostsSchema,
    allowedOrigins: AllowedOriginsSchema,
    publicUrl: z
      .string({ error: PUBLIC_URL_ALLOWED })
      .trim()
      .refine(isPublicUrl, { error: PUBLIC_URL_ALLOWED })
      .optional(),
    port: intIn(0, 65535, ALLOWED_PORT),
    token: nonEmpty(GATEWAY_TOKEN_ALLOWED).refine(isStrongGatewayToken, { error: GATEWAY_TOKEN_ALLOWED }).optional(),
    thinker: z.enum(THINKER_KINDS, { error: 'expected "offline", "anthropic" or "openai"' }),
    model: nonEmpty('expected a model id such as claude-sonnet-5-5'),
    identityFile: nonEmpty('expected a path to a readable file').optional(),
    beatMs: intIn(1, MAX_TIMER_MS, ALLOWED_MS),
    beatMinMs: intIn(1, MAX_TIMER_MS, ALLOWED_MS),
    beatMaxMs: intIn(1, MAX_TIMER_MS, ALLOWED_MS),
    checkpointEnabled: z.boolean({ error: ALLOWED_BOOL }),
    checkpointIntervalBeats: intIn(1, Number.MAX_SAFE_INTEGER, ALLOWED_COUNT),
    checkpointMaxCount: intIn(1, Number.MAX_SAFE_INTEGER, ALLOWED_COUNT),
    dailyBudgetUsd: positive('expected a positive number of US dollars such as 5.00'),
    timezone: z
      .string({ error: 'expected an IANA time zone such as UTC or Europe/Berlin' })
      .refine(isValidTimeZone, { error: 'expected an IANA time zone such as UTC or Europe/Berlin' }),
    windDownPct: positive(ALLOWED_PCT),
    hardStopPct: positive(ALLOWED_PCT),
    // 0 is allowed on purpose: it means "debrief after every turn", handy in demos and tests.
    debriefAfterS: intIn(0, Number.MAX_SAFE_INTEGER, 'expected a whole number of seconds, 0 or more'),
    logLevel: z.enum(LOG_LEVELS, { error: `expected one of ${LOG_LEVELS.join(', ')}` }),
    wmCapacity: intIn(1, 1000, 'expected an integer from 1 to 1000'),
    swarmConcurrency: intIn(1, 1000, 'expected an integer from 1 to 1000'),
    eventJournalSize: intIn(100, 10_000_000, 'expected an integer from 100 to 10000000'),
    conversationMaxMessages: intIn(100, 1_000_000_000, 'expected an integer from 100 to 1000000000'),
    ledgerChargeDays: intIn(1, 3650, 'expected a whole number of days from 1 to 3650'),
    toolCallRetentionDays: intIn(1, 3650, 'expected a whole number of days from 1 to 3650'),
    memoryMaxCount: intIn(100, 10_000_000, 'expected an integer from 100 to 10000000'),
    maxSubscriptions: intIn(1, 1000, 'expected an integer from 1 to 1000'),
    maxConnections: intIn(1, 100_000, 'expected an integer from 1 to 100000'),
    sessionHours: z
      .number({ error: SESSION_HOURS_ALLOWED })
      .positive({ error: SESSION_HOURS_ALLOWED })
      .max(720, { error: SESSION_HOURS_ALLOWED }),
    subscriberBuffer: intIn(10, 1_000_000, 'expected an integer from 10 to 1000000'),
    busyStrategy: z.enum(['interrupt', 'enqueue', 'reject'], { error: 'expected "interrupt", "enqueue" or "reject"' }),
    maxToolIterations: intIn(1, 100, 'expected an integer from 1 to 100'),
    // Below ~4k tokens the fixed prefix (identity, instructions, tools) leaves no room for the conversation.
    contextTokens: intIn(MIN_CONTEXT_TOKENS, MAX_CONTEXT_TOKENS, CONTEXT_TOKENS_ALLOWED),
    stuckTurnS: intIn(1, 86_400, 'expected a whole number of seconds from 1 to 86400'),
    offlineCostUsd: z
      .number({ error: 'expected a number of US dollars, 0 or more' })
      .nonnegative({ error: 'expected a number of US dollars, 0 or more' }),
    pricingOverrides: z.record(z.string().min(1, { error: ALLOWED_PRICE }), ModelPriceSchema, {
      error: ALLOWED_PRICE,
    }),
    anthropicApiKey: nonEmpty('expected a non-empty API key').optional(),
    anthropicBaseUrl: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).optional(),
    anthropicTimeoutMs: intIn(1, MAX_TIMER_MS, ALLOWED_MS),
    openaiApiKey: nonEmpty('expected a non-empty API key').optional(),
    openaiBaseUrl: z
      .url({ protocol: /^https?$/, error: 'expected an http(s) URL such as http://localhost:11434/v1' })
      .optional(),
    openaiTimeoutMs: intIn(1, MAX_TIMER_MS, ALLOWED_MS),
    // Semantic search (docs/guides/memory.md): off unless an OpenAI-compatible /v1/embeddings endpoint is named.
    embeddingsUrl: z
      .url({ protocol: /^https?$/, error: 'expected an http(s) URL such as http://127.0.0.1:11434/v1' })
      .optional(),
    embeddingsModel: nonEmpty('expected the id of an embeddings model such as nomic-embed-text').optional(),
    embeddingsApiKey: nonEmpty('expected a non-empty API key').optional(),
    embeddingsPricePerMTok: z
      .number({ error: 'expected a number of US dollars per million tokens, 0 or more' })
      .nonnegative({ error: 'expected a number of US dollars per million tokens, 0 or more' })
      .optional(),
    embeddingsTimeoutMs: intIn(1, MAX_TIMER_MS, ALLOWED_MS),
    cacheTtl: z.enum(CACHE_TTLS, { error: 'expected "5m" or "1h"' }),
    // 0 switches the limit off (benchmarks, trusted local tools).
    rpcRateLimit: intIn(
      0,
      1_000_000,
      'expected a whole number of requests per second from 0 to 1000000 (0 = no limit)',
    ),
    rpcRateBurst: intIn(1, 1_000_000, 'expected a whole number of requests from 1 to 1000000'),
    checkpointKey: z
      .string({ error: CHECKPOINT_KEY_ALLOWED })
      .refine(isCheckpointKeyText, { error: CHECKPOINT_KEY_ALLOWED })
      .optional(),
    traceContent: z.boolean({ error: ALLOWED_BOOL }),
    traceMaxCount: intIn(1, 10_000_000, 'expected an integer from 1 to 10000000'),
    // 0 switches the age limit off: only VIGIL_TRACE_MAX_COUNT bounds the traces.
    traceMaxAgeDays: intIn(0, 36_500, 'expected a whole number of days from 0 to 36500 (0 = no age limit)'),
    // The OpenTelemetry export (docs/guides/traces-and-opentelemetry.md): Vigil reads what decides whether and how the
    // SDK is loaded; the exporter itself reads the other OTEL_* variables (headers, timeout, compression, resource
    // attributes).
    otlpEndpoint: z.url({ protocol: /^https?$/, error: ALLOWED_OTLP_URL }).optional(),
    otlpTracesEndpoint: z.url({ protocol: /^https?$/, error: ALLOWED_OTLP_URL }).optional(),
    otlpProtocol: z.enum(OTLP_PROTOCOLS, { error: ALLOWED_OTLP_PROTOCOL }),
    otlpTracesProtocol: z.enum(OTLP_PROTOCOLS, { error: ALLOWED_OTLP_PROTOCOL }).optional(),
    otelServiceName: nonEmpty('expected a non-empty service name').optional(),
    otelBspScheduleDelayMs: intIn(
      0,
      MAX_TIMER_MS,
      `expected an integer number of milliseconds from 0 to ${MAX_TIMER_MS}`,
    ),
    otelBspMaxQueueSize: intIn(1, 1_000_000, 'expected an integer from 1 to 1000000'),
    otelBspMaxExportBatchSize: intIn(1, 1_000_000, 'expected an integer from 1 to 1000000'),
    otelBspExportTimeoutMs: intIn(1, MAX_TIMER_MS, ALLOWED_MS),
    // The file's content, read by loadConfig; an embedder passes the same object directly.
    mcp: McpConfigFileSchema,
    // VIGIL_CHANNELS_CONFIG's file, read by loadConfig, as `mcp` is.
    channels: ChannelsConfigFileSchema,
    mcpServerTools: McpServerToolsSchema,
    taskDeadlineMs: intIn(1, MAX_TIMER_MS, ALLOWED_MS),
    taskMaxCostUsd: positive('expected a positive number of US dollars such as 0.50'),
    webhookTimeoutMs: intIn(1, MAX_TIMER_MS, ALLOWED_MS),
    webhookRetryHours: intIn(1, 8760, 'expected a whole number of hours from 1 to 8760'),
    webhookBacklogMax: intIn(0, 10_000_000, 'expected an integer from 0 to 10000000'),
    webhookAllowPrivate: z.boolean({ error: ALLOWED_BOOL }),
  })
  .superRefine((c, ctx) => {
    // A broken relation between two variables blames the first; `alternative` blames the other instead, which
    // loadConfig uses when only the other one was set by the user (so the message points at what they typed).
    const relation = (
      key: keyof VigilConfig,
      message: string,
      alternative: { key: keyof VigilConfig; message: string },
    ) => ctx.addIssue({ code: 'custom', path: [key], message, params: { alternative } });
    if (c.beatMinMs > c.beatMaxMs) {
      relation('beatMinMs', `expected at most VIGIL_BEAT_MAX_MS (${c.beatMaxMs})`, {
        key: 'beatMaxMs',
        message: `expected at least VIGIL_BEAT_MIN_MS (${c.beatMinMs})`,
      });
    } else if (c.beatMs < c.beatMinMs) {
      relation('beatMs', `expected at least VIGIL_BEAT_MIN_MS (${c.beatMinMs})`, {
        key: 'beatMinMs',
        message: `expected at most VIGIL_BEAT_MS (${c.beatMs})`,
      });
    } else if (c.beatMs > c.beatMaxMs) {
      relation('beatMs', `expected at most VIGIL_BEAT_MAX_MS (${c.beatMaxMs})`, {
        key: 'beatMaxMs',
        message: `expected at least VIGIL_BEAT_MS (${c.beatMs})`,
      });
    }
    if (c.windDownPct >= c.hardStopPct) {
      relation('windDownPct', `expected less than VIGIL_HARD_STOP_PCT (${c.hardStopPct})`, {
        key: 'hardStopPct',
        message: `expected more than VIGIL_WIND_DOWN_PCT (${c.windDownPct})`,
      });
    }
    if (c.thinker === 'anthropic' && c.anthropicApiKey === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['anthropicApiKey'],
        message: 'required when VIGIL_THINKER is "anthropic"',
      });
    }
    if (c.thinker === 'openai' && c.openaiApiKey === undefined && c.openaiBaseUrl === undefined) {
      const message =
        'required when VIGIL_THINKER is "openai" and OPENAI_BASE_URL is unset (OpenAI\'s own API); a local server set in OPENAI_BASE_URL needs none';
      ctx.addIssue({ code: 'custom', path: ['openaiApiKey'], message });
    }
    // Each names the variable that is missing: the one the user must add.
    if (c.embeddingsUrl !== undefined && c.embeddingsModel === undefined) {
      const message = 'required when VIGIL_EMBEDDINGS_URL is set (such as nomic-embed-text on Ollama)';
      ctx.addIssue({ code: 'custom', path: ['embeddingsModel'], message });
    } else if (c.embeddingsUrl === undefined && c.embeddingsModel !== undefined) {
      const message = 'required when VIGIL_EMBEDDINGS_MODEL is set (such as http://127.0.0.1:11434/v1 for Ollama)';
      ctx.addIssue({ code: 'custom', path: ['embeddingsUrl'], message });
    }
    if (c.thinker === 'openai' && c.model === DEFAULT_MODEL) {
      const message =
        'expected the id of a model the OpenAI-compatible endpoint serves (such as gpt-5-mini, or llama3.2 on Ollama): VIGIL_THINKER=openai has no default model';
      ctx.addIssue({ code: 'custom', path: ['model'], message });
    }
  });

/** Vigil's configuration, camelCase, every value typed and checked. */
export type VigilConfig = z.infer<typeof VigilConfigSchema>;

/** How an environment string becomes the value the schema checks. */
export type ConfigValueKind = 'string' | 'number' | 'boolean' | 'json' | 'jsonFile' | 'list';

/** One environment variable: its config field, how its text is read, its default text, and what it means. */
export interface ConfigVariable {
  readonly name: string;
  readonly key: keyof VigilConfig;
  readonly kind: ConfigValueKind;
  /** The default as it would be written in the environment; undefined: unset (see the description). */
  readonly default: string | undefined;
  /** For a `jsonFile` variable: the value when it is unset (there is no file to name). */
  readonly unsetValue?: unknown;
  readonly description: string;
  /** The `vigil run` flag that overrides it, if any. */
  readonly flag?: '--data-dir' | '--host' | '--port' | '--thinker';
  /** A secret: error messages say how long the value was, never what it was. */
  readonly secret?: true;
}

/** Every variable Vigil reads, in `.env.example` order. */
// prettier-ignore
export const CONFIG_VARIABLES: readonly ConfigVariable[] = [
  { name: 'VIGIL_DATA_DIR', key: 'dataDir', kind: 'string', default: './data', flag: '--data-dir', description: 'Directory for LevelDB and the token file.' },
  { name: 'VIGIL_HOST', key: 'host', kind: 'string', default: '127.0.0.1', flag: '--host', description: 'Gateway host to listen on.' },
  { name: 'VIGIL_ALLOWED_HOSTS', key: 'allowedHosts', kind: 'list', default: undefined, unsetValue: [], description: 'Further Host names the gateway answers, comma-separated, each optionally with :port (a name without a port matches any port): a reverse proxy\'s public name. Always accepted: localhost, 127.0.0.1 and [::1] with the gateway\'s port, and VIGIL_HOST unless it is 0.0.0.0 or ::. Any other Host gets 403 (DNS rebinding).' },
  { name: 'VIGIL_ALLOWED_ORIGINS', key: 'allowedOrigins', kind: 'list', default: undefined, unsetValue: [], description: 'Further browser Origins the gateway accepts, comma-separated http(s) origins (https://vigil.example.com): a reverse proxy\'s. Always accepted: the gateway\'s own (http:// and an accepted default Host) and requests without an Origin. Any other Origin, null included, gets 403.' },
  { name: 'VIGIL_PUBLIC_URL', key: 'publicUrl', kind: 'string', default: undefined, description: 'The gateway as a browser reaches it (a reverse proxy\'s https://vigil.example.com, with a path if it serves Vigil under one): remote MCP servers\' OAuth sign-ins send the browser back to it + /oauth/callback. Its host is accepted like a VIGIL_ALLOWED_HOSTS entry. Unset: the gateway\'s own URL, http://VIGIL_HOST:PORT.' },
  { name: 'VIGIL_PORT', key: 'port', kind: 'number', default: '7420', flag: '--port', description: 'Gateway port, 0 to 65535 (0 = any free port; the "gateway listening" log line tells which).' },
  { name: 'VIGIL_TOKEN', key: 'token', kind: 'string', default: undefined, secret: true, description: 'Gateway token (operate scope); at least 128 bits: 32+ hex digits or 22+ base64url/base64 characters (openssl rand -hex 16); unset: a random one is created once in DATA_DIR/token (mode 0600) and reused.' },
  { name: 'VIGIL_THINKER', key: 'thinker', kind: 'string', default: 'offline', flag: '--thinker', description: 'offline (deterministic, no network), anthropic (needs ANTHROPIC_API_KEY) or openai (any OpenAI-compatible Chat Completions endpoint: OPENAI_BASE_URL, OPENAI_API_KEY, VIGIL_MODEL).' },
  { name: 'ANTHROPIC_API_KEY', key: 'anthropicApiKey', kind: 'string', default: undefined, secret: true, description: 'API key for the anthropic thinker; required when VIGIL_THINKER=anthropic.' },
  { name: 'ANTHROPIC_BASE_URL', key: 'anthropicBaseUrl', kind: 'string', default: undefined, description: 'Alternative http(s) base URL for the Anthropic API; unset: the SDK default.' },
  { name: 'VIGIL_ANTHROPIC_TIMEOUT_MS', key: 'anthropicTimeoutMs', kind: 'number', default: '120000', description: 'Timeout of one Anthropic API attempt in ms, response body included; a timed-out attempt is retried like a 5xx. A streamed reply is given up after this long without a byte.' },
  { name: 'OPENAI_BASE_URL', key: 'openaiBaseUrl', kind: 'string', default: undefined, description: 'Base URL of the Chat Completions endpoint for the openai thinker (http://localhost:11434/v1 for Ollama, https://openrouter.ai/api/v1 for OpenRouter); unset: OpenAI\'s own API.' },
  { name: 'OPENAI_API_KEY', key: 'openaiApiKey', kind: 'string', default: undefined, secret: true, description: 'API key for the openai thinker; required when VIGIL_THINKER=openai and OPENAI_BASE_URL is unset; a local server needs none.' },
  { name: 'VIGIL_OPENAI_TIMEOUT_MS', key: 'openaiTimeoutMs', kind: 'number', default: '120000', description: 'Timeout of one Chat Completions attempt in ms, response body included; a timed-out attempt is retried like a 5xx. A slow local model may need more.' },
  { name: 'VIGIL_EMBEDDINGS_URL', key: 'embeddingsUrl', kind: 'string', default: undefined, description: 'Base URL of an OpenAI-compatible embeddings API (http://127.0.0.1:11434/v1 for Ollama, a llama.cpp server\'s /v1, https://api.openai.com/v1): set with VIGIL_EMBEDDINGS_MODEL, memory search fuses the lexical ranking with vector similarity; unset: lexical search only.' },
  { name: 'VIGIL_EMBEDDINGS_MODEL', key: 'embeddingsModel', kind: 'string', default: undefined, description: 'The embeddings model (nomic-embed-text, text-embedding-3-small); required with VIGIL_EMBEDDINGS_URL. Changing it re-embeds every record in the background.' },
  { name: 'VIGIL_EMBEDDINGS_API_KEY', key: 'embeddingsApiKey', kind: 'string', default: undefined, secret: true, description: 'API key sent to VIGIL_EMBEDDINGS_URL (never OPENAI_API_KEY: a key goes only to the server it was given for); a local server needs none.' },
  { name: 'VIGIL_EMBEDDINGS_PRICE_PER_MTOK', key: 'embeddingsPricePerMTok', kind: 'number', default: undefined, description: 'Price of the embeddings model in USD per million input tokens, charged to the daily budget; unset: OpenAI\'s list price for its text-embedding models, 0 for any other (a local model).' },
  { name: 'VIGIL_EMBEDDINGS_TIMEOUT_MS', key: 'embeddingsTimeoutMs', kind: 'number', default: '30000', description: 'Timeout of one embeddings request that fills vectors in the background, in ms; a search\'s query waits at most 2 s (or this, if shorter) before answering with the lexical ranking alone.' },
  { name: 'VIGIL_IDENTITY_FILE', key: 'identityFile', kind: 'string', default: undefined, description: 'File with the agent persona and standing instructions; unset: the default shipped in the package.' },
  { name: 'VIGIL_MODEL', key: 'model', kind: 'string', default: DEFAULT_MODEL, description: 'Model id for the think phase (a current Claude Sonnet by default; required with VIGIL_THINKER=openai); its price must be known or given in VIGIL_PRICING_JSON (0 is a valid price for a local model).' },
  { name: 'VIGIL_BEAT_MS', key: 'beatMs', kind: 'number', default: '1000', description: 'Base interval between beats in ms; must lie between VIGIL_BEAT_MIN_MS and VIGIL_BEAT_MAX_MS.' },
  { name: 'VIGIL_BEAT_MIN_MS', key: 'beatMinMs', kind: 'number', default: '100', description: 'Shortest interval the adaptive heartbeat may use, in ms.' },
  { name: 'VIGIL_BEAT_MAX_MS', key: 'beatMaxMs', kind: 'number', default: '60000', description: 'Longest interval the adaptive heartbeat may use, in ms.' },
  { name: 'VIGIL_CHECKPOINT_ENABLED', key: 'checkpointEnabled', kind: 'boolean', default: 'true', description: 'Periodic checkpoints on or off (true/false/1/0/yes/no).' },
  { name: 'VIGIL_CHECKPOINT_INTERVAL_BEATS', key: 'checkpointIntervalBeats', kind: 'number', default: '50', description: 'Take a checkpoint every N beats.' },
  { name: 'VIGIL_CHECKPOINT_MAX_COUNT', key: 'checkpointMaxCount', kind: 'number', default: '10', description: 'Keep the newest N checkpoints; older ones are pruned.' },
  { name: 'VIGIL_CHECKPOINT_KEY', key: 'checkpointKey', kind: 'string', default: undefined, secret: true, description: 'Seals every stored value (checkpoints, conversation, journal, ledger, tool calls, all stores) with AES-256-GCM: 32 random bytes as 64 hex characters or base64 (openssl rand -hex 32); unset: stored unencrypted. A data dir sealed with another key, or sealed while unset, refuses to start (exit 2).' },
  { name: 'VIGIL_DAILY_BUDGET_USD', key: 'dailyBudgetUsd', kind: 'number', default: '5.00', description: 'Daily spending cap for the think phase, in USD.' },
  { name: 'VIGIL_TIMEZONE', key: 'timezone', kind: 'string', default: 'UTC', description: 'IANA time zone whose midnight resets the daily budget.' },
  { name: 'VIGIL_WIND_DOWN_PCT', key: 'windDownPct', kind: 'number', default: '90', description: 'Budget percent at which the agent finishes its turn, then sleeps; below VIGIL_HARD_STOP_PCT.' },
  { name: 'VIGIL_HARD_STOP_PCT', key: 'hardStopPct', kind: 'number', default: '110', description: 'Budget percent at which the agent stops at once.' },
  { name: 'VIGIL_DEBRIEF_AFTER_S', key: 'debriefAfterS', kind: 'number', default: '30', description: 'Minimum turn length in seconds before a debrief is injected (0 = after every turn).' },
  { name: 'VIGIL_LOG_LEVEL', key: 'logLevel', kind: 'string', default: 'info', description: `pino log level: ${LOG_LEVELS.join(', ')}.` },
  { name: 'VIGIL_WM_CAPACITY', key: 'wmCapacity', kind: 'number', default: '7', description: 'Working-memory capacity in items.' },
  { name: 'VIGIL_SWARM_CONCURRENCY', key: 'swarmConcurrency', kind: 'number', default: '3', description: 'Swarm sub-agent tasks run at the same time.' },
  { name: 'VIGIL_EVENT_JOURNAL_SIZE', key: 'eventJournalSize', kind: 'number', default: '10000', description: 'How many of the newest events the persisted journal keeps, for resuming subscribers and events.history.' },
  { name: 'VIGIL_CONVERSATION_MAX_MESSAGES', key: 'conversationMaxMessages', kind: 'number', default: '10000', description: 'Retention: the newest N conversation messages are kept (conversation.list pages them); older ones are pruned hourly, never one a stored checkpoint would replay.' },
  { name: 'VIGIL_LEDGER_CHARGE_DAYS', key: 'ledgerChargeDays', kind: 'number', default: '30', description: 'Retention: days of per-think charges kept in the budget ledger; older days keep only their daily totals (400 days of those).' },
  { name: 'VIGIL_TOOL_CALL_RETENTION_DAYS', key: 'toolCallRetentionDays', kind: 'number', default: '30', description: 'Retention: days an ended tool call record is kept (calls of unknown outcome are kept until reported).' },
  { name: 'VIGIL_MEMORY_MAX_COUNT', key: 'memoryMaxCount', kind: 'number', default: '100000', description: 'Retention: the most long-term memories kept; a keep past it forgets, in the same write, those least worth keeping (salience, halved every 90 days since a memory was last kept or recalled) down to 1 % below it, with a memory.evicted event.' },
  { name: 'VIGIL_SESSION_HOURS', key: 'sessionHours', kind: 'number', default: '12', description: 'How long a dashboard browser session lasts, in hours (fractions allowed, at most 720): checked by the gateway on every use, whatever the browser keeps. `vigil tokens revoke daemon` ends every session at once.' },
  { name: 'VIGIL_MAX_CONNECTIONS', key: 'maxConnections', kind: 'number', default: '256', description: 'WebSockets, SSE streams and /mcp exchanges the gateway holds open at once, one token at most half of them; past either cap a new one is refused with HTTP 503 (counted in vigil_gateway_connections_refused_total).' },
  { name: 'VIGIL_MAX_SUBSCRIPTIONS', key: 'maxSubscriptions', kind: 'number', default: '16', description: 'Event subscriptions one gateway connection may hold at once.' },
  { name: 'VIGIL_RPC_RATE_LIMIT', key: 'rpcRateLimit', kind: 'number', default: '200', description: 'JSON-RPC requests per second one gateway connection may sustain (a token bucket; 0 = no limit); the excess is answered with error -32029.' },
  { name: 'VIGIL_RPC_RATE_BURST', key: 'rpcRateBurst', kind: 'number', default: '1000', description: 'JSON-RPC requests one connection may send at once before VIGIL_RPC_RATE_LIMIT applies (the bucket size).' },
  { name: 'VIGIL_SUBSCRIBER_BUFFER', key: 'subscriberBuffer', kind: 'number', default: '1000', description: 'Events buffered for one slow subscriber before its events are dropped (with an events.dropped notice).' },
  { name: 'VIGIL_BUSY_STRATEGY', key: 'busyStrategy', kind: 'string', default: 'interrupt', description: 'A message arriving during a user turn: interrupt (answer it next), enqueue (after the current turn) or reject.' },
  { name: 'VIGIL_MAX_TOOL_ITERATIONS', key: 'maxToolIterations', kind: 'number', default: '8', description: 'Iteration guard: the most model calls one think may make in its tool loop.' },
  { name: 'VIGIL_CONTEXT_TOKENS', key: 'contextTokens', kind: 'number', default: '16000', description: 'Bound on one prompt in tokens (conservative estimate): identity, tools, conversation summary, recalled memories, recent turns and the turn\'s messages all fit under it.' },
  { name: 'VIGIL_STUCK_TURN_S', key: 'stuckTurnS', kind: 'number', default: '600', description: 'A turn working longer than this many seconds is reset as stuck.' },
  { name: 'VIGIL_OFFLINE_COST_USD', key: 'offlineCostUsd', kind: 'number', default: '0', description: 'Simulated cost in USD of each offline think, to see the budget cycle without an API key.' },
  { name: 'VIGIL_MCP_CONFIG', key: 'mcp', kind: 'jsonFile', default: undefined, unsetValue: { mcpServers: {} }, description: 'Path to a JSON file of MCP servers in the mcpServers form ({"mcpServers": {NAME: {command, args?, env?, cwd?} | {url, headers?, oauth?}}}, each with optional allowedTools, requireApproval, idempotentTools, timeoutMs; oauth: {clientId?, clientSecret?, clientMetadataUrl?, scopes?} for a server behind OAuth); unset: no MCP tools.' },
  { name: 'VIGIL_CHANNELS_CONFIG', key: 'channels', kind: 'jsonFile', default: undefined, unsetValue: { channels: {} }, description: 'Path to a JSON file of chat channels the agent talks through ({"channels": {NAME: {"type": "telegram", "tokenEnv": "TELEGRAM_BOT_TOKEN", apiRoot?, dmPolicy?, allowFrom?, groups?, operators?}}}; Slack: {"type": "slack", "botTokenEnv": …, "appTokenEnv": … (Socket Mode) and/or "signingSecretEnv": … (Events API), apiUrl?, …}); secrets are never in the file, an entry names the variables holding them, and each must be set. dmPolicy: pairing (default), allowlist, open or disabled. Unset: no channels.' },
  { name: 'VIGIL_MCP_SERVER_TOOLS', key: 'mcpServerTools', kind: 'list', default: DEFAULT_MCP_TOOLS.join(','), description: 'The tools Vigil\'s own MCP server offers hosts (/mcp on the gateway; `vigil mcp` reads it from its own environment), comma-separated; an unknown name is a configuration error.' },
  { name: 'VIGIL_TRACE_CONTENT', key: 'traceContent', kind: 'boolean', default: 'false', description: 'Keep the text of each think\'s prompt sections and answers in its trace (thinks.get); off: token counts only. Sealed at rest with VIGIL_CHECKPOINT_KEY when set.' },
  { name: 'VIGIL_TRACE_MAX_COUNT', key: 'traceMaxCount', kind: 'number', default: '1000', description: 'Keep the traces of the newest N thinks; older ones are pruned in the batch that adds a new one.' },
  { name: 'VIGIL_TRACE_MAX_AGE_DAYS', key: 'traceMaxAgeDays', kind: 'number', default: '30', description: 'Prune think traces older than this many days (0 = no age limit), in the batch that adds a new one.' },
  { name: 'VIGIL_TASK_DEADLINE_MS', key: 'taskDeadlineMs', kind: 'number', default: '600000', description: 'Default deadline of a sub-agent task in ms once it starts (the model may give a task its own); a task past it is stopped and fails.' },
  { name: 'VIGIL_TASK_MAX_COST_USD', key: 'taskMaxCostUsd', kind: 'number', default: '0.50', description: 'Default money cap of a sub-agent task in USD (the model may give its own); checked after each model call, the task then ends with what it has. Counted in the daily budget.' },
  { name: 'VIGIL_WEBHOOK_TIMEOUT_MS', key: 'webhookTimeoutMs', kind: 'number', default: '10000', description: 'How long one webhook delivery attempt may take, in ms, before it is aborted and counts as a failure.' },
  { name: 'VIGIL_WEBHOOK_RETRY_HOURS', key: 'webhookRetryHours', kind: 'number', default: '24', description: 'A failing webhook endpoint is retried (backoff from about 1 s doubling to one hour) until this many hours have passed since its oldest undelivered event; then it is disabled until webhooks.enable.' },
  { name: 'VIGIL_WEBHOOK_BACKLOG_MAX', key: 'webhookBacklogMax', kind: 'number', default: '100000', description: 'Events the journal keeps beyond VIGIL_EVENT_JOURNAL_SIZE for enabled webhook endpoints that have not received them; past it the oldest go all the same, each endpoint told by webhook.gap.' },
  { name: 'VIGIL_WEBHOOK_ALLOW_PRIVATE', key: 'webhookAllowPrivate', kind: 'boolean', default: 'false', description: 'Let webhooks.add take loopback, link-local and private destinations (127.0.0.0/8, ::1, localhost, 10/8, 172.16/12, 192.168/16, 100.64/10, 169.254/16, fe80::/10, fc00::/7, 0.0.0.0, ::, and their IPv4-mapped forms), checked again at each connection: a receiver on the same host or network needs it. The gateway itself is refused either way.' },
  { name: 'VIGIL_CACHE_TTL', key: 'cacheTtl', kind: 'string', default: '5m', description: 'Prompt cache lifetime: 5m, or 1h for an agent whose thinks are more than five minutes apart (1h cache writes cost 2x base input, 5m ones 1.25x).' },
  { name: 'VIGIL_PRICING_JSON', key: 'pricingOverrides', kind: 'json', default: '{}', description: 'JSON price overrides per model: {"<model>": {"inputPerMTok", "outputPerMTok", "cacheWritePerMTok", "cacheReadPerMTok"}} in USD.' },
  { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', key: 'otlpEndpoint', kind: 'string', default: undefined, description: 'OTLP/HTTP collector base URL (e.g. http://localhost:4318; spans go to <url>/v1/traces): set it to export thinks, model calls and tool calls as OpenTelemetry spans; unset: no tracing, and no OpenTelemetry SDK is loaded. OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION and OTEL_RESOURCE_ATTRIBUTES are read by the exporter as usual.' },
  { name: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', key: 'otlpTracesEndpoint', kind: 'string', default: undefined, description: 'Full URL spans are POSTed to, used as given; overrides OTEL_EXPORTER_OTLP_ENDPOINT for traces (and enables the export on its own).' },
  { name: 'OTEL_EXPORTER_OTLP_PROTOCOL', key: 'otlpProtocol', kind: 'string', default: 'http/protobuf', description: 'OTLP encoding: http/protobuf or http/json (gRPC is not supported).' },
  { name: 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', key: 'otlpTracesProtocol', kind: 'string', default: undefined, description: 'OTLP encoding for traces, overriding OTEL_EXPORTER_OTLP_PROTOCOL.' },
  { name: 'OTEL_SERVICE_NAME', key: 'otelServiceName', kind: 'string', default: undefined, description: 'service.name of the exported spans; unset: service.name from OTEL_RESOURCE_ATTRIBUTES, else vigil.' },
  { name: 'OTEL_BSP_SCHEDULE_DELAY', key: 'otelBspScheduleDelayMs', kind: 'number', default: '5000', description: 'Milliseconds between two span exports (the batch span processor\'s delay).' },
  { name: 'OTEL_BSP_MAX_QUEUE_SIZE', key: 'otelBspMaxQueueSize', kind: 'number', default: '2048', description: 'Spans waiting for export at most; past it new spans are dropped and counted in vigil_otel_spans_dropped_total, so a slow or unreachable collector never holds up the heartbeat.' },
  { name: 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', key: 'otelBspMaxExportBatchSize', kind: 'number', default: '512', description: 'Spans in one export request at most (the SDK caps it at OTEL_BSP_MAX_QUEUE_SIZE).' },
  { name: 'OTEL_BSP_EXPORT_TIMEOUT', key: 'otelBspExportTimeoutMs', kind: 'number', default: '30000', description: 'Milliseconds one export may take before the batch processor gives up on it.' },
];
