/** `events.subscribe`, `events.unsubscribe` and `events.history`. */
import type { RpcHandlers } from '../rpc-router.js';

/** The events method group. */
export const eventsMethods: RpcHandlers<'events.subscribe' | 'events.unsubscribe' | 'events.history'> = {
  'events.subscribe': (params, { subscriptions, afterResponse }) => subscriptions.subscribe(params, afterResponse),
  'events.unsubscribe': (params, { subscriptions }) => {
    subscriptions.unsubscribe(params.subscription);
    return true as const;
  },
  'events.history': (params, { runtime }) => runtime.history(params),
};
