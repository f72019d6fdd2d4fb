/** `webhooks.*` over a real gateway (a simulated clock, an injected POST): validation, errors, secrets kept, the CLI. */
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { AddedWebhookSchema, WebhookViewSchema } from '../../src/protocol/webhooks.schema.js';
import type { WebhookRequest } from '../../src/subsystems/webhooks/webhook-post.js';
import { cliIo, startGatewayHarness, type GatewayHarness } from './gateway.fixture.js';

let h: GatewayHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('webhooks over the gateway', () => {
  it('validates params (-32602 naming the field), answers -32004 for an unknown id, and never shows the secret again', async () => {
    const posted: WebhookRequest[] = [];
    h = await startGatewayHarness({
      runtime: {
        webhooks: {
          post: (request) => {
            posted.push(request);
            return Promise.resolve({ status: 204 });
          },
        },
      },
    });
    const raw = await h.connect();

    const badUrl = await raw.request('webhooks.add', { url: 'ftp://example.test/x', types: ['agent.reply'] });
    expect(badUrl.error).toMatchObject({ code: -32602 });
    expect(JSON.stringify(badUrl.error)).toContain('url');
    const noTypes = await raw.request('webhooks.add', { url: 'http://example.test/x', types: [] });
    expect(noTypes.error).toMatchObject({ code: -32602 });
    expect(JSON.stringify(noTypes.error)).toContain('types');

    for (const [method, params] of [
      ['webhooks.remove', { id: 'wh_0000000000000000' }],
      ['webhooks.enable', { id: 'wh_0000000000000000' }],
      ['webhooks.test', { id: 'wh_0000000000000000' }],
      ['webhooks.deliveries', { id: 'wh_0000000000000000' }],
      ['webhooks.redeliver', { id: 'wh_0000000000000000', afterSeq: 0 }],
    ] as const) {
      expect((await raw.request(method, params)).error, method).toMatchObject({
        code: -32004,
        data: { vigilCode: 'WEBHOOK_NOT_FOUND' },
      });
    }

    const added = AddedWebhookSchema.parse(
      (await raw.request('webhooks.add', { url: 'http://example.test/hook', types: ['agent.reply'], name: 'ci' }))
        .result,
    );
    expect(added).toMatchObject({ name: 'ci', state: 'ok', types: ['agent.reply'] });
    expect(added.secret).toMatch(/^whsec_/);

    // A reply goes out, signed under that secret (checked by the library's own signing of the same message).
    await h.until(raw.request('agent.send', { text: 'hello' }));
    await h.advance(2000);
    const reply = posted.find((request) => (JSON.parse(request.body) as { type: string }).type === 'agent.reply');
    expect(reply).toBeDefined();
    const { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': signature } = reply!.headers;
    expect(new Webhook(added.secret).sign(id!, new Date(Number(ts) * 1000), reply!.body)).toBe(signature);

    const list = WebhookViewSchema.array().parse((await raw.request('webhooks.list')).result);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id: added.id, state: 'ok', backlog: 0, lastStatus: 204 });
    expect(JSON.stringify(list)).not.toContain(added.secret);
    expect(JSON.stringify(h.events)).not.toContain(added.secret.slice(6));

    const deliveries = (await raw.request('webhooks.deliveries', { id: added.id, limit: 5 })).result as Array<{
      status: number;
    }>;
    expect(deliveries[0]).toMatchObject({ status: 204, attempt: 1 });

    const io = cliIo(h);
    expect(await main(['webhooks', 'list'], io)).toBe(0);
    expect(io.out()).toContain(added.id);
    expect(io.out()).not.toContain(added.secret);
    expect(await main(['webhooks', 'test', added.id], io)).toBe(0);
    expect(io.out()).toMatch(/seq 0\tattempt 1\tHTTP 204/);

    const discover = (await raw.request('rpc.discover')).result as { methods: Array<{ name: string }> };
    expect(discover.methods.map((m) => m.name)).toEqual(
      expect.arrayContaining(['webhooks.add', 'webhooks.list', 'webhooks.redeliver']),
    );
    expect((await raw.request('webhooks.remove', { id: added.id })).result).toBe(true);
    expect((await raw.request('webhooks.list')).result).toEqual([]);
  });
});
