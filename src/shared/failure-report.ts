/**
 * What the command line prints for a failure: one line, `vigil: <message>`, for a person; the stack (and each cause's)
 * only when `VIGIL_LOG_LEVEL` is `debug` or `trace`, for whoever debugs Vigil. An expected failure's message already
 * says what to do; a stack would bury it.
 */
import { describeError } from '../errors.js';

/** The log levels at which a failure is printed with its stack. */
const STACK_LEVELS: ReadonlySet<string> = new Set(['debug', 'trace']);

/** Whether `VIGIL_LOG_LEVEL` in `env` asks for stacks (`debug` or `trace`). */
export function wantsStacks(env: Record<string, string | undefined>): boolean {
  return STACK_LEVELS.has((env['VIGIL_LOG_LEVEL'] ?? '').trim().toLowerCase());
}

/** The stack of `err` and of each `cause` below it (at most a few: a cycle must not loop). */
function stacks(err: unknown): string {
  const parts: string[] = [];
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth++) {
    const stack = current instanceof Error ? current.stack : undefined;
    parts.push(`${depth === 0 ? '' : 'caused by: '}${stack ?? describeError(current)}`);
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join('\n');
}

/** `vigil: <message>\n`, followed by the stacks when `VIGIL_LOG_LEVEL` is debug or trace. */
export function failureReport(err: unknown, env: Record<string, string | undefined>): string {
  const line = `vigil: ${describeError(err)}\n`;
  return wantsStacks(env) ? `${line}${stacks(err)}\n` : line;
}
