/** How an MCP tool is named to the model: `mcp__SERVER__TOOL`, within what the Messages API accepts. */

/** The prefix every MCP tool name starts with. */
export const MCP_TOOL_PREFIX = 'mcp__';

/** The longest tool name the model API accepts (`^[a-zA-Z0-9_-]{1,64}$`). */
export const MAX_TOOL_NAME_LENGTH = 64;

const NOT_ALLOWED = /[^A-Za-z0-9_-]/g;

/**
 * The model-facing name of `tool` on `server`, or undefined when it would be longer than the API allows. Characters
 * the API refuses (an MCP tool may be called `files.read`) become `_`; the registry keeps the original for the call.
 */
export function mcpToolName(server: string, tool: string): string | undefined {
  const name = `${MCP_TOOL_PREFIX}${server}__${tool.replace(NOT_ALLOWED, '_')}`;
  return name.length <= MAX_TOOL_NAME_LENGTH ? name : undefined;
}
