/**
 * The tools Vigil's own MCP server offers (CONTRACT §12) by name, and `VIGIL_MCP_SERVER_TOOLS`, the list of those a
 * host may see. Free of zod and the RPC catalogue: `vigil mcp` reads its environment before it loads either.
 */

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

/** The sentence that says what `VIGIL_MCP_SERVER_TOOLS` should hold. */
export const TOOLS_ALLOWED = `expected a comma-separated list of tool names from ${MCP_TOOL_NAMES.join(', ')}`;

/** What is wrong with `items` as a tool list (the first problem), or undefined when it names at least one tool and only tools. */
export function mcpToolListIssue(items: readonly string[]): string | undefined {
  if (items.length === 0) return `${TOOLS_ALLOWED}, at least one`;
  const unknown = items.find((item) => !(MCP_TOOL_NAMES as readonly string[]).includes(item));
  return unknown === undefined ? undefined : `unknown tool ${JSON.stringify(unknown)}: ${TOOLS_ALLOWED}`;
}

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
  const items = splitList(text);
  const issue = mcpToolListIssue(items);
  if (issue === undefined) return items as McpToolName[];
  return { error: `VIGIL_MCP_SERVER_TOOLS=${JSON.stringify(text)} is invalid: ${issue}.` };
}
