/** MCP tool results: a text answer, or an error result (`isError: true`) whose text names the cause and what to do. */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describeError, isVigilError } from '../../errors.js';
import { RpcError } from '../rpc-error.js';
import { LinkUnavailableError } from './link-unavailable.js';

/** A successful tool result with one text block. */
export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

/** A failed tool result: the host shows it to the model, which can tell the user why (never a protocol error). */
export function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** The cause of a failed call in words a model can act on; `where` names the daemon's URL. */
export function failureResult(err: unknown, where: string): CallToolResult {
  // Already worded as the client commands word it, naming what to run: `vigil mcp` says what `vigil status` would.
  if (err instanceof LinkUnavailableError) return errorResult(`vigil mcp: ${err.message}`);
  if (isVigilError(err, 'CLIENT_DISCONNECTED')) {
    return errorResult(
      `Vigil's daemon is down or unreachable at ${where} (${describeError(err)}). Ask the user to start it with \`vigil run\`, or to check the --url/--data-dir given to \`vigil mcp\`.`,
    );
  }
  if (isVigilError(err, 'GATEWAY_UNAUTHORIZED')) {
    return errorResult(
      `Vigil's daemon at ${where} refused the token (HTTP 401). Ask the user to pass --token or the daemon's --data-dir to \`vigil mcp\`.`,
    );
  }
  if (isVigilError(err, 'CLIENT_TIMEOUT')) {
    return errorResult(
      `Vigil's daemon at ${where} did not answer in time (${describeError(err)}). It may be overloaded; try again shortly.`,
    );
  }
  if (err instanceof RpcError) {
    const code = err.vigilCode ?? String(err.code);
    if (err.code === -32003)
      return errorResult(`The token given to \`vigil mcp\` may not do this (${code}): ${err.message}`);
    return errorResult(`Vigil refused ${err.method} (${code}): ${err.message}`);
  }
  return errorResult(`Vigil failed: ${describeError(err)}`);
}
