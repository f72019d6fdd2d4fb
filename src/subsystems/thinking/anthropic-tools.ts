/** The Anthropic thinker's tool list: Vigil's own tools (own-tools.ts) and the external ones, with the cache breakpoint. */
import type { Tool } from '@anthropic-ai/sdk/resources/messages';
import { OWN_TOOL_DEFINITIONS } from './own-tools.js';
import type { ExternalToolDefinition } from './think-tools.js';

export { toolUseToAction, type ToolContext, type ToolOutcome } from './own-tools.js';

/** The tool definitions, built once so every request sends the same bytes; the last carries the cache breakpoint. */
export const ANTHROPIC_TOOLS: readonly Tool[] = OWN_TOOL_DEFINITIONS.map((t, i, all) => {
  const tool: Tool = { name: t.name, description: t.description, input_schema: t.inputSchema };
  return i === all.length - 1 ? { ...tool, cache_control: { type: 'ephemeral' as const } } : tool;
});

/**
 * The tools of one request: Vigil's own, then the external ones in their given order, the cache breakpoint moved to
 * the last. Memoised on the external array's identity, so while the registry is unchanged every think sends the
 * very same bytes (the cached prefix); a server coming up changes it once.
 */
export function requestTools(external: readonly ExternalToolDefinition[]): readonly Tool[] {
  if (external === lastExternal) return lastTools;
  const own = ANTHROPIC_TOOLS.map(({ cache_control: _breakpoint, ...rest }) => rest);
  const all: Tool[] = [
    ...own,
    ...external.map((t) => ({ name: t.name, description: t.description, input_schema: externalSchema(t.inputSchema) })),
  ];
  const last = all.length - 1;
  all[last] = { ...all[last]!, cache_control: { type: 'ephemeral' } };
  lastExternal = external;
  lastTools = all;
  return all;
}
// `$schema` is dropped as for Vigil's own tools: the Messages API wants a bare object schema.
function externalSchema(schema: Readonly<Record<string, unknown>>): Tool.InputSchema {
  const { $schema: _dropped, ...rest } = schema;
  return { ...rest, type: 'object' };
}
let lastExternal: readonly ExternalToolDefinition[] = [];
let lastTools: readonly Tool[] = ANTHROPIC_TOOLS;
