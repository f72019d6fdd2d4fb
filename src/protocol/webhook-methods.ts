/** The `webhooks.*` methods of the RPC catalogue (CONTRACT §16), part of `RPC_METHODS`. */
import { z } from 'zod';
import {
  AddedWebhookSchema,
  AddWebhookParamsSchema,
  WebhookAttemptSchema,
  WebhookDeliveriesParamsSchema,
  WebhookIdParamsSchema,
  WebhookRedeliverParamsSchema,
  WebhookViewSchema,
} from './webhooks.schema.js';
import { method, none } from './rpc-method-spec.js';

/** The webhooks methods, by name. */
export const WEBHOOK_METHODS = {
  'webhooks.add': method(
    'operate',
    'Adds a webhook endpoint: the events of its types journaled from now on are POSTed to it, signed (Standard Webhooks); the answer carries its signing secret, shown this once.',
    AddWebhookParamsSchema,
    AddedWebhookSchema,
    ['WEBHOOK_LIMIT', 'RUNTIME_STOPPED', 'STORE_IO'],
  ),
  'webhooks.list': method(
    'operate',
    'Every webhook endpoint: its types, state (ok, failing, disabled), cursor, backlog and last attempt; never the secret.',
    none,
    z.array(WebhookViewSchema),
  ),
  'webhooks.remove': method(
    'operate',
    'Removes a webhook endpoint and its attempt log; nothing more is sent to it.',
    WebhookIdParamsSchema,
    z.literal(true),
    ['WEBHOOK_NOT_FOUND', 'RUNTIME_STOPPED', 'STORE_IO'],
  ),
  'webhooks.enable': method(
    'operate',
    'Enables a webhook endpoint again (after webhook.disabled): ok, with a fresh retry window, delivering from its cursor at once.',
    WebhookIdParamsSchema,
    z.literal(true),
    ['WEBHOOK_NOT_FOUND', 'RUNTIME_STOPPED', 'STORE_IO'],
  ),
  'webhooks.test': method(
    'operate',
    'Sends a webhook.test event to that endpoint alone, now, and answers the attempt (status or error, duration).',
    WebhookIdParamsSchema,
    WebhookAttemptSchema,
    ['WEBHOOK_NOT_FOUND', 'RUNTIME_STOPPED', 'STORE_IO'],
  ),
  'webhooks.deliveries': method(
    'operate',
    "A webhook endpoint's newest delivery attempts, newest first: seq, webhook-id, attempt number, status or error, duration.",
    WebhookDeliveriesParamsSchema,
    z.array(WebhookAttemptSchema),
    ['WEBHOOK_NOT_FOUND'],
  ),
  'webhooks.redeliver': method(
    'operate',
    "Moves a webhook endpoint's cursor back: the events of its types after afterSeq go out again, in order (with their webhook-ids).",
    WebhookRedeliverParamsSchema,
    z.literal(true),
    ['WEBHOOK_NOT_FOUND', 'RUNTIME_STOPPED', 'STORE_IO'],
  ),
} as const;
