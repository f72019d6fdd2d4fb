/** The boot's tools and retention phases: the MCP hub, the durable tool caller over it, and the hourly retention keeper. */
import { VIGIL_VERSION } from '../shared/version.js';
import type { VigilDb } from '../subsystems/store/vigil-db.js';
import { DurableToolCaller } from '../subsystems/tools/durable-tool-caller.js';
import { McpHub } from '../subsystems/tools/mcp-hub.js';
import { CallbackUrl } from '../subsystems/tools/oauth/callback-url.js';
import { OAuthStore } from '../subsystems/tools/oauth/oauth-store.js';
import type { BootBase } from './boot-phase.js';
import type { EventWiring, Records } from './boot-storage.js';
import type { OpenTurns } from './open-turns.js';
import { RetentionKeeper } from './retention-keeper.js';

/** The MCP servers and the caller the thinker calls them through. */
export interface Tools {
  hub: McpHub;
  caller: DurableToolCaller;
  /** Where sign-ins send the browser back: VIGIL_PUBLIC_URL's, or the gateway's once it listens. */
  callbackUrl: CallbackUrl;
}

/**
 * Builds the hub (started with the heartbeat: servers connect in the background and never hold up the boot) and the
 * tool caller, which reports calls a crash cut short (once) before the first think and never runs them again.
 */
export async function connectTools(
  base: BootBase,
  db: VigilDb,
  records: Records,
  events: EventWiring,
  openTurns: OpenTurns,
): Promise<Tools> {
  const { options, config, clock, log, thinker, stack } = base;
  const callbackUrl = new CallbackUrl(config.publicUrl);
  const hub = new McpHub({
    servers: config.mcp.mcpServers,
    bus: events.bus,
    clock,
    log,
    clientVersion: VIGIL_VERSION,
    ...(options.mcp?.timing === undefined ? {} : { timing: options.mcp.timing }),
    ...(options.mcp?.createTransport === undefined ? {} : { createTransport: options.mcp.createTransport }),
    oauth: {
      store: await OAuthStore.open(db),
      callbackUrl,
      ...(options.mcp?.fetch === undefined ? {} : { fetch: options.mcp.fetch }),
    },
  });
  // No MCP server process outlives the runtime; its calls' results then land in the log (deferred before this).
  stack.defer('mcp servers', () => hub.stop());
  const caller = new DurableToolCaller({
    hub,
    log: records.toolCallLog,
    journal: events.journal,
    bus: events.bus,
    clock,
    logger: log,
    isTurnOpen: (turnId) => openTurns.isOpen(turnId),
  });
  await caller.recover();
  thinker.useTools?.(caller);
  return { hub, caller, callbackUrl };
}

/** Hourly, on a beat: every append-only record pruned to its retention (docs/operations/retention.md). */
export function keepRetention(
  { config, clock, log, stack }: BootBase,
  db: VigilDb,
  records: Records,
  events: EventWiring,
): void {
  const { store, conversation, ledger, swarmResults, toolCallLog } = records;
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
  retention.attach(events.bus);
  // Stops starting passes and waits for one under way, before the stores it prunes close.
  stack.defer('retention', () => retention.detach());
}
