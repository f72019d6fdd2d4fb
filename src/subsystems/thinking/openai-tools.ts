/**
 * The OpenAI-compatible thinker's tools: Vigil's own and the external (MCP) ones as function tools, their names
 * mapped to what Chat Completions accepts (`^[a-zA-Z0-9_-]{1,64}$`) and back.
 */
import { createHash } from 'node:crypto';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import { OWN_TOOL_DEFINITIONS } from './own-tools.js';
import type { ExternalToolDefinition } from './think-tools.js';

/** The function names Chat Completions accepts (OpenAI's rule; most compatible servers follow it). */
export const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_NAME = 64;

/** One request's tool list, and the names it was sent under. */
export interface OpenAiToolSet {
  /** The function tools, in a stable order: Vigil's own, then the external ones in their given order. */
  readonly tools: readonly ChatCompletionFunctionTool[];
  /** The name a tool is sent under. */
  readonly wireName: (name: string) => string;
  /** The tool a name the model called is: the name it was sent for, or the name itself when it was never sent. */
  readonly toolName: (wire: string) => string;
}

/**
 * A name that fits the rule, distinct from those taken: the name itself when it fits; otherwise every other
 * character replaced by `_` and, when that is too long or already taken, cut and ended with a hash of the original.
 */
function wireNameFor(name: string, taken: { has(wire: string): boolean }): string {
  if (FUNCTION_NAME.test(name) && !taken.has(name)) return name;
  const cleaned = name.replace(/[^a-zA-Z0-9_-]/g, '_');
  if (cleaned.length > 0 && cleaned.length <= MAX_NAME && !taken.has(cleaned)) return cleaned;
  for (let salt = 0; ; salt++) {
    const hash = createHash('sha256').update(`${salt}:${name}`).digest('hex').slice(0, 8);
    const candidate = `${cleaned.slice(0, MAX_NAME - hash.length - 1)}_${hash}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** The tool set for `external`, its names mapped; the same tools (bytes) while the external list is unchanged. */
function buildToolSet(external: readonly ExternalToolDefinition[]): OpenAiToolSet {
  const all = [
    ...OWN_TOOL_DEFINITIONS,
    ...external.map((t) => ({ name: t.name, description: t.description, inputSchema: bareSchema(t.inputSchema) })),
  ];
  const toWire = new Map<string, string>();
  const fromWire = new Map<string, string>();
  // Vigil's own names all fit the rule and come first, so they are never renamed.
  for (const { name } of all) {
    const wire = wireNameFor(name, fromWire);
    toWire.set(name, wire);
    fromWire.set(wire, name);
  }
  const tools = all.map((t): ChatCompletionFunctionTool => ({
    type: 'function',
    function: { name: toWire.get(t.name)!, description: t.description, parameters: t.inputSchema },
  }));
  return { tools, wireName: (name) => toWire.get(name) ?? name, toolName: (wire) => fromWire.get(wire) ?? wire };
}

// `$schema` is dropped as for Vigil's own tools: a bare object schema is what function parameters are.
function bareSchema(schema: Readonly<Record<string, unknown>>): { type: 'object'; [key: string]: unknown } {
  const { $schema: _dropped, ...rest } = schema;
  return { ...rest, type: 'object' };
}

let lastExternal: readonly ExternalToolDefinition[] | undefined;
let lastSet: OpenAiToolSet | undefined;

/**
 * The tools of one request. Memoised on the external array's identity, so while the registry is unchanged every
 * think sends the very same bytes (the prefix OpenAI's automatic cache reads); a server coming up changes it once.
 */
export function openAiToolSet(external: readonly ExternalToolDefinition[]): OpenAiToolSet {
  if (external !== lastExternal || lastSet === undefined) {
    lastSet = buildToolSet(external);
    lastExternal = external;
  }
  return lastSet;
}
