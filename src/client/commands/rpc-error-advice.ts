/**
 * A server's JSON-RPC error as a person reads it: one line with the server's message and what to do about it. Pure:
 * the error and the command that met it in, the line out (src/client/commands/run-client-command.ts prints it).
 */
import type { RpcError } from '../rpc-error.js';

// Where the ids a -32004 says are unknown can be seen, by Vigil's code.
const WHERE_TO_LOOK: Readonly<Record<string, string>> = {
  CHECKPOINT_NOT_FOUND: 'vigil checkpoints list',
  WEBHOOK_NOT_FOUND: 'vigil webhooks list',
  SCHEDULE_NOT_FOUND: 'vigil schedules list',
  TASK_NOT_FOUND: 'vigil tasks list',
  THINK_NOT_FOUND: 'vigil thinks list',
  TOKEN_NOT_FOUND: 'vigil tokens list',
  CHANNEL_NOT_FOUND: 'vigil channels list',
  CHANNEL_SENDER_NOT_FOUND: 'vigil channels senders NAME',
  TOOL_CALL_NOT_FOUND: 'vigil tools pending',
  MCP_SERVER_NOT_FOUND: 'vigil tools list',
  TOOL_NOT_FOUND: 'vigil tools list',
  MEMORY_NOT_FOUND: 'vigil memory search WORDS',
  GOAL_NOT_FOUND: 'vigil rpc goals.list',
};

/** The names a -32601 carries in `data.suggestions` (the server's nearest methods). */
export function methodSuggestions(err: RpcError): string[] {
  if (err.code !== -32601 || typeof err.data !== 'object' || err.data === null) return [];
  const suggestions = (err.data as { suggestions?: unknown }).suggestions;
  return Array.isArray(suggestions) ? suggestions.filter((s): s is string => typeof s === 'string') : [];
}

/**
 * The server's message as one sentence (its own end, or a full stop). Its text may quote what a client sent (an id):
 * no newline or escape sequence of it reaches the terminal.
 */
function sentence(message: string): string {
  const line = message.replace(/[\p{Cc}\s]+/gu, ' ').trim();
  return /[.!?)]$/.test(line) ? line : `${line}.`;
}

/** What to do, by the error's code; empty when the message says it already. */
function advice(err: RpcError, command: string): string {
  switch (err.code) {
    case -32601:
      // A friendly command only calls methods of its own version: the daemon is another one.
      return command === 'rpc'
        ? ''
        : `This daemon does not know ${err.method}: is it older than this vigil? Restart it with this version.`;
    case -32602:
      return `See \`vigil ${command} --help\`.`;
    case -32003: {
      const scope = (err.data as { scope?: unknown } | undefined)?.scope;
      return typeof scope === 'string'
        ? `Use a token of scope ${scope} (--token), or the daemon's own token file (--data-dir).`
        : `Use a token that may call it (--token), or the daemon's own token file (--data-dir).`;
    }
    case -32004: {
      const where = err.vigilCode === undefined ? undefined : WHERE_TO_LOOK[err.vigilCode];
      return where === undefined ? '' : `\`${where}\` shows what there is.`;
    }
    case -32009:
      return err.vigilCode?.endsWith('_LIMIT') === true
        ? 'Remove one first.'
        : 'Try again once what is running has finished.';
    case -32029:
      return 'Wait a moment and try again.';
    case -32603:
      return 'The daemon failed inside: its log has the details (and a stack with VIGIL_LOG_LEVEL=debug).';
    case -32700:
    case -32600:
      return 'This client and the daemon do not understand each other: are they the same version?';
    default:
      return '';
  }
}

/**
 * The human line for `err`, met in `vigil COMMAND` (without `vigil: ` and the newline). A -32601 names the method and
 * the names near it, and points to `vigil rpc rpc.discover`, which lists them all.
 */
export function describeRpcError(err: RpcError, command: string): string {
  if (err.code === -32601) {
    const near = methodSuggestions(err);
    const parts = [
      `no method "${err.method}"${near.length === 0 ? '.' : `; did you mean ${near.map((s) => `"${s}"`).join(' or ')}?`}`,
      advice(err, command),
      '`vigil rpc rpc.discover` lists every method.',
    ];
    return parts.filter((part) => part !== '').join(' ');
  }
  if (err.code === -32003) {
    const scope = (err.data as { scope?: unknown } | undefined)?.scope;
    return `this token may not call ${err.method}${typeof scope === 'string' ? `: it needs a token of scope ${scope}` : ''}. ${advice(err, command)}`;
  }
  const more = advice(err, command);
  return `${sentence(err.message)}${more === '' ? '' : ` ${more}`}`;
}
