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
  'webhooks.add': (params, { runtime }) => runtime.webhooks.add(params),
  'webhooks.list': (_params, { runtime }) => runtime.webhooks.list(),
  'webhooks.remove': (params, { runtime }) => runtime.webhooks.remove(params.id),
  'webhooks.enable': (params, { runtime }) => runtime.webhooks.enable(params.id),
  'webhooks.test': (params, { runtime }) => runtime.webhooks.test(params.id),
  'webhooks.deliveries': (params, { runtime }) => runtime.webhooks.deliveries(params.id, params.limit),
  'webhooks.redeliver': (params, { runtime }) => runtime.webhooks.redeliver(params.id, params.afterSeq),
};
