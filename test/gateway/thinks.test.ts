/** CONTRACT §10 conformance over a real gateway: `thinks.list` / `thinks.get` field by field, errors, `rpc.discover`, and `vigil thinks`. */
import { readFile, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import type { CliIo } from '../../src/client/commands/cli-io.js';
import { ScriptedThinker } from '../fixtures/scripted-thinker.js';
import { startGatewayHarness, TEST_TOKEN, type GatewayHarness, type RawClient } from './gateway.fixture.js';

let h: GatewayHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The field names CONTRACT §10 gives a `thinks.list` entry. */
const LIST_FIELDS = [
  'id',
  'turnIds',
  'reason',
  'model',
  'startedAt',
  'durationMs',
  'stopReason',
  'calls',
  'toolCalls',
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'costUsd',
];

/** A gateway over a runtime whose thinker answers every message (100 tokens in, 20 out, $0.0015 a think). */
async function started(): Promise<{ harness: GatewayHarness; client: RawClient }> {
  const thinker = new ScriptedThinker();
  thinker.costMicroUsd = 1500;
  const harness = await startGatewayHarness({ runtime: { thinker } });
  return { harness, client: await harness.connect() };
}

async function think(harness: GatewayHarness, client: RawClient, text: string): Promise<string> {
  const sent = await client.request('agent.send', { text });
  await harness.advance(1000);
  return (sent.result as { turnId: string }).turnId;
}

function cliIo(harness: GatewayHarness, out: { stdout: string; stderr: string }): CliIo {
  return {
    env: { VIGIL_HOST: '127.0.0.1', VIGIL_PORT: new URL(harness.gateway.url).port, VIGIL_TOKEN: TEST_TOKEN },
    stdout: (text) => (out.stdout += text),
    stderr: (text) => (out.stderr += text),
    readFile: (path) => readFile(path, 'utf8'),
    writeFile: (path, text) => writeFile(path, text),
    interrupted: () => new Promise(() => undefined),
  };
}

describe('thinks.list and thinks.get over the gateway (CONTRACT §10)', () => {
  it('lists thinks newest first with exactly the contract fields, totals the sums of the calls; get adds the sections', async () => {
    const { harness, client } = await started();
    h = harness;
    const first = await think(harness, client, 'one');
    const second = await think(harness, client, 'two');
    const listed = (await client.request('thinks.list', {})).result as any[];
    expect(listed.map((t) => t.turnIds)).toEqual([[second], [first]]);
    for (const entry of listed) {
      expect(Object.keys(entry).sort()).toEqual([...LIST_FIELDS].sort());
      expect(entry).toMatchObject({
        reason: 'user_message',
        model: 'scripted',
        stopReason: 'end_turn',
        inputTokens: 100,
        outputTokens: 20,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        costUsd: 0.0015,
      });
      expect(entry.calls).toEqual([
        expect.objectContaining({ inputTokens: 100, outputTokens: 20, costUsd: 0.0015, retries: 0 }),
      ]);
      expect(typeof entry.startedAt).toBe('number');
    }
    const got = (await client.request('thinks.get', { id: listed[0].id })).result as any;
    expect(Object.keys(got).sort()).toEqual([...LIST_FIELDS, 'sections'].sort());
    expect({ ...got, sections: undefined }).toEqual({ ...listed[0], sections: undefined });
    expect((await client.request('thinks.list', { limit: 1 })).result).toEqual([listed[0]]);
    expect((await client.request('thinks.list', { before: listed[0].id })).result).toEqual([listed[1]]);
  });

  it('answers -32004 with data {id} for an unknown id, and -32602 for bad params', async () => {
    const { harness, client } = await started();
    h = harness;
    expect((await client.request('thinks.get', { id: 'th-unknown' })).error).toMatchObject({
      code: -32004,
      data: { id: 'th-unknown' },
    });
    expect((await client.request('thinks.get', {})).error).toMatchObject({ code: -32602 });
    expect((await client.request('thinks.list', { limit: 0 })).error).toMatchObject({ code: -32602 });
    expect((await client.request('thinks.list', { newest: true })).error).toMatchObject({ code: -32602 });
  });

  it('describes both methods in rpc.discover, THINK_NOT_FOUND among the errors of thinks.get', async () => {
    const { harness, client } = await started();
    h = harness;
    const doc = (await client.request('rpc.discover')).result as {
      methods: Array<{ name: string; errors?: Array<{ code: number; message: string }> }>;
    };
    const names = doc.methods.map((m) => m.name);
    expect(names).toEqual(expect.arrayContaining(['thinks.list', 'thinks.get']));
    expect(JSON.stringify(doc.methods.find((m) => m.name === 'thinks.get'))).toContain('THINK_NOT_FOUND');
  });

  it('vigil thinks list / show: one line per think, one think in full, JSON on request, exit codes 0, 1 and 2', async () => {
    const { harness, client } = await started();
    h = harness;
    await think(harness, client, 'hello');
    const out = { stdout: '', stderr: '' };
    const io = cliIo(harness, out);
    expect(await main(['thinks', 'list'], io)).toBe(0);
    const [line, ...more] = out.stdout.trim().split('\n');
    expect(more).toEqual([]);
    const [id, at, reason, model, , calls, tools, tokens, cache, cost, stop] = line!.split('\t');
    expect({ at, reason, model, calls, tools, tokens, cache, cost, stop }).toEqual({
      at: '2026-03-01T10:00:00.000Z',
      reason: 'user_message',
      model: 'scripted',
      calls: '1 calls',
      tools: '0 tools',
      tokens: '100/20 tok',
      cache: 'cache 0%',
      cost: '$0.001500',
      stop: 'end_turn',
    });

    out.stdout = '';
    expect(await main(['thinks', 'show', id!], io)).toBe(0);
    expect(out.stdout).toContain(`think ${id}`);
    expect(out.stdout).toMatch(/model calls \(1\)\n {2}#1 .* in 100 out 20 cache read 0 write 0 \$0\.001500 retries 0/);
    expect(out.stdout).toContain('prompt sections (0 tokens)');

    out.stdout = '';
    expect(await main(['thinks', 'list', '--json', '--limit', '5'], io)).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual((await client.request('thinks.list', { limit: 5 })).result);
    out.stdout = '';
    expect(await main(['thinks', 'show', id!, '--json'], io)).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual((await client.request('thinks.get', { id })).result);

    out.stderr = '';
    expect(await main(['thinks', 'show', 'th-nope'], io)).toBe(1);
    expect(out.stderr).toMatch(/^vigil: .*th-nope.*`vigil thinks list` shows what there is\.\n$/);
    expect(await main(['thinks', 'list', '--limit', '0'], io)).toBe(2);
    expect(await main(['thinks', 'show'], io)).toBe(2);
    expect(await main(['thinks', 'frob'], io)).toBe(2);
  });
});
