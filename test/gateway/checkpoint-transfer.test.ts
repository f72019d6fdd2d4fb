import { afterEach, describe, expect, it } from 'vitest';
import { isVigilError } from '../../src/errors.js';
import { CheckpointExportSchema } from '../../src/protocol/checkpoint-transfer.schema.js';
import { createSimulatedClock } from '../../src/shared/clock.js';
import { startGatewayHarness, type GatewayHarness, type RawClient } from './gateway.fixture.js';

const started: GatewayHarness[] = [];
afterEach(async () => {
  for (const h of started.splice(0)) await h.close();
});

async function start(): Promise<{ h: GatewayHarness; client: RawClient }> {
  // One shared instant, so both agents' working memory decays alike by restore time.
  const h = await startGatewayHarness({ runtime: { clock: createSimulatedClock(Date.parse('2026-03-01T10:00:00Z')) } });
  started.push(h);
  return { h, client: await h.connect() };
}

async function call(h: GatewayHarness, client: RawClient, method: string, params?: unknown): Promise<any> {
  const response = await h.until(client.request(method, params));
  if (response.error !== undefined) throw new Error(`${method}: ${JSON.stringify(response.error)}`);
  return response.result;
}

const texts = (messages: Array<{ text: string }>) => messages.map((m) => m.text);

describe('checkpoint export and import', () => {
  it('moves an agent to another data dir: import, then restore, gives the same agent and conversation', async () => {
    const a = await start();
    await call(a.h, a.client, 'goals.add', { title: 'Keep the lighthouse lit', priority: 9 });
    await call(a.h, a.client, 'agent.send', { text: 'The harbour code is 4417. Wonderful work!' });
    await a.h.advance(3000);
    await call(a.h, a.client, 'agent.send', { text: 'And log the ships.' });
    await a.h.advance(2000);
    const saved = await call(a.h, a.client, 'checkpoint.create');
    // The file goes through JSON on disk: what comes back must still validate.
    const document = CheckpointExportSchema.parse(
      JSON.parse(JSON.stringify(await call(a.h, a.client, 'checkpoint.export', { id: saved.id }))),
    );
    const source = await a.h.runtime.getCheckpoint(saved.id);
    expect(document.checkpoint).toEqual(source);
    expect(texts(document.messages)).toEqual(
      texts(await (await a.h.conversation()).readRange(0, source.conversation.watermark)),
    );
    expect(document.messages.some((m) => m.role === 'assistant')).toBe(true);

    // The other side already has a life of its own.
    const b = await start();
    await call(b.h, b.client, 'agent.send', { text: 'I am the other agent.' });
    await b.h.advance(2000);
    const before = await (await b.h.conversation()).readLast(100);
    const imported = await call(b.h, b.client, 'checkpoint.import', { document });
    expect(imported).toMatchObject({
      importedFrom: saved.id,
      beatCount: source.beatCount,
      messages: document.messages.length,
    });
    const stored = await b.h.runtime.getCheckpoint(imported.id);
    expect(stored.conversation.watermark).toBe(imported.watermark);
    expect({ ...stored, id: source.id, conversation: { ...stored.conversation, watermark: 0 } }).toEqual({
      ...source,
      conversation: { ...source.conversation, watermark: 0 },
    });

    // Both sides restore the same checkpoint at the same simulated instant.
    await b.h.advance(1000);
    await call(b.h, b.client, 'checkpoint.restore', { id: imported.id, confirm: true });
    await call(a.h, a.client, 'checkpoint.restore', { id: saved.id, confirm: true });
    expect(b.h.runtime.status().beatCount).toBe(source.beatCount);
    expect(b.h.runtime.actorStates().goals).toEqual(a.h.runtime.actorStates().goals);
    expect(b.h.runtime.actorStates().affect).toEqual(a.h.runtime.actorStates().affect);
    expect(b.h.runtime.listMemory().map((m) => m.content)).toEqual(a.h.runtime.listMemory().map((m) => m.content));
    const after = await (await b.h.conversation()).readLast(100);
    expect(texts(after)).toEqual([...texts(before), ...texts(document.messages)]);
  });

  it('exports the history a checkpoint saw, even after a restore archived part of it, and not a branch it never saw', async () => {
    const { h, client } = await start();
    const conversation = await h.conversation();
    await call(h, client, 'agent.send', { text: 'm1' });
    await h.advance(2000);
    const first = await call(h, client, 'checkpoint.create');
    await call(h, client, 'agent.send', { text: 'm2' });
    await h.advance(2000);
    const second = await call(h, client, 'checkpoint.create');
    await h.advance(1000);
    await call(h, client, 'checkpoint.restore', { id: first.id, confirm: true });
    await call(h, client, 'agent.send', { text: 'm3' });
    await h.advance(2000);
    const third = await call(h, client, 'checkpoint.create');
    const userTexts = async (id: string) =>
      (await h.runtime.exportCheckpoint(id)).messages.filter((m) => m.role === 'user').map((m) => m.text);
    expect(await userTexts(first.id)).toEqual(['m1']);
    expect(await userTexts(second.id)).toEqual(['m1', 'm2']);
    expect(await userTexts(third.id)).toEqual(['m1', 'm3']);
    expect((await conversation.listArchives()).length).toBe(1);
  });

  it('refuses a document whose messages run past the watermark, with CHECKPOINT_EXPORT_INVALID', async () => {
    const { h, client } = await start();
    await call(h, client, 'agent.send', { text: 'hello' });
    await h.advance(2000);
    const saved = await call(h, client, 'checkpoint.create');
    const document = await h.runtime.exportCheckpoint(saved.id);
    const broken = { ...document, messages: [...document.messages, { ...document.messages[0]!, seq: 10_000 }] };
    try {
      await h.runtime.importCheckpoint(broken);
      expect.unreachable();
    } catch (err) {
      expect(isVigilError(err, 'CHECKPOINT_EXPORT_INVALID')).toBe(true);
    }
    const response = await client.request('checkpoint.import', { document: broken });
    // The gateway's params schema already holds the export schema, so over the wire it is refused as bad params.
    expect(response.error).toMatchObject({
      code: -32602,
      data: [
        expect.objectContaining({
          path: ['document', 'messages', document.messages.length, 'seq'],
          vigilCode: 'RPC_INVALID_PARAMS',
        }),
      ],
    });
  });
});
