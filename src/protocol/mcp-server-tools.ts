/**
 * What each tool of Vigil's own MCP server (`vigil mcp`, `/mcp`; CONTRACT §12) may do: the RPC methods it calls, so
 * what a tool can do is what those methods allow, and which tools a token's scope leaves. The names are in
 * `mcp-tool-names.ts`.
 */
import { z } from 'zod';
import { mcpToolListIssue, TOOLS_ALLOWED, type McpToolName } from './mcp-tool-names.js';
import { RPC_METHODS, type RpcMethodName } from './rpc-methods.js';
import { scopeAllows, type TokenScope } from './token-scopes.js';

/**
 * The RPC methods each tool calls. A token's scope (which methods it may call) decides which tools a host holding it
 * can use: a tool is usable when every method it names is.
 */
export const MCP_TOOL_METHODS: Readonly<Record<McpToolName, readonly RpcMethodName[]>> = {
  send_message: ['events.history', 'budget.status', 'agent.send', 'events.subscribe'],
  get_reply: ['conversation.list'],
  get_status: ['heartbeat.status', 'budget.status', 'goals.list'],
  get_conversation: ['conversation.list'],
  search_memory: ['memory.search', 'conversation.search'],
  list_goals: ['goals.list'],
  add_goal: ['goals.add'],
};

/** The tools of `tools` a token of `scope` can use: those whose every RPC method its scope allows (in the same order). */
export function toolsForScope(tools: readonly McpToolName[], scope: TokenScope): McpToolName[] {
  return tools.filter((tool) =>
    MCP_TOOL_METHODS[tool].every((method) => scopeAllows(scope, RPC_METHODS[method].scope)),
  );
}

/** `VIGIL_MCP_SERVER_TOOLS` once split: at least one known tool name (the problems as `mcpToolListIssue` words them). */
export const McpServerToolsSchema = z
  .array(z.string(), { error: TOOLS_ALLOWED })
  .superRefine((items, ctx) => {
    const issue = mcpToolListIssue(items);
    if (issue !== undefined) ctx.addIssue({ code: 'custom', message: issue });
  })
  .transform((items) => items as McpToolName[]);
