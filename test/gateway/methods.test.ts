import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RPC_METHODS } from '../../src/protocol/rpc-methods.js';
import { BudgetStatusSchema, HeartbeatStatusSchema } from '../../src/protocol/index.js';
import { CHECKPOINT_FORMAT_VERSION } from '../../src/protocol/checkpoint-format.schema.js';
import { SUBLEVELS } from '../../src/subsystems/store/vigil-db.js';
import { startGatewayHarness, type GatewayHarness, type RawClient } from './gateway.fixture.js';

let h: GatewayHarness;
let client: RawClient;
beforeEach(async () => {
  h = await startGatewayHarness({ gateway: { maxSubscriptions: 2 } });
  client = await h.connect();
});
afterEach(() => h.close());

async function result(method: string, params?: unknown): Promise<any> {
  const response = await client.request(method, params);
  if (response.error !== undefined) throw new Error(`${method} failed: ${JSON.stringify(response.error)}`);
  return response.result;
}

async function error(method: string, params?: unknown): Promise<any> {
  const response = await client.request(method, params);
  expect(response.result).toBeUndefined();
  return response.error;
}

/** Takes a checkpoint through the gateway, advancing simulated time until it is stored. */
async function checkpoint(): Promise<{ id: string; beatCount: number; sizeBytes: number }> {
  const response = await h.until(client.request('checkpoint.create'));
  return response.result as never;
}

describe('gateway methods', () => {
  it('heartbeat.status: the runtime status; unexpected params are -32602', async () => {
    await h.advance(3000);
    const status = await result('heartbeat.status');
    expect(HeartbeatStatusSchema.parse(status)).toEqual(status);
    expect(status).toMatchObject({ beatCount: 3, state: 'awake', restoredFrom: null });
    expect(await error('heartbeat.status', { verbose: true })).toMatchObject({ code: -32602 });
  });

  it('checkpoint.create and checkpoint.list: stored at a beat boundary, listed newest first, limit honoured', async () => {
    const first = await checkpoint();
    await h.advance(2000);
    const second = await checkpoint();
    expect(second.beatCount).toBeGreaterThan(first.beatCount);
    const list = await result('checkpoint.list');
    expect(list.slice(0, 2).map((c: { id: string }) => c.id)).toEqual([second.id, first.id]);
    expect(list[0]).toEqual({
      id: second.id,
      beatCount: second.beatCount,
      sizeBytes: second.sizeBytes,
      createdAt: expect.any(String),
      formatVersion: CHECKPOINT_FORMAT_VERSION,
    });
    expect(await result('checkpoint.list', { limit: 1 })).toHaveLength(1);
    expect(await error('checkpoint.list', { limit: 0 })).toMatchObject({ code: -32602 });
  });

  it('checkpoint.get: the decoded checkpoint; -32004 for an unknown id, -32005 for a corrupt one', async () => {
    const { id, beatCount } = await checkpoint();
    expect(await result('checkpoint.get', { id })).toMatchObject({
      id,
      beatCount,
      formatVersion: CHECKPOINT_FORMAT_VERSION,
      actors: expect.any(Object),
    });
    expect(await error('checkpoint.get', { id: 'ck-nope' })).toMatchObject({ code: -32004, data: { id: 'ck-nope' } });
    const bodies = h.db.sublevel<string, Uint8Array>(SUBLEVELS.checkpointBodies, { valueEncoding: 'view' });
    await bodies.put(id, new TextEncoder().encode('not gzip'));
    expect(await error('checkpoint.get', { id })).toMatchObject({ code: -32005 });
    expect(await error('checkpoint.get', {})).toMatchObject({ code: -32602 });
  });

  it('checkpoint.restore: -32001 with {id, beatCount, createdAt} until confirmed, then {restored, beatCount}', async () => {
    const saved = await checkpoint();
    await h.advance(3000);
    const confirmation = await error('checkpoint.restore', { id: saved.id });
    const stored = await result('checkpoint.get', { id: saved.id });
    expect(confirmation).toEqual({
      code: -32001,
      message: expect.stringContaining(saved.id),
      data: {
        id: saved.id,
        beatCount: saved.beatCount,
        createdAt: new Date(stored.createdAt).toISOString(),
        vigilCode: 'CHECKPOINT_CONFIRMATION_REQUIRED',
      },
    });
    const restored = await h.until(client.request('checkpoint.restore', { id: saved.id, confirm: true }));
    expect(restored.result).toEqual({ restored: saved.id, beatCount: saved.beatCount });
    expect((await result('heartbeat.status')).restoredFrom).toBe(saved.id);
    expect(await error('checkpoint.restore', { id: 'ck-nope', confirm: true })).toMatchObject({ code: -32004 });
  });

  it('checkpoint.restore: -32009 for a second restore while one runs', async () => {
    const { id } = await checkpoint();
    const batch = [1, 2].map((n) => ({
      jsonrpc: '2.0',
      method: 'checkpoint.restore',
      params: { id, confirm: true },
      id: n,
    }));
    const responses = (await h.until(client.exchange(batch))) as Array<Record<string, any>>;
    expect(responses[0]).toMatchObject({ id: 1, result: { restored: id } });
    expect(responses[1]).toMatchObject({ id: 2, error: { code: -32009 } });
  });

  it('checkpoint.export and checkpoint.import: a document that imports under a new id; a bad document is -32602', async () => {
    await result('agent.send', { text: 'remember the blue door' });
    await h.advance(2000);
    const { id } = await checkpoint();
    const document = await result('checkpoint.export', { id });
    expect(document).toMatchObject({ kind: 'vigil.checkpoint-export', version: 1, checkpoint: { id } });
    expect(document.messages.map((m: { text: string }) => m.text)).toContain('remember the blue door');
    const imported = await result('checkpoint.import', { document });
    expect(imported).toMatchObject({
      importedFrom: id,
      beatCount: document.checkpoint.beatCount,
      messages: document.messages.length,
    });
    expect(imported.id).not.toBe(id);
    expect(await error('checkpoint.export', { id: 'ck-nope' })).toMatchObject({ code: -32004 });
    expect(await error('checkpoint.import', { document: { ...document, version: 99 } })).toMatchObject({
      code: -32602,
      data: [expect.objectContaining({ path: ['document', 'version'], vigilCode: 'RPC_INVALID_PARAMS' })],
    });
  });

  it('budget.status, budget.topUp, budget.setCap: the budget and its changes; -32602 for bad amounts', async () => {
    const status = await result('budget.status');
    expect(BudgetStatusSchema.parse(status)).toEqual(status);
    expect(status).toMatchObject({
      dailyCapUsd: 5,
      spentTodayUsd: 0,
      state: 'ok',
      timezone: 'UTC',
      cacheReadShareToday: 0,
    });
    const toppedUp = await result('budget.topUp', { amountUsd: 2.5 });
    expect(toppedUp).toMatchObject({ dailyCapUsd: 5, topUpUsd: 2.5, remainingUsd: 7.5 });
    expect(await result('budget.setCap', { dailyCapUsd: 12 })).toMatchObject({ dailyCapUsd: 12, remainingUsd: 14.5 });
    expect(await result('budget.status')).toEqual(h.runtime.budgetStatus());
    expect(await error('budget.topUp', { amountUsd: -1 })).toMatchObject({
      code: -32602,
      data: [expect.objectContaining({ path: ['amountUsd'], vigilCode: 'RPC_INVALID_PARAMS' })],
    });
    expect(await error('budget.setCap', {})).toMatchObject({ code: -32602 });
  });

  it('goals.add, goals.list, goals.complete; -32004 for an unknown goal, -32602 for a bad one', async () => {
    const goal = await result('goals.add', {
      title: 'Write the report',
      priority: 8,
      dueAt: '2026-03-02T00:00:00.000Z',
    });
    expect(goal).toMatchObject({
      title: 'Write the report',
      priority: 8,
      status: 'active',
      dueAt: '2026-03-02T00:00:00.000Z',
    });
    expect(await result('goals.list')).toEqual([goal]);
    expect(await result('goals.complete', { id: goal.id })).toMatchObject({ id: goal.id, status: 'completed' });
    expect(await error('goals.complete', { id: 'g-nope' })).toMatchObject({ code: -32004, data: { id: 'g-nope' } });
    expect(await error('goals.add', { title: '' })).toMatchObject({ code: -32602 });
    expect(await error('goals.add', { title: 'x', priority: 'high' })).toMatchObject({ code: -32602 });
  });

  it('memory.list and affect.get: the working memory and the affect dimensions', async () => {
    await result('agent.send', { text: 'Wonderful news, the launch went perfectly!' });
    await h.advance(2000);
    const memory = await result('memory.list');
    expect(memory.length).toBeGreaterThan(0);
    expect(memory[0]).toEqual({
      id: expect.any(String),
      content: expect.any(String),
      salience: expect.any(Number),
      createdAt: expect.any(String),
    });
    expect(await result('affect.get')).toEqual(h.runtime.getAffect());
    expect(await error('affect.get', { dimension: 'valence' })).toMatchObject({ code: -32602 });
  });

  it('agent.send: a turn id now, the answer later as agent.reply; empty text is -32602', async () => {
    const { turnId } = await result('agent.send', { text: 'hello', from: 'tester' });
    await h.advance(2000);
    expect(h.ofType('agent.reply').map((e) => e.turnId)).toContain(turnId);
    expect(await error('agent.send', { text: '' })).toMatchObject({
      code: -32602,
      data: [expect.objectContaining({ path: ['text'], vigilCode: 'RPC_INVALID_PARAMS' })],
    });
  });

  it('events.subscribe / unsubscribe: up to the connection limit (-32009 past it), -32004 for an unknown one', async () => {
    const first = await result('events.subscribe', { types: ['heartbeat.beat'] });
    expect(first).toEqual({ subscription: expect.any(String), after: expect.any(Number) });
    await result('events.subscribe');
    expect(await error('events.subscribe')).toMatchObject({
      code: -32009,
      data: { vigilCode: 'SUBSCRIPTION_LIMIT', limit: 2 },
    });
    expect(await result('events.unsubscribe', { subscription: first.subscription })).toBe(true);
    expect(await error('events.unsubscribe', { subscription: first.subscription })).toMatchObject({ code: -32004 });
    expect(await result('events.subscribe', { types: ['checkpoint.*'] })).toMatchObject({
      subscription: expect.any(String),
    });
    expect(await error('events.subscribe', { types: 'checkpoint.*' })).toMatchObject({ code: -32602 });
  });

  it('events.history: paging forward after a seq, or the newest N; type filters; -32602 for a bad limit', async () => {
    await h.advance(5000);
    const beats = await result('events.history', { types: ['heartbeat.beat'], limit: 10 });
    expect(beats.map((e: { beatCount: number }) => e.beatCount)).toEqual([1, 2, 3, 4, 5]);
    const page = await result('events.history', { types: ['heartbeat.*'], after: beats[1].seq, limit: 2 });
    expect(page.map((e: { beatCount: number }) => e.beatCount)).toEqual([3, 4]);
    const newest = await result('events.history', { limit: 1 });
    expect(newest).toHaveLength(1);
    expect(await error('events.history', { limit: 0 })).toMatchObject({ code: -32602 });
  });

  it('rpc.discover: an OpenRPC document with every method, its params and result from the zod schemas', async () => {
    const doc = await result('rpc.discover');
    expect(doc).toMatchObject({
      openrpc: expect.stringMatching(/^1\./),
      info: { title: expect.any(String), version: expect.any(String) },
    });
    expect(doc.methods.map((m: { name: string }) => m.name).sort()).toEqual(Object.keys(RPC_METHODS).sort());
    const restore = doc.methods.find((m: { name: string }) => m.name === 'checkpoint.restore');
    expect(restore.params).toEqual([
      { name: 'id', required: true, schema: expect.objectContaining({ type: 'string' }) },
      { name: 'confirm', required: false, schema: { type: 'boolean' } },
    ]);
    const { $schema: _, ...statusSchema } = z.toJSONSchema(RPC_METHODS['heartbeat.status'].result, { io: 'output' });
    expect(doc.methods.find((m: { name: string }) => m.name === 'heartbeat.status').result.schema).toEqual(
      statusSchema,
    );
    expect(restore.errors.map((e: { code: number }) => e.code)).toEqual(
      expect.arrayContaining([-32001, -32004, -32009]),
    );
  });

  it('answers -32603 (not a crash) once the runtime has stopped', async () => {
    await h.runtime.stop();
    const stopped = await error('goals.add', { title: 'too late' });
    expect(stopped).toMatchObject({ code: -32603, data: { vigilCode: 'RUNTIME_STOPPED' } });
    expect(await result('goals.list')).toEqual([]);
  });
});
