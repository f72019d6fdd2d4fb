/**
 * The tools Vigil's own MCP server offers (`vigil mcp`, `/mcp`; CONTRACT §12) and `VIGIL_MCP_SERVER_TOOLS`, the list of
 * those a host may see. Each tool names the RPC methods it calls, so what a tool can do is what those methods allow.
 */
import { z } from 'zod';
import { RPC_METHODS, type RpcMethodName } from './rpc-methods.js';
import { scopeAllows, type TokenScope } from './token-scopes.js';

/** Every tool the MCP server knows, in the order hosts list them. */
export const MCP_TOOL_NAMES = [
  'send_message',
  'get_reply',
  'get_status',
  'get_conversation',
  'search_memory',
  'list_goals',
  'add_goal',
] as const;

/** One of the MCP server's tools. */
export type McpToolName = (typeof MCP_TOOL_NAMES)[number];

/**
 * The tools exposed when `VIGIL_MCP_SERVER_TOOLS` is unset. A tool added later (one that approves, restores or spends)
 * joins `MCP_TOOL_NAMES` but not this list, so nothing beyond these exists unless the user names it.
 */
export const DEFAULT_MCP_TOOLS: readonly McpToolName[] = [
  'send_message',
  'get_reply',
  'get_status',
  'get_conversation',
  'search_memory',
  'list_goals',
  'add_goal',
];

/**
 * The RPC methods each tool calls. A token's scope (which methods it may call) decides which tools a host holding it
 * can use: a tool is usable when every method it names is.
 */
export const MCP_TOOL_METHODS: Readonly<Record<McpToolName, readonly RpcMethodName[]>> = {
  send_message: ['events.history', 'budget.status', 'agent.send', 'events.subscribe'],
  get_reply: ['conversation.list'],
  get_status: ['heartbeat.status', 'budget.status', 'goals.list'],
  get_conversation: ['conversation.list'],
  search_memory: ['memory.search'],
  list_goals: ['goals.list'],
  add_goal: ['goals.add'],
};

/** The tools of `tools` a token of `scope` can use: those whose every RPC method its scope allows (in the same order). */
export function toolsForScope(tools: readonly McpToolName[], scope: TokenScope): McpToolName[] {
  return tools.filter((tool) =>
    MCP_TOOL_METHODS[tool].every((method) => scopeAllows(scope, RPC_METHODS[method].scope)),
  );
}

const TOOLS_ALLOWED = `expected a comma-separated list of tool names from ${MCP_TOOL_NAMES.join(', ')}`;

/** `VIGIL_MCP_SERVER_TOOLS` once split: at least one known tool name. */
export const McpServerToolsSchema = z
  .array(
    z.enum(MCP_TOOL_NAMES, {
      error: (issue) => `unknown tool ${JSON.stringify(issue.input)}: ${TOOLS_ALLOWED}`,
    }),
    { error: TOOLS_ALLOWED },
  )
  .min(1, { error: `${TOOLS_ALLOWED}, at least one` });

/** A comma-separated list as its trimmed, non-empty items (`"a, b,"` is `["a", "b"]`). */
export function splitList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/**
 * `VIGIL_MCP_SERVER_TOOLS` as `vigil mcp` reads it from its environment: the default when unset or empty, the tools
 * named otherwise, or the sentence saying what is wrong (as the daemon's configuration errors put it).
 */
export function mcpToolsFromEnv(text: string | undefined): readonly McpToolName[] | { error: string } {
  if (text === undefined || text.trim() === '') return DEFAULT_MCP_TOOLS;
  const parsed = McpServerToolsSchema.safeParse(splitList(text));
  if (parsed.success) return parsed.data;
  return { error: `VIGIL_MCP_SERVER_TOOLS=${JSON.stringify(text)} is invalid: ${parsed.error.issues[0]!.message}.` };
}
