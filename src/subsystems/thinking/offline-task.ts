/**
 * The offline thinker's tasks that act, deterministic so they are testable without an API key. A message
 * `/task [tools=A,B] [deadline=SECONDS] [maxCost=USD]` followed by lines of prompt spawns a task with those tools;
 * the task runs each `/tool NAME {json}` line of its prompt through the durable caller and reports the results.
 */
import { parseToolCommand } from './offline-tool-command.js';
import { taskOfferableTools, type ExternalToolResult, type ThinkTools } from './think-tools.js';
import type { PendingMessage, SwarmTaskInput, ThinkAction } from './thinker.schema.js';

const TASK_COMMAND = /^\/task(?:[ \t]+([^\n]*))?(?:\n([\s\S]*))?$/;

/** The `spawn_task` a `/task` message asks for, or a reply saying why it cannot; undefined for any other message. */
export function answerTaskCommand(message: PendingMessage, tools: ThinkTools | undefined): ThinkAction[] | undefined {
  const match = TASK_COMMAND.exec(message.text.trim());
  if (match === null) return undefined;
  const reply = (text: string): ThinkAction[] => [{ type: 'reply', turnId: message.turnId, text }];
  const [, options = '', body = ''] = match;
  const prompt = body.trim();
  if (prompt === '') return reply('A /task needs its prompt on the lines after the command.');
  const action: Extract<ThinkAction, { type: 'spawn_task' }> = { type: 'spawn_task', prompt };
  for (const option of options.split(/\s+/).filter((o) => o !== '')) {
    const [key = '', value = ''] = option.split('=', 2);
    if (key === 'tools') {
      const names = value
        .split(',')
        .filter((n) => n !== '')
        .map((n) => (n.startsWith('mcp__') ? n : `mcp__${n}`));
      // Tasks get what the model could give them: the listed tools, none needing approval.
      const offered = taskOfferableTools(tools?.definitions() ?? []).map((t) => t.name);
      const unknown = names.filter((n) => !offered.includes(n));
      if (unknown.length > 0)
        return reply(
          `Tools ${unknown.join(', ')} cannot be given to a task; use some of: ${offered.join(', ') || '(none)'}.`,
        );
      if (names.length > 0) action.tools = [...new Set(names)].sort();
    } else if (key === 'deadline' && /^\d+$/.test(value) && Number(value) >= 1) {
      action.deadlineMs = Number(value) * 1000;
    } else if (key === 'maxCost' && Number(value) > 0) {
      action.maxCostMicroUsd = Math.max(1, Math.round(Number(value) * 1_000_000));
    } else {
      return reply(`Unknown /task option ${JSON.stringify(option)}: use tools=A,B deadline=SECONDS maxCost=USD.`);
    }
  }
  return [action];
}

/** Runs the `/tool` lines of a task's prompt (only its own tools), in order; one report line per call. Empty without any. */
export async function runTaskToolLines(
  input: SwarmTaskInput,
  tools: ThinkTools | undefined,
  signal: AbortSignal,
): Promise<string[]> {
  const allowed = new Set(input.tools ?? []);
  const lines: string[] = [];
  for (const line of input.prompt.split('\n')) {
    const command = parseToolCommand(line);
    if (command === undefined) continue;
    if ('problem' in command) {
      lines.push(command.problem);
      continue;
    }
    if (!allowed.has(command.name) || tools === undefined) {
      lines.push(`${command.name} is not one of this task's tools: it was not called.`);
      continue;
    }
    const result = await tools.call(
      { name: command.name, args: command.args, turnId: input.turnId ?? input.taskId, taskId: input.taskId },
      signal,
    );
    lines.push(`${command.name} ${result.isError ? 'failed' : 'returned'}: ${resultText(result)}`);
  }
  return lines;
}

function resultText(result: ExternalToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : `[image ${part.mimeType}]`)).join('\n');
}
