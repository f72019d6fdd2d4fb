/** The gate `vigil mcp` puts before its server: `initialize` at once, every later request once the scope is known. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { GatedTransport } from '../../src/client/mcp/gated-transport.js';

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (err: Error) => void } {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

async function gatedServer(ready: Promise<void>): Promise<{ client: Client; server: McpServer }> {
  const server = new McpServer({ name: 'gated', version: '1' });
  const first = server.registerTool('first', { description: 'one' }, () => ({ content: [] }));
  server.registerTool('second', { description: 'two' }, () => ({ content: [] }));
  // Narrowed when the gate opens, as `vigil mcp` narrows its tools to the token's scope.
  ready.then(
    () => first.remove(),
    () => undefined,
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(new GatedTransport(serverSide, ready));
  const client = new Client({ name: 'vitest', version: '1' });
  await client.connect(clientSide);
  return { client, server };
}

describe('GatedTransport', () => {
  it('answers initialize before the gate opens, and a request made meanwhile after, in order, with the narrowed list', async () => {
    const gate = deferred();
    // `connect` resolves only after initialize was answered: the gate has not opened yet.
    const { client, server } = await gatedServer(gate.promise);
    expect(client.getServerVersion()?.name).toBe('gated');
    let listed: string[] | undefined;
    const listing = client.listTools().then((r) => (listed = r.tools.map((t) => t.name)));
    const pinging = client.ping();
    await new Promise((resolve) => setImmediate(resolve));
    expect(listed).toBeUndefined();
    gate.resolve();
    await Promise.all([listing, pinging]);
    expect(listed).toEqual(['second']);
    // Once open, messages pass at once.
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['second']);
    await client.close();
    await server.close();
  });

  it('opens when the wait fails too', async () => {
    const gate = deferred();
    const { client, server } = await gatedServer(gate.promise);
    const listing = client.listTools();
    gate.reject(new Error('no daemon'));
    expect((await listing).tools.map((t) => t.name)).toEqual(['first', 'second']);
    await client.close();
    await server.close();
  });
});
