/**
 * `vigil mcp`'s answer to a host's `initialize`, given before the MCP SDK loads. A host starts the server at every
 * session and waits for this answer, and loading the SDK (and zod with it) takes longer than everything else
 * together, about 200 ms. The request still reaches the SDK's server afterwards, which records the client as usual;
 * its own answer, the same (a test holds them equal), is dropped.
 */
import { PassThrough } from 'node:stream';
import {
  MCP_CHANNEL_SERVER_CAPABILITIES,
  MCP_CHANNEL_SERVER_INSTRUCTIONS,
  MCP_PROTOCOL_VERSIONS,
  MCP_SERVER_INFO,
} from './mcp-server-identity.js';

/** A JSON-RPC request id. */
type RequestId = string | number;

/** The start of a stdio session whose `initialize` may already be answered. */
export interface EarlyStart {
  /** Everything read from stdin, the `initialize` line included: the input of the SDK's stdio transport. */
  readonly input: PassThrough;
  /** True, once, for the SDK's answer to the `initialize` answered here: that answer must not be sent again. */
  readonly isAnswered: (message: unknown) => boolean;
  /** Settles when stdin ends or closes: the host is gone. */
  readonly closed: Promise<void>;
  /** Settles once the first line is read (and answered, when it is an `initialize`). */
  readonly firstLine: Promise<void>;
}

/** The `initialize` result `vigil mcp`'s server gives for a request asking for `protocolVersion`, as the SDK's does. */
export function initializeResult(protocolVersion: string): Record<string, unknown> {
  return {
    // As the SDK negotiates: the version asked for when it speaks it, else its newest.
    protocolVersion: MCP_PROTOCOL_VERSIONS.includes(protocolVersion) ? protocolVersion : MCP_PROTOCOL_VERSIONS[0],
    // `vigil mcp`'s own: the tools and Claude Code's channel (the server it builds is made with `channel: true`).
    capabilities: MCP_CHANNEL_SERVER_CAPABILITIES,
    serverInfo: MCP_SERVER_INFO,
    instructions: MCP_CHANNEL_SERVER_INSTRUCTIONS,
  };
}

/**
 * Reads `stdin` from now on, answering its first line on `stdout` at once when it is a well-formed `initialize`
 * request; anything else is left for the SDK's server to answer.
 */
export function answerInitializeEarly(stdin: NodeJS.ReadableStream, stdout: NodeJS.WritableStream): EarlyStart {
  const input = new PassThrough();
  let firstLine: Buffer[] | null = [];
  let answered: RequestId | undefined;
  let firstLineRead = (): void => {};
  const firstLineSeen = new Promise<void>((resolve) => (firstLineRead = resolve));
  stdin.on('data', (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (firstLine !== null) {
      const end = bytes.indexOf(0x0a);
      if (end === -1) firstLine.push(bytes);
      else {
        const line = Buffer.concat([...firstLine, bytes.subarray(0, end)]).toString('utf8');
        firstLine = null;
        const request = initializeRequestIn(line);
        if (request !== undefined) {
          answered = request.id;
          stdout.write(
            `${JSON.stringify({ result: initializeResult(request.protocolVersion), jsonrpc: '2.0', id: request.id })}\n`,
          );
        }
        firstLineRead();
      }
    }
    input.write(bytes);
  });
  const closed = new Promise<void>((resolve) => {
    stdin.once('end', resolve);
    stdin.once('close', resolve);
  });
  stdin.once('end', () => input.end());
  stdin.once('error', (err: Error) => input.destroy(err));
  return {
    input,
    closed,
    firstLine: firstLineSeen,
    isAnswered: (message) => {
      if (answered === undefined || !isRecord(message) || message['id'] !== answered || 'method' in message)
        return false;
      answered = undefined;
      return true;
    },
  };
}

/** The id and asked-for version of `line` when it is an `initialize` request with the fields the SDK requires. */
function initializeRequestIn(line: string): { id: RequestId; protocolVersion: string } | undefined {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isRecord(message) || message['jsonrpc'] !== '2.0' || message['method'] !== 'initialize') return undefined;
  const id = message['id'];
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isInteger(id))) return undefined;
  const params = message['params'];
  if (!isRecord(params) || typeof params['protocolVersion'] !== 'string' || !isRecord(params['capabilities'])) {
    return undefined;
  }
  const client = params['clientInfo'];
  if (!isRecord(client) || typeof client['name'] !== 'string' || typeof client['version'] !== 'string')
    return undefined;
  return { id, protocolVersion: params['protocolVersion'] };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
