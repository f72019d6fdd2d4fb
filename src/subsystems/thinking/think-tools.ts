/** What a thinker sees of the tools beyond its own: the external (MCP) tools it may offer the model, and how to call them. */

/** One external tool as the model is shown it. */
export interface ExternalToolDefinition {
  /** `mcp__SERVER__TOOL`. */
  readonly name: string;
  readonly description: string;
  /** The tool's JSON Schema, as its server lists it. */
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /** A call waits for an operator's decision (never sent to the model API: only the three fields above are). */
  readonly requireApproval?: true;
}

/** The tools a sub-agent task may be given: those that need no approval (a task cannot wait for an operator). */
export function taskOfferableTools(definitions: readonly ExternalToolDefinition[]): readonly ExternalToolDefinition[] {
  return definitions.filter((definition) => definition.requireApproval !== true);
}

/** One piece of a tool's result: text, or an image (base64) the model may be shown as such. */
export type ExternalToolContent = { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string };

/** A call's outcome as the model is given it; `isError` for a tool error or a call that could not be made. */
export interface ExternalToolResult {
  readonly isError: boolean;
  readonly content: readonly ExternalToolContent[];
  /** The call waits for an operator's approval (its callId): it has not run, and its turn waits for the decision. */
  readonly pendingApproval?: string;
  /** The durable call id (`tool.called`), when the call was made. */
  readonly callId?: string;
  /** What the server sent, in UTF-8 bytes of its JSON (`tool.completed`), when the call was made. */
  readonly resultBytes?: number;
}

/** A call a crash left unknown, for the next think of its turn. */
export interface ToolCallNotice {
  readonly callId: string;
  readonly turnId: string | undefined;
  readonly name: string;
  /** The line the model (or the offline reply) is given. */
  readonly line: string;
}

/** The external tools of a runtime, given to its thinker (`Thinker.useTools`). */
export interface ThinkTools {
  /** The tools to offer, in a stable order; the same array (same identity) until the registry changes. */
  definitions(): readonly ExternalToolDefinition[];
  /** True when `name` is an external tool's name (whether or not it is listed now). */
  owns(name: string): boolean;
  /** Calls a tool durably (intent before, result after); never rejects: a failure is an `isError` result. `taskId`: a sub-agent task's call. */
  call(
    request: { name: string; args: unknown; turnId: string; taskId?: string },
    signal: AbortSignal,
  ): Promise<ExternalToolResult>;
  /** Calls of these turns whose outcome a crash left unknown and that the model was not yet told about. */
  notices(turnIds: readonly string[]): readonly ToolCallNotice[];
  /** The think that showed these notices ended normally: they are not shown again. */
  acknowledge(callIds: readonly string[]): void;
}
