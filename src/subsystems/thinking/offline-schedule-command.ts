/** The offline thinker's `/schedule add {json}`, `/schedule list` and `/schedule remove ID`: the model's schedule tools, typed as a message by an operate sender (offline-command-scope.ts). */
import { answerScheduleTool, type ModelSchedules } from './schedule-tools.js';
import type { PendingMessage, ThinkAction } from './thinker.schema.js';

const COMMAND = /^\/schedule(?:\s+(\S+))?\s*([\s\S]*)$/;

/** The tool call a `/schedule` message stands for, why it cannot be understood, or undefined when it is not one. */
export function parseScheduleCommand(
  text: string,
): { name: 'schedule_add' | 'schedule_list' | 'schedule_remove'; input: unknown } | { problem: string } | undefined {
  const match = COMMAND.exec(text.trim());
  if (match === null) return undefined;
  const [, sub = '', rest = ''] = match;
  if (sub === 'list') return { name: 'schedule_list', input: {} };
  if (sub === 'remove') return { name: 'schedule_remove', input: { id: rest.trim() } };
  if (sub === 'add') {
    try {
      return { name: 'schedule_add', input: JSON.parse(rest) as unknown };
    } catch (err) {
      return {
        problem: `The arguments of /schedule add are not JSON (${err instanceof Error ? err.message : String(err)}).`,
      };
    }
  }
  return { problem: 'Use /schedule add {json}, /schedule list or /schedule remove ID.' };
}

/** Replies to a `/schedule` message with what the tool answered (the new schedule, the list, or why not). */
export async function answerScheduleCommand(
  message: PendingMessage,
  command: NonNullable<ReturnType<typeof parseScheduleCommand>>,
  schedules: ModelSchedules | undefined,
): Promise<ThinkAction[]> {
  const text =
    'problem' in command ? command.problem : (await answerScheduleTool(command.name, command.input, schedules)).text;
  return [{ type: 'reply', turnId: message.turnId, text }];
}
