/** The VigilErrors of an MCP tool call that did not get a result (or a sign-in to a server that is down), and how a 401 to a sent call is recognised. */
import { describeError, VigilError } from '../../errors.js';
import type { ServerDown } from './mcp-hub-options.js';

/** The JSON-RPC code of a request the SDK gave up waiting for (`ErrorCode.RequestTimeout`; a test pins it to the SDK's). */
export const MCP_REQUEST_TIMEOUT = -32001;

/** True when `err` (or its cause) is the 401 a sent tool call met (`ToolCallUnauthorizedError`, matched by name: its module loads lazily). */
export function isUnauthorizedCall(err: unknown): boolean {
  for (let at: unknown = err, depth = 0; at instanceof Error && depth < 4; at = at.cause, depth += 1)
    if (at.name === 'ToolCallUnauthorizedError') return true;
  return false;
}

/** The VigilError for a call that did not get a result. */
export function callError(name: string, timeoutMs: number, signal: AbortSignal | undefined, err: unknown): VigilError {
  if (signal?.aborted === true) {
    return new VigilError('TOOL_ABORTED', `The call to ${name} was aborted: ${describeError(signal.reason)}.`, {
      cause: err,
      data: { name },
    });
  }
  if (typeof err === 'object' && err !== null && (err as { code?: unknown }).code === MCP_REQUEST_TIMEOUT) {
    return new VigilError('TOOL_TIMEOUT', `The call to ${name} got no answer within ${timeoutMs} ms.`, {
      cause: err,
      data: { name, timeoutMs },
    });
  }
  return new VigilError('TOOL_CALL_FAILED', `The call to ${name} failed: ${describeError(err)}.`, {
    cause: err,
    data: { name },
  });
}

/** The VigilError for a sign-in to a server that cannot be reached now: why (the down reason), and when it is tried again. */
export function unreachableError(server: string, down: Omit<ServerDown, 'server'>): VigilError {
  const nextRetryAt = new Date(down.nextRetryAt).toISOString();
  return new VigilError(
    'TOOL_UNAVAILABLE',
    // Once it answers, a server that wants a sign-in asks for one by itself (needs_auth in tools.list).
    `MCP server ${server} cannot be reached: ${down.error}; it is tried again at ${nextRetryAt}.`,
    { data: { server, state: 'down', error: down.error, nextRetryAt } },
  );
}
