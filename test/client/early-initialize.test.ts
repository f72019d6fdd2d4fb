/** `vigil mcp` answers `initialize` before loading the MCP SDK: the same answer the SDK's server gives, given once. */
import { PassThrough } from 'node:stream';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { answerInitializeEarly, initializeResult } from '../../src/client/mcp/early-initialize.js';
import { MCP_PROTOCOL_VERSIONS } from '../../src/client/mcp/mcp-server-identity.js';
import { SessionTurns } from '../../src/client/mcp/session-turns.js';
import { createVigilMcpServer } from '../../src/client/mcp/vigil-mcp-server.js';

function initialize(protocolVersion: string, id: string | number = 1): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'host', version: '1' } },
  };
}

/** What the SDK's server (Vigil's, as `vigil mcp` builds it: with its channel) answers to `request`. */
async function sdkAnswer(request: JSONRPCMessage): Promise<unknown> {
  const server = createVigilMcpServer({
    openLink: () => Promise.reject(new Error('unused')),
    where: 'test',
    channel: { sessionTurns: new SessionTurns() },
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const answered = new Promise<unknown>((resolve) => (clientSide.onmessage = resolve));
  await server.connect(serverSide);
  await clientSide.start();
  await clientSide.send(request);
  const answer = await answered;
  await server.close();
  return answer;
}

/** Feeds `chunks` to the early reader; resolves with what it wrote to stdout and passed on as input. */
async function early(chunks: Array<string | Buffer>) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const start = answerInitializeEarly(stdin, stdout);
  const written: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => written.push(chunk));
  const input: Buffer[] = [];
  start.input.on('data', (chunk: Buffer) => input.push(chunk));
  for (const chunk of chunks) stdin.write(chunk);
  stdin.end();
  await start.closed;
  await new Promise((resolve) => setImmediate(resolve));
  const out = Buffer.concat(written).toString('utf8');
  return {
    start,
    answers:
      out === ''
        ? []
        : out
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line) as unknown),
    input: Buffer.concat(input).toString('utf8'),
  };
}

describe('the early initialize answer', () => {
  it('speaks the protocol revisions the MCP SDK speaks, newest first', () => {
    expect(MCP_PROTOCOL_VERSIONS).toEqual(SUPPORTED_PROTOCOL_VERSIONS);
    expect(MCP_PROTOCOL_VERSIONS[0]).toBe(LATEST_PROTOCOL_VERSION);
  });

  it('is what the SDK server answers, for every revision it speaks and for one it does not', async () => {
    for (const version of [...SUPPORTED_PROTOCOL_VERSIONS, '1999-01-01']) {
      expect(await sdkAnswer(initialize(version, `id-${version}`))).toEqual({
        jsonrpc: '2.0',
        id: `id-${version}`,
        result: initializeResult(version),
      });
    }
  });

  it('answers a first line that is an initialize, even split mid-character, and passes every byte on', async () => {
    const line = JSON.stringify({
      ...initialize('2025-06-18', 7),
      params: {
        ...(initialize('2025-06-18') as { params: object }).params,
        clientInfo: { name: 'hôte', version: '1' },
      },
    });
    const bytes = Buffer.from(`${line}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n`);
    const split = bytes.indexOf(Buffer.from('ô')) + 1;
    const { start, answers, input } = await early([bytes.subarray(0, split), bytes.subarray(split)]);
    expect(answers).toEqual([{ jsonrpc: '2.0', id: 7, result: initializeResult('2025-06-18') }]);
    expect(input).toBe(bytes.toString('utf8'));
    // The SDK's own answer to that request is dropped, once; nothing else is.
    expect(start.isAnswered({ jsonrpc: '2.0', id: 7, method: 'ping' })).toBe(false);
    expect(start.isAnswered({ jsonrpc: '2.0', id: 8, result: {} })).toBe(false);
    expect(start.isAnswered({ jsonrpc: '2.0', id: 7, result: {} })).toBe(true);
    expect(start.isAnswered({ jsonrpc: '2.0', id: 7, result: {} })).toBe(false);
  });

  it('leaves any other first line to the SDK server', async () => {
    const firstLines = [
      '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      'not json',
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}',
      '{"jsonrpc":"2.0","id":1.5,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"h","version":"1"}}}',
    ];
    for (const line of firstLines) {
      const { start, answers, input } = await early([`${line}\n`]);
      expect(answers, line).toEqual([]);
      expect(input).toBe(`${line}\n`);
      expect(start.isAnswered({ jsonrpc: '2.0', id: 1, result: {} })).toBe(false);
    }
  });
});
