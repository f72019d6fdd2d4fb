/**
 * The client's core over a scripted socket: it needs nothing of a WebSocket but `ClientSocket`, so calls, errors,
 * feeds, reconnection and close behave the same whichever transport carries them (no network, simulated timers).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClientCore } from '../../src/client/client-core.js';
import type { ClientSocket, OpenSocket, SocketListener } from '../../src/client/client-socket.js';
import { RpcError } from '../../src/client/rpc-error.js';
import { isVigilError } from '../../src/errors.js';
import type { VigilEvent } from '../../src/protocol/events.schema.js';

/** A socket the test drives: it records what the client sends and delivers what the test says the server sent. */
class ScriptedSocket implements ClientSocket {
  readyState = 0;
  readonly sent: Array<Record<string, unknown>> = [];
  constructor(
    readonly url: string,
    readonly token: string | undefined,
    private readonly listener: SocketListener,
  ) {}
  send(text: string): void {
    this.sent.push(JSON.parse(text) as Record<string, unknown>);
  }
  close(): void {
    this.readyState = 2;
    // Like a real socket, the close is reported later, not inside close().
    queueMicrotask(() => this.lost());
  }
  accept(): void {
    this.readyState = 1;
    this.listener.open();
  }
  receive(frame: unknown): void {
    this.listener.message(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }
  lost(error?: Error): void {
    this.readyState = 3;
    if (error !== undefined) this.listener.error(error);
    this.listener.close();
  }
}

let sockets: ScriptedSocket[] = [];
const openScripted: OpenSocket = (url, token, listener) => {
  const socket = new ScriptedSocket(url, token, listener);
  sockets.push(socket);
  return socket;
};
const last = (): ScriptedSocket => sockets.at(-1)!;

afterEach(() => {
  sockets = [];
  vi.useRealTimers();
});

const beat = (seq: number): VigilEvent => ({
  seq,
  type: 'heartbeat.beat',
  at: '2025-01-01T00:00:00.000Z',
  beat: seq,
  beatCount: seq,
  intervalMs: 1000,
  phaseMs: { sense: 0, think: 0, integrate: 0 },
});

async function opened(options: Partial<ConstructorParameters<typeof ClientCore>[0]> = {}): Promise<ClientCore> {
  const client = new ClientCore({ url: 'http://vigil.test:7420', token: 't0k', ...options }, openScripted);
  last().accept();
  await client.ready();
  return client;
}

describe('the client core over any ClientSocket', () => {
  it('opens the /rpc URL with the token for the transport to present, and answers each call from its text frame', async () => {
    const client = await opened();
    expect([last().url, last().token]).toEqual(['ws://vigil.test:7420/rpc', 't0k']);
    const goals = client.goals.list();
    expect(last().sent).toEqual([{ jsonrpc: '2.0', method: 'goals.list', params: {}, id: 1 }]);
    last().receive('not JSON {');
    last().receive({ jsonrpc: '2.0', id: 1, result: [] });
    expect(await goals).toEqual([]);
  });

  it('turns an error answer into RpcError with its vigilCode, and a result off its schema into INTERNAL', async () => {
    const client = await opened();
    const complete = client.goals.complete({ id: 'g-9' }).catch((err: unknown) => err);
    last().receive({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32004, message: 'No goal g-9.', data: { vigilCode: 'GOAL_NOT_FOUND' } },
    });
    const err = await complete;
    expect(err).toBeInstanceOf(RpcError);
    expect(err).toMatchObject({ code: -32004, vigilCode: 'GOAL_NOT_FOUND', method: 'goals.complete' });

    const status = client.budget.status().catch((e: unknown) => e);
    last().receive({ jsonrpc: '2.0', id: 2, result: { nonsense: true } });
    const invalid = await status;
    expect(isVigilError(invalid, 'INTERNAL')).toBe(true);
  });

  it('opens a new socket after a lost one and resubscribes each feed after the last seq it delivered', async () => {
    vi.useFakeTimers();
    const client = await opened({ reconnect: { initialDelayMs: 10, maxDelayMs: 10 } });
    const seen: number[] = [];
    client.subscribe(['heartbeat.beat']).subscribe((event) => seen.push(event.seq));
    expect(last().sent[0]).toMatchObject({ method: 'events.subscribe', params: { types: ['heartbeat.beat'] } });
    last().receive({ jsonrpc: '2.0', id: 1, result: { subscription: 's-1', after: 4 } });
    // A batch in one frame: both events are delivered, in order.
    last().receive(
      [5, 6].map((seq) => ({
        jsonrpc: '2.0',
        method: 'events.event',
        params: { subscription: 's-1', event: beat(seq) },
      })),
    );
    const pending = client.heartbeat.status().catch((err: unknown) => err);

    last().lost(new Error('connection reset'));
    expect(client.state$.value).toBe('reconnecting');
    expect(isVigilError(await pending, 'CLIENT_DISCONNECTED')).toBe(true);
    expect(sockets).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(20);
    expect(sockets).toHaveLength(2);
    last().accept();
    expect(client.state$.value).toBe('open');
    expect(last().sent[0]).toMatchObject({
      method: 'events.subscribe',
      params: { types: ['heartbeat.beat'], after: 6 },
    });
    last().receive({ jsonrpc: '2.0', id: last().sent[0]!['id'], result: { subscription: 's-2', after: 6 } });
    last().receive({ jsonrpc: '2.0', method: 'events.event', params: { subscription: 's-2', event: beat(7) } });
    expect(seen).toEqual([5, 6, 7]);
  });

  it('does not retry a socket that never opened: the first failure rejects ready()', async () => {
    vi.useFakeTimers();
    const client = new ClientCore({ url: 'ws://vigil.test:1/rpc' }, openScripted);
    const ready = client.ready().catch((err: unknown) => err);
    last().lost(new Error('connect ECONNREFUSED'));
    const err = await ready;
    expect(isVigilError(err, 'CLIENT_DISCONNECTED')).toBe(true);
    expect((err as Error).message).toContain('ECONNREFUSED');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sockets).toHaveLength(1);
    expect(client.state$.value).toBe('closed');
  });

  it('close() resolves once the socket has reported its close; feeds complete and later calls fail', async () => {
    const client = await opened();
    let completed = false;
    client.subscribe().subscribe({ complete: () => (completed = true) });
    await client.close();
    expect(last().readyState).toBe(3);
    expect(completed).toBe(true);
    expect(client.state$.value).toBe('closed');
    const err = await client.heartbeat.status().catch((e: unknown) => e);
    expect(isVigilError(err, 'CLIENT_DISCONNECTED')).toBe(true);
  });
});
