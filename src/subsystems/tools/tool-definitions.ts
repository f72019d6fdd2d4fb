/** The tool list the model is offered: every registered tool, kept as the same array while its bytes stay the same, so the cached prompt prefix holds. */
import type { ExternalToolDefinition } from '../thinking/think-tools.js';
import type { RegisteredTool } from './tool-registry.js';

/** The definitions of the registry's tools, rebuilt only when the registry changes and replaced only when they do. */
export class ToolDefinitions {
  private listed: readonly RegisteredTool[] | undefined;
  private defs: readonly ExternalToolDefinition[] = [];

  constructor(private readonly registry: () => readonly RegisteredTool[]) {}

  /** The tools to offer, in the registry's stable order. */
  current(): readonly ExternalToolDefinition[] {
    const registry = this.registry();
    // The registry array is replaced only when a server's listing or state changes: rebuild then, not every think.
    if (registry !== this.listed) {
      const next = registry.map((tool) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
        ...(tool.requireApproval ? { requireApproval: true as const } : {}),
      }));
      // A server going down flips `available` only: same bytes, so the same array is kept (and the prompt cache).
      if (JSON.stringify(next) !== JSON.stringify(this.defs)) this.defs = next;
      this.listed = registry;
    }
    return this.defs;
  }
}
