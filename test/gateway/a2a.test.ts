/** A2A on a real gateway (`/.well-known/agent-card.json`, `/a2a`), driven by `@a2a-js/sdk`'s own client. */
import { TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { isLegacyAgentCard, LegacyJsonRpcTransport, parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { afterEach, describe, expect, it } from 'vitest';

import { OfflineThinker } from '../../src/subsystems/thinking/offline-thinker.js';
import { a2aClient, resultText, send, userMessage } from './a2a-client.fixture.js';
import { startGatewayHarness, TEST_TOKEN, type GatewayHarness } from './gateway.fixture.js';

const harnesses: GatewayHarness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});

/** The offline thinker, holding every think until `open()`: a turn stays unanswered as long as the test needs. */
class HeldThinker extends OfflineThinker {
  private release!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.release = resolve));
  open(): void {
    this.release();
  }
  override async think(...args: Parameters<OfflineThinker['think']>): ReturnType<OfflineThinker['think']> {
    await this.gate;
    return super.think(...args);
  }
}

async function gateway(thinker?: OfflineThinker): Promise<GatewayHarness> {
  const h = await startGatewayHarness(thinker === undefined ? {} : { runtime: { thinker } });
  harnesses.push(h);
  return h;
}

const getTask = (client: Client, id: string) => client.getTask({ tenant: '', id, historyLength: undefined });

describe('A2A on the gateway (the @a2a-js/sdk client)', () => {
  it('serves the Agent Card without a token: the identity, the /a2a endpoint, the bearer scheme', async () => {
    const h = await gateway();
    // As a 1.0 client asks for it (the SDK's resolver sends A2A-Version: 1.0); without the header, 0.3's (below).
    const res = await fetch(`${h.gateway.url}/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0' } });
    expect(res.status).toBe(200);
    const card = (await res.json()) as Record<string, unknown>;
    expect(card).toMatchObject({
      name: 'Vigil',
      supportedInterfaces: [{ url: `${h.gateway.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      securitySchemes: { vigilToken: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
      skills: [{ id: 'converse' }],
    });
    expect(card.description).toMatch(/long-lived autonomous agent/);
    // The endpoint itself needs a token.
    const bare = await fetch(`${h.gateway.url}/a2a`, { method: 'POST', body: '{}' });
    expect(bare.status).toBe(401);
  });

  it('makes a message one turn and completes its task with the reply; tasks/get gives the same', async () => {
    const h = await gateway();
    const client = await a2aClient(h.gateway.url, TEST_TOKEN);
    const task = await h.until(send(client, 'hello over a2a'));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(resultText(task)).toMatch(/Hello a2a:daemon/);
    const read = await getTask(client, task.id);
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(resultText(read)).toBe(resultText(task));
    // One turn, from a2a:<token name>, with exactly one ending.
    const rpc = await h.connect();
    const entries = (await rpc.request('conversation.list', { limit: 2 })).result as Array<{
      role: string;
      from?: string;
      turnId: string;
      text: string;
    }>;
    expect(entries[0]).toMatchObject({ role: 'user', from: 'a2a:daemon', text: 'hello over a2a' });
    expect(entries[1]).toMatchObject({ role: 'agent', turnId: entries[0]!.turnId, text: resultText(task) });
    expect(read.metadata).toMatchObject({ vigilTurnId: entries[0]!.turnId });
  });

  it('answers at once when asked, then completes; a working task is not cancelable, nor an ended one', async () => {
    const thinker = new HeldThinker();
    const h = await gateway(thinker);
    const client = await a2aClient(h.gateway.url, TEST_TOKEN);
    const task = await send(client, 'hello, take your time', true);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    await expect(client.cancelTask({ tenant: '', id: task.id, metadata: undefined })).rejects.toThrow(
      /cannot be cancelled/,
    );
    let read = await getTask(client, task.id);
    expect(read.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    thinker.open();
    await h.until(
      (async () => {
        while ((read = await getTask(client, task.id)).status?.state === TaskState.TASK_STATE_WORKING)
          await new Promise((resolve) => setTimeout(resolve, 5));
      })(),
    );
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(resultText(read)).toMatch(/Hello a2a:daemon/);
    await expect(client.cancelTask({ tenant: '', id: task.id, metadata: undefined })).rejects.toThrow(
      /not cancelable/i,
    );
    await expect(getTask(client, 'no-such-task')).rejects.toThrow(/not found/i);
  });

  it('holds scopes: a read token gets the card and none of the tasks; sending needs talk; a task is its token’s', async () => {
    const h = await gateway();
    const reader = (await h.runtime.tokens.create({ scope: 'read', name: 'reader' })).token;
    const talker = (await h.runtime.tokens.create({ scope: 'talk', name: 'talker' })).token;
    const asReader = await a2aClient(h.gateway.url, reader);
    const asTalker = await a2aClient(h.gateway.url, talker);
    const asOperator = await a2aClient(h.gateway.url, TEST_TOKEN);
    await expect(send(asReader, 'let me in')).rejects.toThrow(/needs a token of scope talk/);
    const mine = await h.until(send(asTalker, 'hello from the talker'));
    expect(resultText(mine)).toMatch(/Hello a2a:talker/);
    const operators = await send(asOperator, 'from the operator', true);
    // Another token's task is not found, whatever its scope: its existence is not told either.
    await expect(getTask(asReader, mine.id)).rejects.toThrow(/not found/i);
    await expect(getTask(asReader, operators.id)).rejects.toThrow(/not found/i);
    await expect(getTask(asTalker, operators.id)).rejects.toThrow(/not found/i);
    await expect(getTask(asOperator, mine.id)).rejects.toThrow(/not found/i);
    await expect(asReader.cancelTask({ tenant: '', id: operators.id, metadata: undefined })).rejects.toThrow(
      /not found/i,
    );
    expect((await getTask(asTalker, mine.id)).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // The refused send left no turn behind.
    const rpc = await h.connect();
    const entries = (await rpc.request('conversation.list', { limit: 50 })).result as Array<{ text: string }>;
    expect(entries.map((entry) => entry.text)).not.toContain('let me in');
  });

  it('answers raw calls as A2A 1.0 does: no version header, streaming, bad JSON, and 403 for scope', async () => {
    const h = await gateway();
    const reader = (await h.runtime.tokens.create({ scope: 'read', name: 'reader' })).token;
    const post = (body: string, token = TEST_TOKEN, version: string | null = '1.0') =>
      fetch(`${h.gateway.url}/a2a`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          ...(version === null ? {} : { 'a2a-version': version }),
        },
        body,
      });
    const call = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 7, method, params });
    const send = call('SendMessage', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } });
    // Without an A2A-Version header a caller speaks 0.3, whose names these are not: refused, nothing is sent.
    const old = await post(send, TEST_TOKEN, null);
    expect(await old.json()).toMatchObject({ id: 7, error: { code: -32601 } });
    // A version neither 1.0 nor 0.x is not supported.
    expect(await (await post(send, TEST_TOKEN, '2.0')).json()).toMatchObject({ id: 7, error: { code: -32009 } });
    const streaming = await post(call('SendStreamingMessage', { message: { messageId: 'm2', parts: [] } }));
    expect(await streaming.json()).toMatchObject({ id: 7, error: { code: -32004 } });
    // A task is one turn: a message continuing one is refused before it reaches the task.
    const more = await post(
      call('SendMessage', {
        message: { messageId: 'm3', taskId: 'some-task', role: 'ROLE_USER', parts: [{ text: 'and' }] },
      }),
    );
    expect(await more.json()).toMatchObject({ id: 7, error: { code: -32004 } });
    const bad = await post('{nope');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: -32700 } });
    const refused = await post(send, reader);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ scope: 'talk', vigilCode: 'AUTH_FORBIDDEN' });
    // None of them became a turn.
    const rpc = await h.connect();
    const entries = (await rpc.request('conversation.list', { limit: 50 })).result as unknown[];
    expect(entries).toEqual([]);
  });

  it('speaks A2A 0.3 to a caller that sends no A2A-Version: its card, message/send and tasks/get (the SDK’s 0.3 transport)', async () => {
    const h = await gateway();
    // The card a 0.3 caller reads: url and preferredTransport, as the SDK's own 0.3 parser takes it.
    const legacy = (await (await fetch(`${h.gateway.url}/.well-known/agent-card.json`)).json()) as Record<
      string,
      unknown
    >;
    expect(isLegacyAgentCard(legacy)).toBe(true);
    expect(legacy).toMatchObject({
      protocolVersion: '0.3.0',
      url: `${h.gateway.url}/a2a`,
      preferredTransport: 'JSONRPC',
    });
    expect(parseLegacyAgentCard(legacy).name).toBe('Vigil');
    const modern = await fetch(`${h.gateway.url}/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0' } });
    expect(modern.headers.get('vary')).toMatch(/A2A-Version/i);
    expect(isLegacyAgentCard(await modern.json())).toBe(false);

    const seen: Array<string | null> = [];
    const transport = new LegacyJsonRpcTransport({
      endpoint: `${h.gateway.url}/a2a`,
      fetchImpl: (input, init) => {
        const headers = new Headers(init?.headers);
        seen.push(headers.get('a2a-version'));
        headers.set('authorization', `Bearer ${TEST_TOKEN}`);
        return fetch(input, { ...init, headers });
      },
    });
    const result = await h.until(
      transport.sendMessage({
        tenant: '',
        message: userMessage('hello in 0.3'),
        configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: false },
        metadata: undefined,
      }),
    );
    expect(seen.every((version) => version === null || version.startsWith('0.'))).toBe(true);
    if (!('status' in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
    expect(result.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(resultText(result)).toMatch(/Hello a2a:daemon/);
    const read = await transport.getTask({ tenant: '', id: result.id, historyLength: undefined });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // One turn, as in 1.0.
    const rpc = await h.connect();
    const entries = (await rpc.request('conversation.list', { limit: 50 })).result as Array<{ text: string }>;
    expect(entries.filter((entry) => entry.text === 'hello in 0.3')).toHaveLength(1);
  });
});
