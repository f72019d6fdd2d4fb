/**
 * Slack's Events API through the gateway (CONTRACT §18): `POST /channels/NAME/events` needs no gateway token, so the
 * request's Slack signature is its only credential — a bad signature, a stale timestamp or none at all is refused
 * (401) and nothing is queued; a signed event is answered 200 only once its message is durable; Slack's retry
 * (`X-Slack-Retry-Num`) makes no second turn; the reply goes into the message's thread.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { signSlackRequest } from '../../src/subsystems/channels/slack/slack-signature.js';
import { createFakeSlack, type FakeSlack } from '../fixtures/fake-slack.js';
import { startGatewayHarness, type GatewayHarness } from './gateway.fixture.js';

const SECRET = 'slack-signing-secret-for-tests';
const BOT = 'xoxb-events-api-bot-token';
const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

async function rig(): Promise<{ h: GatewayHarness; fake: FakeSlack; url: string }> {
  const fake = await createFakeSlack({ botToken: BOT, appToken: 'xapp-unused' });
  const h = await startGatewayHarness({
    runtime: {
      config: {
        channels: {
          channels: {
            sl: {
              type: 'slack',
              botTokenEnv: 'SLACK_BOT',
              signingSecretEnv: 'SLACK_SIGNING',
              apiUrl: fake.apiUrl,
              dmPolicy: 'allowlist',
              allowFrom: ['U0101'],
              groups: [],
              operators: [],
            },
          },
        },
      },
      channels: { env: { SLACK_BOT: BOT, SLACK_SIGNING: SECRET } },
    },
  });
  open.push(async () => {
    await h.close();
    await fake.close();
  });
  return { h, fake, url: `${h.gateway.url}/channels/sl/events` };
}

function post(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

function signed(body: string, at = Math.floor(Date.now() / 1000), secret = SECRET): Record<string, string> {
  return { 'x-slack-request-timestamp': String(at), 'x-slack-signature': signSlackRequest(secret, String(at), body) };
}

function callback(fake: FakeSlack, text: string) {
  const message = fake.userSends({ channel: 'D0101', channelType: 'im', user: 'U0101', text });
  const body = JSON.stringify({
    type: 'event_callback',
    event_id: `Ev-${message.ts}`,
    event: { type: 'message', channel_type: 'im', channel: 'D0101', user: 'U0101', text, ts: message.ts },
  });
  return { message, body };
}

describe('Slack Events API over the gateway', () => {
  it('answers the URL verification challenge of a signed request, with no gateway token', async () => {
    const { url } = await rig();
    const body = JSON.stringify({ type: 'url_verification', challenge: 'abc123' });
    const res = await post(url, body, signed(body));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ challenge: 'abc123' });
  });

  it('refuses a bad signature, a stale timestamp and an unsigned request, queuing nothing', async () => {
    const { h, fake, url } = await rig();
    const { body } = callback(fake, 'forged');
    const now = Math.floor(Date.now() / 1000);
    const refusals = [
      await post(url, body, signed(body, now, 'not-the-secret')),
      await post(url, body, signed(body, now - 6 * 60)),
      await post(url, body, { 'x-slack-request-timestamp': String(now), 'x-slack-signature': 'v0=00' }),
      await post(url, body),
      // The signature covers the body: a changed body with a valid header is refused too.
      await post(url, body.replace('forged', 'tampered'), signed(body)),
    ];
    expect(refusals.map((res) => res.status)).toEqual([401, 401, 401, 401, 401]);
    expect(await refusals[1]!.json()).toEqual({ error: 'slack request refused: stale' });
    await h.advance(2_000, 100);
    expect(h.ofType('channel.received')).toEqual([]);
  });

  it('answers 200 once the message is durable; a retry makes no second turn; the reply is in the thread', async () => {
    const { h, fake, url } = await rig();
    await h.until(new Promise((resolve) => setTimeout(resolve, 50)));
    const { message, body } = callback(fake, 'hello over http');
    const first = await h.until(post(url, body, signed(body)));
    expect(first.status).toBe(200);
    expect(h.ofType('channel.received')).toEqual([expect.objectContaining({ channel: 'sl', messageId: message.ts })]);
    const retry = await h.until(
      post(url, body, { ...signed(body), 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' }),
    );
    expect(retry.status).toBe(200);
    await h.until(
      (async () => {
        while (fake.botMessages('D0101').every((each) => each.text === '…'))
          await new Promise((r) => setTimeout(r, 10));
      })(),
    );
    expect(h.ofType('channel.received')).toHaveLength(1);
    expect(fake.botMessages('D0101')).toEqual([
      expect.objectContaining({ threadTs: message.ts, history: ['…', expect.stringContaining('Hello')] }),
    ]);
  });

  it('has no events route for a channel that does not take them', async () => {
    const { h } = await rig();
    const res = await post(`${h.gateway.url}/channels/other/events`, '{}');
    expect(res.status).toBe(404);
  });
});
