/**
 * Which journaled events an endpoint receives: those its types match (as `events.subscribe` matches them), except
 * that Vigil's own `webhook.*` events go only to an endpoint whose types name them (`webhook.*`, `webhook.gap`; a bare
 * `*` does not), never to the endpoint they are about, and `webhook.test` never through the journal. So an endpoint's
 * failures cannot feed its own backlog, and no webhook event loops.
 */
import { typeMatcher } from '../../events/event-filter.js';
import type { VigilEvent } from '../../protocol/events.schema.js';
import type { WebhookRecord } from '../../protocol/webhooks.schema.js';

/** A predicate over journaled events: true for each event endpoint `record` should receive. */
export function webhookEventMatcher(record: Pick<WebhookRecord, 'id' | 'types'>): (event: VigilEvent) => boolean {
  const matches = typeMatcher(record.types);
  const namesWebhookEvents = record.types.some((pattern) => pattern.startsWith('webhook.'));
  return (event) => {
    if (event.type.startsWith('webhook.')) {
      if (!namesWebhookEvents || event.type === 'webhook.test') return false;
      if ((event as { id?: unknown }).id === record.id) return false;
    }
    return matches(event.type);
  };
}
