/** `vigil tasks list [--json]` and `vigil tasks cancel ID`: the agent's sub-agent tasks. */
import type { TaskView } from '../../protocol/tasks.schema.js';
import { UsageError, type CliIo } from './cli-io.js';
import { parseClientArgs } from './client-args.js';
import { printJson, runClientCommand } from './run-client-command.js';

/** The usage line. */
export const TASKS_USAGE =
  'usage: vigil tasks list [--json] | vigil tasks cancel ID [--json]   [--url URL] [--token TOKEN] [--data-dir D]';

/** Runs `vigil tasks …`. */
export function tasksCommand(argv: string[], io: CliIo): Promise<number> {
  return runClientCommand(
    io,
    TASKS_USAGE,
    () => {
      const args = parseClientArgs(argv, { json: { type: 'boolean' } });
      const [sub, ...rest] = args.positionals;
      if (sub === 'list' && rest.length === 0) return args;
      if (sub === 'cancel' && rest.length === 1) return args;
      if (sub === 'cancel')
        throw new UsageError(
          rest.length === 0 ? 'tasks cancel needs a task id.' : `unexpected arguments: ${rest.slice(1).join(' ')}`,
        );
      if (sub === 'list') throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
      throw new UsageError(sub === undefined ? 'tasks needs a subcommand.' : `unknown tasks subcommand "${sub}".`);
    },
    async (client, args) => {
      const json = args.flags['json'] === true;
      const [sub, id] = args.positionals;
      if (sub === 'cancel') {
        const task = await client.tasks.cancel({ id: id! });
        if (json) printJson(io, task);
        else io.stdout(`${formatTask(task)}\n`);
        return 0;
      }
      const tasks = await client.tasks.list();
      if (json) printJson(io, tasks);
      else for (const task of tasks) io.stdout(`${formatTask(task)}\n`);
      return 0;
    },
  );
}

/** One task as one line: `ID  STATUS  $COST/$CAP  TOOLS  PROMPT` (the prompt's first line, escaped of controls). */
export function formatTask(task: TaskView): string {
  const money = `$${task.costUsd.toFixed(4)}/$${task.maxCostUsd.toFixed(2)}`;
  const tools = task.tools.length === 0 ? '-' : task.tools.join(',');
  // The prompt is the model's text: no newline or escape sequence of it reaches the operator's terminal.
  const prompt = (task.prompt.split('\n')[0] ?? '').replace(/\p{Cc}/gu, ' ');
  return [task.id, task.status, money, tools, prompt].join('\t');
}
