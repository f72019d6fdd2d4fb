/** docs/configuration.md's table: every variable of the config schema with its default, flag and meaning. */
import { CONFIG_VARIABLES } from '../../src/config.schema.js';
import { code, table } from './markdown.js';

/** Where each variable is explained at length, by name prefix (the longest matching prefix wins). */
const GUIDE_BY_PREFIX: ReadonlyArray<readonly [string, string]> = [
  ['VIGIL_DATA_DIR', '[operations/deployment](operations/deployment.md)'],
  ['VIGIL_HOST', '[reference/gateway](reference/gateway.md)'],
  ['VIGIL_PORT', '[reference/gateway](reference/gateway.md)'],
  ['VIGIL_ALLOWED_', '[reference/gateway](reference/gateway.md#where-a-request-comes-from)'],
  ['VIGIL_TOKEN', '[reference/gateway](reference/gateway.md#authentication)'],
  ['VIGIL_THINKER', '[guides/claude-and-budget](guides/claude-and-budget.md)'],
  ['ANTHROPIC_', '[guides/claude-and-budget](guides/claude-and-budget.md)'],
  ['VIGIL_ANTHROPIC_', '[guides/claude-and-budget](guides/claude-and-budget.md)'],
  ['OPENAI_', '[guides/other-models](guides/other-models.md)'],
  ['VIGIL_OPENAI_', '[guides/other-models](guides/other-models.md)'],
  ['VIGIL_MODEL', '[guides/claude-and-budget](guides/claude-and-budget.md)'],
  ['VIGIL_PRICING_JSON', '[guides/claude-and-budget](guides/claude-and-budget.md)'],
  ['VIGIL_CACHE_TTL', '[guides/claude-and-budget](guides/claude-and-budget.md#the-prompt-cache)'],
  ['VIGIL_DAILY_BUDGET_USD', '[guides/claude-and-budget](guides/claude-and-budget.md)'],
  ['VIGIL_TIMEZONE', '[guides/claude-and-budget](guides/claude-and-budget.md)'],
  ['VIGIL_WIND_DOWN_PCT', '[guides/claude-and-budget](guides/claude-and-budget.md)'],
  ['VIGIL_HARD_STOP_PCT', '[guides/claude-and-budget](guides/claude-and-budget.md)'],
  ['VIGIL_OFFLINE_COST_USD', '[guides/claude-and-budget](guides/claude-and-budget.md)'],
  ['VIGIL_DEBRIEF_AFTER_S', '[guides/claude-and-budget](guides/claude-and-budget.md)'],
  ['VIGIL_BUSY_STRATEGY', '[guides/conversations](guides/conversations.md)'],
  ['VIGIL_STUCK_TURN_S', '[guides/conversations](guides/conversations.md)'],
  ['VIGIL_MAX_TOOL_ITERATIONS', '[guides/tools-and-approvals](guides/tools-and-approvals.md)'],
  ['VIGIL_MCP_CONFIG', '[guides/tools-and-approvals](guides/tools-and-approvals.md)'],
  ['VIGIL_CHANNELS_CONFIG', '[guides/telegram](guides/telegram.md)'],
  ['VIGIL_TASK_', '[guides/tasks](guides/tasks.md)'],
  ['VIGIL_SWARM_CONCURRENCY', '[guides/tasks](guides/tasks.md)'],
  ['VIGIL_CONTEXT_TOKENS', '[guides/memory](guides/memory.md)'],
  ['VIGIL_WM_CAPACITY', '[guides/memory](guides/memory.md)'],
  ['VIGIL_EMBEDDINGS_', '[guides/memory](guides/memory.md#semantic-search)'],
  ['VIGIL_CHECKPOINT_KEY', '[operations/encryption-at-rest](operations/encryption-at-rest.md)'],
  ['VIGIL_CHECKPOINT_', '[operations/guarantees](operations/guarantees.md)'],
  ['VIGIL_EVENT_JOURNAL_SIZE', '[operations/retention](operations/retention.md)'],
  ['VIGIL_CONVERSATION_MAX_MESSAGES', '[operations/retention](operations/retention.md)'],
  ['VIGIL_LEDGER_CHARGE_DAYS', '[operations/retention](operations/retention.md)'],
  ['VIGIL_TOOL_CALL_RETENTION_DAYS', '[operations/retention](operations/retention.md)'],
  ['VIGIL_MAX_SUBSCRIPTIONS', '[reference/gateway](reference/gateway.md#the-event-feed)'],
  ['VIGIL_SUBSCRIBER_BUFFER', '[reference/gateway](reference/gateway.md#the-event-feed)'],
  ['VIGIL_RPC_RATE_', '[reference/gateway](reference/gateway.md#rate-limit)'],
  ['VIGIL_TRACE_', '[guides/traces-and-opentelemetry](guides/traces-and-opentelemetry.md)'],
  ['OTEL_', '[guides/traces-and-opentelemetry](guides/traces-and-opentelemetry.md#opentelemetry)'],
  ['VIGIL_BEAT_', '[architecture](architecture.md#the-runtime-inside)'],
  ['VIGIL_LOG_LEVEL', '[operations/deployment](operations/deployment.md)'],
  ['VIGIL_IDENTITY_FILE', '[getting-started](getting-started.md#the-agents-identity)'],
];

function guideOf(name: string): string {
  const matches = GUIDE_BY_PREFIX.filter(([prefix]) => name.startsWith(prefix)).sort(([a], [b]) => b.length - a.length);
  return matches[0]?.[1] ?? '';
}

/** The table of every variable, in `.env.example` order. */
export function renderConfigurationTable(): string {
  const rows = CONFIG_VARIABLES.map((v) => [
    code(v.name),
    v.default === undefined ? 'unset' : code(v.default),
    v.flag === undefined ? '' : code(v.flag),
    v.secret === true ? `${v.description} A secret: error messages give its length, never its value.` : v.description,
    guideOf(v.name),
  ]);
  return table(['variable', 'default', '`vigil run` flag', 'meaning', 'more'], rows);
}
