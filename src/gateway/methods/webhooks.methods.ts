/** `webhooks.add`, `.list`, `.remove`, `.enable`, `.test`, `.deliveries`, `.redeliver` (CONTRACT §16). */
import type { RpcHandlers } from '../rpc-router.js';

/** The webhooks method group. */
export const webhooksMethods: RpcHandlers<
  | 'webhooks.add'
  | 'webhooks.list'
  | 'webhooks.remove'
  | 'webhooks.enable'
  | 'webhooks.test'
  | 'webhooks.deliveries'
  | 'webhooks.redeliver'
> = {
  'webhooks.add': (params, { runtime }) => runtime.addWebhook(params),
  'webhooks.list': (_params, { runtime }) => runtime.listWebhooks(),
  'webhooks.remove': (params, { runtime }) => runtime.removeWebhook(params.id),
  'webhooks.enable': (params, { runtime }) => runtime.enableWebhook(params.id),
  'webhooks.test': (params, { runtime }) => runtime.testWebhook(params.id),
  'webhooks.deliveries': (params, { runtime }) => runtime.webhookDeliveries(params.id, params.limit),
  'webhooks.redeliver': (params, { runtime }) => runtime.redeliverWebhook(params.id, params.afterSeq),
};
