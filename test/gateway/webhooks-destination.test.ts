/** `webhooks.add` under the destination policy over a real gateway: refused URLs, masked credentials, reason classes. */
import { afterEach, describe, expect, it } from 'vitest';
import type { WebhookResolver } from '../../src/subsystems/webhooks/webhook-destination.js';
import { startGatewayHarness, type GatewayHarness } from './gateway.fixture.js';

let h: GatewayHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const resolve: WebhookResolver = (name) =>
  Promise.resolve(name === 'internal.example' ? ['192.168.0.7'] : ['93.184.216.34']);

describe('webhooks.add destinations', () => {
  it('refuses private addresses, a name resolving to one and the gateway itself with -32602 naming url', async () => {
    h = await startGatewayHarness({ runtime: { webhooks: { resolve, post: () => Promise.resolve({ status: 204 }) } } });
    h.runtime.webhooks.useGatewayUrl(h.gateway.url);
    const raw = await h.connect();
    for (const url of [
      'http://127.0.0.1:9/hook',
      'http://localhost:9/hook',
      'http://10.0.0.8/hook',
      'http://[fd00::1]/hook',
      'http://internal.example/hook',
      `${h.gateway.url}/rpc?token=whatever`,
    ]) {
      const answer = await raw.request('webhooks.add', { url, types: ['agent.reply'] });
      expect(answer.error, url).toMatchObject({ code: -32602, data: [{ path: ['url'] }] });
    }
    expect((await raw.request('webhooks.list')).result).toEqual([]);
  });

  it('allows a private receiver with webhookAllowPrivate, but never the gateway itself', async () => {
    h = await startGatewayHarness({
      runtime: {
        config: { webhookAllowPrivate: true },
        webhooks: { resolve, post: () => Promise.resolve({ status: 204 }) },
      },
    });
    h.runtime.webhooks.useGatewayUrl(h.gateway.url);
    const raw = await h.connect();
    for (const url of ['http://127.0.0.1:9/hook', 'http://internal.example/hook']) {
      expect((await raw.request('webhooks.add', { url, types: ['agent.reply'] })).error, url).toBeUndefined();
    }
    const own = await raw.request('webhooks.add', { url: `${h.gateway.url}/?token=x`, types: ['agent.reply'] });
    expect(own.error).toMatchObject({ code: -32602, data: [{ path: ['url'] }] });
  });

  it('masks credentials in the URL in the add answer and in webhooks.list', async () => {
    h = await startGatewayHarness({ runtime: { webhooks: { resolve, post: () => Promise.resolve({ status: 204 }) } } });
    const raw = await h.connect();
    const url = 'https://alice:s3cret@hooks.example/in';
    const added = (await raw.request('webhooks.add', { url, types: ['agent.reply'] })).result as { url: string };
    expect(added.url).toBe('https://***:***@hooks.example/in');
    const listed = (await raw.request('webhooks.list')).result as { url: string }[];
    expect(listed.map((view) => view.url)).toEqual(['https://***:***@hooks.example/in']);
    expect(JSON.stringify(listed)).not.toContain('s3cret');
  });

  it('journals webhook.failing with a reason class; the full error is in webhooks.deliveries', async () => {
    h = await startGatewayHarness({ runtime: { webhooks: { resolve, post: () => Promise.resolve({ status: 503 }) } } });
    const raw = await h.connect();
    const { id } = (await raw.request('webhooks.add', { url: 'https://hooks.example/in', types: ['agent.reply'] }))
      .result as { id: string };
    await h.until(raw.request('agent.send', { text: 'hello' }));
    await h.advance(2000);
    const history = (await raw.request('events.history', { types: ['webhook.failing'] })).result as unknown[];
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ type: 'webhook.failing' });
    expect(JSON.stringify(history[0])).toContain(JSON.stringify({ id, error: 'http_5xx' }).slice(1, -1));
    expect(JSON.stringify(history)).not.toContain('HTTP 503');
    const deliveries = (await raw.request('webhooks.deliveries', { id })).result as { error?: string }[];
    expect(deliveries[0]?.error).toBe('HTTP 503');
  });
});
