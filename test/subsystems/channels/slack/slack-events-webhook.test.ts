/** Slack's request signing (pure, on an injected clock) and the Events API webhook's answers before it is connected. */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../../src/shared/logger.js';
import { SlackAdapter } from '../../../../src/subsystems/channels/slack/slack-adapter.js';
import { SlackEventsWebhook } from '../../../../src/subsystems/channels/slack/slack-events-webhook.js';
import { checkSlackSignature, signSlackRequest } from '../../../../src/subsystems/channels/slack/slack-signature.js';

const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const NOW = Date.parse('2026-03-01T10:00:00Z');
const AT = String(NOW / 1000);
const BODY = 'token=xyz&team_id=T1&command=%2Fweather';

describe('checkSlackSignature', () => {
  it('accepts Slack’s v0 signature within five minutes, either way', () => {
    const signature = signSlackRequest(SECRET, AT, BODY);
    expect(signature).toMatch(/^v0=[0-9a-f]{64}$/);
    expect(checkSlackSignature(SECRET, AT, signature, BODY, NOW)).toBe('ok');
    expect(checkSlackSignature(SECRET, AT, signature, BODY, NOW + 300_000)).toBe('ok');
    expect(checkSlackSignature(SECRET, AT, signature, BODY, NOW - 300_000)).toBe('ok');
  });

  it.each([
    ['a timestamp over five minutes old', AT, signSlackRequest(SECRET, AT, BODY), BODY, NOW + 301_000, 'stale'],
    ['another secret', AT, signSlackRequest('other', AT, BODY), BODY, NOW, 'bad_signature'],
    ['another body', AT, signSlackRequest(SECRET, AT, BODY), `${BODY}&x=1`, NOW, 'bad_signature'],
    [
      'a signature for another time',
      AT,
      signSlackRequest(SECRET, String(NOW / 1000 - 1), BODY),
      BODY,
      NOW,
      'bad_signature',
    ],
    ['no signature', AT, undefined, BODY, NOW, 'missing'],
    ['no timestamp', undefined, 'v0=00', BODY, NOW, 'missing'],
    ['a timestamp that is no number', '12a', 'v0=00', BODY, NOW, 'missing'],
  ])('refuses %s', (_what, at, signature, body, now, why) => {
    expect(checkSlackSignature(SECRET, at, signature, body, now)).toBe(why);
  });
});

describe('SlackEventsWebhook', () => {
  const headers = (body: string) => ({
    'x-slack-request-timestamp': AT,
    'x-slack-signature': signSlackRequest(SECRET, AT, body),
  });

  it('answers 503 (Slack sends it again) for an event that arrives before the adapter knows the bot', async () => {
    const adapter = new SlackAdapter({
      botToken: 'xoxb-x',
      signingSecret: SECRET,
      apiUrl: 'http://127.0.0.1:9/api/',
      log: silentLogger,
    });
    const body = JSON.stringify({
      type: 'event_callback',
      event: { type: 'message', channel: 'D1', user: 'U1', ts: '1.0' },
    });
    const webhook = new SlackEventsWebhook(
      SECRET,
      (payload, ack) => adapter.deliver(payload, ack),
      () => NOW,
    );
    expect(await webhook.handle({ headers: headers(body), body })).toMatchObject({ status: 503 });
  });

  it('refuses a stale request before reading it, and answers a URL verification', async () => {
    let delivered = 0;
    const webhook = new SlackEventsWebhook(
      SECRET,
      () => Promise.resolve(void delivered++),
      () => NOW + 600_000,
    );
    const body = JSON.stringify({ type: 'url_verification', challenge: 'c' });
    expect(await webhook.handle({ headers: headers(body), body })).toMatchObject({ status: 401 });
    const fresh = new SlackEventsWebhook(
      SECRET,
      () => Promise.resolve(void delivered++),
      () => NOW,
    );
    expect(await fresh.handle({ headers: headers(body), body })).toEqual({
      status: 200,
      body: '{"challenge":"c"}',
      contentType: 'application/json',
    });
    expect(delivered).toBe(0);
  });
});
