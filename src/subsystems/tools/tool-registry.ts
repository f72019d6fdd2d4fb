/** The registry of MCP tools: each server's listing turned into `mcp__SERVER__TOOL` entries with the entry's policy, in one stable order. */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerEntry } from '../../protocol/mcp-config.schema.js';
import { mcpToolName } from './tool-naming.js';

/** How long one tool call may take when the entry does not say. */
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/** A JSON Schema object, as a tool's `inputSchema` is. */
export type JsonSchemaObject = Record<string, unknown>;

/** One tool the agent may call. */
export interface RegisteredTool {
  /** `mcp__SERVER__TOOL`: the name the model sees and calls. */
  readonly name: string;
  readonly server: string;
  /** Its name on the server, used for the call. */
  readonly tool: string;
  readonly description: string;
  /** The JSON Schema of its arguments, as the server lists it. */
  readonly inputSchema: JsonSchemaObject;
  readonly requireApproval: boolean;
  readonly idempotent: boolean;
  readonly timeoutMs: number;
  /** Its server is connected now. */
  readonly available: boolean;
}

/** A tool of a listing that was left out, and why (for a warning in the log). */
export interface SkippedTool {
  server: string;
  tool: string;
  reason: string;
}

/**
 * The registry entries of one server's listing: only `allowedTools` (when given), named `mcp__SERVER__TOOL`, with
 * approval, idempotence and timeout resolved from the entry. A name too long for the model API, or one that
 * collides with another after replacing characters, is skipped and reported.
 */
export function serverTools(
  server: string,
  entry: McpServerEntry,
  listing: readonly Tool[],
  available: boolean,
): { tools: RegisteredTool[]; skipped: SkippedTool[] } {
  const allowed = entry.allowedTools === undefined ? undefined : new Set(entry.allowedTools);
  const approval = entry.requireApproval;
  const idempotent = new Set(entry.idempotentTools ?? []);
  const tools: RegisteredTool[] = [];
  const skipped: SkippedTool[] = [];
  const taken = new Set<string>();
  // Sorted by the server's own names first, so which of two colliding tools wins does not depend on listing order.
  for (const tool of [...listing].sort((a, b) => compare(a.name, b.name))) {
    if (allowed !== undefined && !allowed.has(tool.name)) continue;
    const name = mcpToolName(server, tool.name);
    if (name === undefined) {
      skipped.push({ server, tool: tool.name, reason: 'its name as mcp__SERVER__TOOL is longer than 64 characters' });
      continue;
    }
    if (taken.has(name)) {
      skipped.push({ server, tool: tool.name, reason: `it would be named ${name} like another tool of the server` });
      continue;
    }
    taken.add(name);
    tools.push({
      name,
      server,
      tool: tool.name,
      description: tool.description ?? '',
      inputSchema: tool.inputSchema,
      requireApproval: approval === true || (Array.isArray(approval) && approval.includes(tool.name)),
      idempotent: idempotent.has(tool.name),
      timeoutMs: entry.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
      available,
    });
  }
  return { tools, skipped };
}

/** Names in `allowedTools` the server does not offer (likely a typo in the config). */
export function unknownAllowedTools(entry: McpServerEntry, listing: readonly Tool[]): string[] {
  const offered = new Set(listing.map((tool) => tool.name));
  return (entry.allowedTools ?? []).filter((name) => !offered.has(name));
}

/** Every server's tools in one list, sorted by name: the order the model sees them in, stable across restarts. */
export function mergeRegistry(perServer: Iterable<readonly RegisteredTool[]>): RegisteredTool[] {
  return [...perServer].flat().sort((a, b) => compare(a.name, b.name));
}

// Code-unit order, not localeCompare: the same on every machine and locale, which the prompt cache needs.
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
