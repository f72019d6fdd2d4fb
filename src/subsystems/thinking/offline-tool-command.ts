/** The offline thinker's `/tool NAME {json}` command: calls an MCP tool through the runtime's durable path and replies with its result (for an operate sender only: offline-command-scope.ts). */
import { excerpt } from './offline-text.js';
import type { ExternalToolResult, ThinkTools } from './think-tools.js';
import type { PendingMessage, ThinkAction } from './thinker.schema.js';

const COMMAND = /^\/tool\s+(\S+)\s*([\s\S]*)$/;

/** The parsed command: the tool's `mcp__` name and its arguments, or why it cannot be understood. */
export type ToolCommand = { name: string; args: unknown } | { problem: string };

/** The command in `text`, or undefined when the message is not a `/tool` command. */
export function parseToolCommand(text: string): ToolCommand | undefined {
  const match = COMMAND.exec(text.trim());
  if (match === null) return undefined;
  const [, rawName = '', rawArgs = ''] = match;
  // `/tool fixture__echo …` is short for `/tool mcp__fixture__echo …`.
  const name = rawName.startsWith('mcp__') ? rawName : `mcp__${rawName}`;
  if (rawArgs.trim() === '') return { name, args: {} };
  try {
    return { name, args: JSON.parse(rawArgs) as unknown };
  } catch (err) {
    return {
      problem: `The arguments of /tool ${rawName} are not JSON (${err instanceof Error ? err.message : String(err)}).`,
    };
  }
}

/**
 * Answers a `/tool` message (not at all while its call waits for an operator's approval): a call a crash left unknown for this turn is reported, never repeated (the message
 * is thought about again after the restart, and running its call again is exactly what must not happen).
 */
export async function answerToolCommand(
  message: PendingMessage,
  command: ToolCommand,
  tools: ThinkTools | undefined,
  signal: AbortSignal,
): Promise<ThinkAction[]> {
  const reply = (text: string): ThinkAction[] => [{ type: 'reply', turnId: message.turnId, text }];
  const unknown = tools?.notices([message.turnId]).filter((n) => n.turnId === message.turnId) ?? [];
  if (unknown.length > 0) {
    tools!.acknowledge(unknown.map((n) => n.callId));
    return reply(unknown.map((n) => n.line).join('\n'));
  }
  if ('problem' in command) return reply(command.problem);
  if (tools === undefined)
    return reply(`No MCP tools are configured, so ${command.name} cannot be called (see VIGIL_MCP_CONFIG).`);
  const result = await tools.call({ name: command.name, args: command.args, turnId: message.turnId }, signal);
  // Waiting for an operator: no answer yet; the turn is thought about again with the decision (the notice above).
  if (result.pendingApproval !== undefined) return [];
  const text = resultText(result);
  const answer = reply(`${command.name} ${result.isError ? 'failed' : 'returned'}:\n${text}`);
  if (result.isError) return answer;
  // What a tool told the agent is kept in long-term memory as the tool's, as a model would keep a finding it needs later.
  const finding = `${command.name} returned: ${excerpt(text, KEPT_RESULT_CHARS)}`;
  return [...answer, { type: 'remember', content: finding, salience: 0.6, keep: true, source: 'tool' }];
}

/** How much of a tool's result the offline thinker keeps: enough to find it again by its words, not the whole payload. */
const KEPT_RESULT_CHARS = 200;

function resultText(result: ExternalToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : `[image ${part.mimeType}]`)).join('\n');
}
