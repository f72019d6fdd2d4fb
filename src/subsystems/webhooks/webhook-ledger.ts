/**
 * The outbox's bookkeeping: every change of an endpoint's stored record (a lane's outcome, an operator's enable,
 * redeliver or remove, a gap) goes through the endpoint machine here, one at a time per endpoint, and is stored before
 * its notices are announced. The delivery loop (`webhook-outbox.ts`) only says what happened.
 */
import type { WebhookAttempt } from '../../protocol/webhooks.schema.js';
import { DEFAULT_BACKOFF } from './webhook-backoff.js';
import {
  endpointTransition,
  type EndpointInput,
  type EndpointNotice,
  type EndpointSettings,
} from './webhook-endpoint.machine.js';
import type { WebhookOutboxOptions } from './webhook-outbox-options.js';

/** The stored side of the outbox: serialised changes per endpoint, through the machine, then the notices. */
export class WebhookLedger {
  private readonly mutations = new Map<string, Promise<unknown>>();
  private readonly machine: EndpointSettings;

  constructor(private readonly options: Pick<WebhookOutboxOptions, 'store' | 'notifier' | 'settings' | 'random'>) {
    this.machine = {
      retryWindowMs: options.settings.retryWindowMs,
      backoff: options.settings.backoff ?? DEFAULT_BACKOFF,
      random: options.random ?? Math.random,
    };
  }

  /**
   * Applies `input` (or what it gives, made at that moment) to endpoint `id`'s latest record and stores it (with
   * `attempt`); then, in the same step, `afterSave` (a lane rewind) and the notices.
   */
  change(
    id: string,
    input: EndpointInput | (() => EndpointInput),
    attempt?: WebhookAttempt,
    afterSave?: () => void,
  ): Promise<void> {
    return this.mutate(id, async () => {
      const latest = this.options.store.get(id);
      if (latest === undefined) return;
      const applied = typeof input === 'function' ? input() : input;
      const { record, notices } = endpointTransition(latest, applied, this.machine);
      // A delivery that changes no state only moves the cursor: it counts at once and reaches the disk with the next
      // batch, so the next event goes out without waiting on a write (a crash before it repeats a few, as at least
      // once allows). Every state change is stored synced before it counts or is announced.
      if (
        applied.type === 'delivered' &&
        attempt !== undefined &&
        notices.length === 0 &&
        record.health.state === latest.health.state
      ) {
        this.options.store.advance(record, attempt);
        return;
      }
      await this.options.store.save(record, attempt);
      afterSave?.();
      for (const notice of notices) this.emitNotice(notice);
    });
  }

  /** Runs `fn` after every earlier change of endpoint `id`: a lane's outcome and an operator's change never interleave. */
  mutate(id: string, fn: () => Promise<void>): Promise<void> {
    const previous = this.mutations.get(id) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(fn);
    this.mutations.set(id, next);
    void next
      .finally(() => {
        if (this.mutations.get(id) === next) this.mutations.delete(id);
      })
      .catch(() => {});
    return next;
  }

  /** Waits out every change under way (failed ones too), then flushes the store's batch. */
  async settle(): Promise<void> {
    await Promise.all([...this.mutations.values()].map((pending) => pending.catch(() => {})));
    await this.options.store.flush();
  }

  private emitNotice(notice: EndpointNotice): void {
    switch (notice.type) {
      case 'webhook.failing':
        this.options.notifier.emit(notice.type, notice.payload);
        break;
      case 'webhook.disabled':
        this.options.notifier.emit(notice.type, notice.payload);
        break;
      case 'webhook.recovered':
        this.options.notifier.emit(notice.type, notice.payload);
        break;
    }
  }
}
