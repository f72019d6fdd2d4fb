import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import type { VigilEvent } from '../../../src/protocol/events.schema.js';
import {
  newWebhookSecret,
  webhookBody,
  webhookMessageId,
  WebhookSigner,
} from '../../../src/subsystems/webhooks/webhook-signing.js';
import { WebhookSecretSchema } from '../../../src/protocol/webhooks.schema.js';

const event = {
  seq: 42,
  type: 'agent.reply',
  at: '2026-01-01T00:00:00.000Z',
  beat: 3,
  turnId: 't1',
  text: 'hi',
} as VigilEvent;

describe('webhook signing', () => {
  it('signs so that the standardwebhooks verifier accepts the body and refuses a changed one', () => {
    const secret = newWebhookSecret();
    expect(WebhookSecretSchema.safeParse(secret).success).toBe(true);
    const body = webhookBody(event);
    const id = webhookMessageId(event.seq, body);
    const headers = new WebhookSigner(secret).headers(id, Date.now(), body);
    expect(headers['content-type']).toBe('application/json');
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body.replace('hi', 'ho'), { ...headers })).toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, { ...headers })).toThrow();
  });

  it('gives one event the same id on every attempt and two events with one seq different ids', () => {
    const body = webhookBody(event);
    expect(webhookMessageId(42, body)).toBe(webhookMessageId(42, webhookBody({ ...event })));
    expect(webhookMessageId(42, body)).toMatch(/^evt_42_[0-9a-f]{16}$/);
    const other = webhookBody({ ...event, text: 'another event after a restore' } as VigilEvent);
    expect(webhookMessageId(42, other)).not.toBe(webhookMessageId(42, body));
  });

  it('sends the event as the feed carries it', () => {
    expect(webhookBody(event)).toBe(JSON.stringify(event));
  });
});
