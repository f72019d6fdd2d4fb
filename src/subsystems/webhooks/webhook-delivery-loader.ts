/** The webhook outbox's module, loaded at boot for a data dir with an endpoint or at the first `webhooks.add`. */
import { loadOnce } from '../../shared/load-once.js';

export const loadWebhookDelivery = loadOnce(() => import('./webhook-delivery.js'));
