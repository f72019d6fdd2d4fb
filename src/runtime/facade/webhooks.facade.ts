/**
 * The facade's webhooks area (CONTRACT §16): `webhooks.add/list/remove/enable/test/deliveries/redeliver`, and the
 * outbox's lifecycle beside the heartbeat (woken by the bus, never awaited by it), with the journal's hold on what
 * enabled endpoints have not received.
 */
import { randomBytes } from 'node:crypto';
import type { Subscription } from 'rxjs';
import { VigilError } from '../../errors.js';
import type {
  AddedWebhook,
  AddWebhookParams,
  WebhookAttempt,
  WebhookRecord,
  WebhookView,
} from '../../protocol/webhooks.schema.js';
import { stateName } from '../../subsystems/webhooks/webhook-endpoint.machine.js';
import { failureClass } from '../../subsystems/webhooks/webhook-failure-class.js';
import {
  checkDestination,
  DestinationRefused,
  type DestinationPolicy,
  gatewayAddresses,
  maskUrlCredentials,
} from '../../subsystems/webhooks/webhook-destination.js';
import type { RuntimeCore } from '../runtime-core.js';
import type { WebhookDelivery, WebhookDeliveryModule } from '../../subsystems/webhooks/webhook-delivery.js';
import { loadWebhookDelivery } from '../../subsystems/webhooks/webhook-delivery-loader.js';

/** The most webhook endpoints a data dir holds. */
export const MAX_WEBHOOKS = 100;
/** `webhooks.deliveries` without a limit: the newest 50 attempts. */
export const DEFAULT_DELIVERIES_LIMIT = 50;

const HOUR_MS = 3_600_000;

/** Webhook endpoints as the facade offers them; the outbox behind delivers. */
export class WebhooksFacade {
  // The outbox and its retry thread, loaded with their module only once there is an endpoint to deliver to: at boot
  // when the store holds one, else at the first `webhooks.add` (before its record is stored, so an endpoint is never
  // stored without an outbox behind it).
  private delivery: WebhookDelivery | undefined;
  private loading: Promise<WebhookDelivery> | undefined;
  private started = false;
  private subscription: Subscription | undefined;
  // Where a webhook may post (CONTRACT §16); the gateway's own addresses grow once it listens (`useGatewayUrl`).
  private readonly policy: DestinationPolicy;
  private ownAddresses: string[];

  constructor(private readonly core: RuntimeCore) {
    const { webhooks, journal } = core.parts;
    const { settings } = webhooks;
    this.ownAddresses = settings.gatewayUrls.flatMap(gatewayAddresses);
    this.policy = {
      allowPrivate: settings.allowPrivate,
      ownAddresses: () => this.ownAddresses,
      ...(settings.resolve === undefined ? {} : { resolve: settings.resolve }),
    };
    if (webhooks.delivery !== undefined) this.delivery = this.createDelivery(webhooks.delivery);
    // Without an outbox there is no endpoint: nothing to hold and nothing to drop for (as the outbox itself answers).
    journal.useHold(
      {
        keepAfter: () => this.delivery?.outbox.receivedThrough('enabled') ?? null,
        receivedThrough: () => this.delivery?.outbox.receivedThrough('all') ?? null,
        dropping: async (events) => this.delivery?.outbox.dropping(events),
      },
      settings.backlogMax,
    );
  }

  /** Starts delivering (after the heartbeat started): every endpoint resumes from its stored cursor. */
  start(): void {
    this.started = true;
    if (this.delivery !== undefined) this.startDelivery(this.delivery);
  }

  /** Stops delivering: attempts in flight are aborted (they go out again after a restart). */
  async stop(): Promise<void> {
    this.started = false;
    this.subscription?.unsubscribe();
    this.subscription = undefined;
    // A load under way finishes first: its outbox is then stopped like one loaded at boot.
    const delivery = this.delivery ?? (await this.loading);
    if (delivery === undefined) return;
    await delivery.outbox.stop();
    await delivery.thread?.close();
  }

  /** The gateway listens at `url`: a webhook may not post there (nor to the same port on this machine's addresses). */
  useGatewayUrl(url: string): void {
    this.ownAddresses = [...new Set([...this.ownAddresses, ...gatewayAddresses(url)])];
  }

  /**
   * `webhooks.add`: stored synced; it receives the events of its types journaled from now on. A destination the policy
   * refuses (a private address, the gateway) is `-32602` naming `url`.
   */
  async add(params: AddWebhookParams): Promise<AddedWebhook> {
    this.core.assertRunning();
    await this.checkUrl(params.url);
    const { store } = this.core.parts.webhooks;
    if (store.list().length >= MAX_WEBHOOKS) {
      throw new VigilError(
        'WEBHOOK_LIMIT',
        `At most ${MAX_WEBHOOKS} webhook endpoints may be stored; remove one first.`,
        {
          data: { limit: MAX_WEBHOOKS },
        },
      );
    }
    const { outbox, newWebhookSecret } = await this.load();
    const now = this.core.parts.clock.now();
    const record: WebhookRecord = {
      id: `wh_${randomBytes(8).toString('hex')}`,
      name: params.name ?? new URL(params.url).host,
      url: params.url,
      types: [...params.types],
      secret: newWebhookSecret(),
      createdAt: now,
      windowFloorAt: now,
      // From now on: what was journaled before the endpoint existed is not its backlog (redeliver sends it if wanted).
      deliveredSeq: await this.core.parts.journal.lastSeq(),
      health: { state: 'ok' },
    };
    await store.save(record);
    outbox.added(record);
    return {
      id: record.id,
      name: record.name,
      url: maskUrlCredentials(record.url),
      types: record.types,
      secret: record.secret,
      state: stateName(record.health),
      createdAt: new Date(record.createdAt).toISOString(),
    };
  }

  /** `webhooks.list`: every endpoint, oldest first, with its backlog; never the secret. */
  async list(): Promise<WebhookView[]> {
    const views: WebhookView[] = [];
    for (const record of this.core.parts.webhooks.store.list()) {
      views.push({
        id: record.id,
        name: record.name,
        url: maskUrlCredentials(record.url),
        types: record.types,
        state: stateName(record.health),
        deliveredSeq: record.deliveredSeq,
        backlog: await (await this.load()).outbox.backlog(record),
        lastAttemptAt: record.lastAttemptAt === undefined ? null : new Date(record.lastAttemptAt).toISOString(),
        lastStatus: record.lastStatus ?? null,
        lastReason: record.health.state === 'ok' ? null : failureClass(record.health.error, record.lastStatus),
      });
    }
    return views;
  }

  /** `webhooks.remove`: true; nothing more goes to it. */
  async remove(id: string): Promise<true> {
    this.core.assertRunning();
    this.find(id);
    await (await this.load()).outbox.remove(id);
    return true;
  }

  /** `webhooks.enable`: true; ok again with a fresh retry window, delivering from its cursor at once. */
  async enable(id: string): Promise<true> {
    this.core.assertRunning();
    this.find(id);
    await (await this.load()).outbox.enable(id);
    return true;
  }

  /** `webhooks.test`: the attempt of a `webhook.test` event sent to this endpoint alone, now. */
  async test(id: string): Promise<WebhookAttempt> {
    this.core.assertRunning();
    const record = this.find(id);
    return (await this.load()).outbox.test(id, record);
  }

  /** `webhooks.deliveries`: the newest attempts, newest first. */
  deliveries(id: string, limit = DEFAULT_DELIVERIES_LIMIT): Promise<WebhookAttempt[]> {
    this.find(id);
    return this.core.parts.webhooks.store.attempts(id, limit);
  }

  /** `webhooks.redeliver`: true; the events of its types after `afterSeq` go out again, in order. */
  async redeliver(id: string, afterSeq: number): Promise<true> {
    this.core.assertRunning();
    this.find(id);
    await (await this.load()).outbox.redeliver(id, afterSeq);
    return true;
  }

  /** The outbox (and `newWebhookSecret`), loading the delivery module at the first call; started if the facade is. */
  private async load(): Promise<WebhookDelivery & Pick<WebhookDeliveryModule, 'newWebhookSecret'>> {
    const module = await loadWebhookDelivery();
    if (this.delivery === undefined) {
      this.loading ??= Promise.resolve(this.createDelivery(module));
      const delivery = await this.loading;
      if (this.delivery === undefined) {
        this.delivery = delivery;
        if (this.started) this.startDelivery(delivery);
      }
    }
    return { ...this.delivery, newWebhookSecret: module.newWebhookSecret };
  }

  private createDelivery(module: WebhookDeliveryModule): WebhookDelivery {
    const { webhooks, journal, bus, clock, metrics, log } = this.core.parts;
    const { settings } = webhooks;
    return module.createWebhookDelivery(
      {
        store: webhooks.store,
        events: { read: (after, types, limit) => journal.query({ after, types, limit }) },
        post: settings.post,
        clock,
        notifier: bus,
        settings: {
          timeoutMs: settings.timeoutMs,
          retryWindowMs: settings.retryHours * HOUR_MS,
          ...(settings.backoff === undefined ? {} : { backoff: settings.backoff }),
        },
        ...(settings.random === undefined ? {} : { random: settings.random }),
        metrics,
        log,
        beat: () => this.core.context().beatCount,
      },
      this.policy,
    );
  }

  private startDelivery(delivery: WebhookDelivery): void {
    this.subscription = this.core.parts.bus.events$.subscribe((event) => delivery.outbox.notify(event));
    delivery.outbox.start();
  }

  private async checkUrl(url: string): Promise<void> {
    try {
      await checkDestination(url, this.policy);
    } catch (err) {
      if (!(err instanceof DestinationRefused)) throw err;
      throw new VigilError('RPC_INVALID_PARAMS', `Invalid params for webhooks.add: url: ${err.message}.`, {
        data: [{ code: 'custom', path: ['url'], message: err.message }],
      });
    }
  }

  private find(id: string): WebhookRecord {
    const record = this.core.parts.webhooks.store.get(id);
    if (record === undefined) {
      throw new VigilError('WEBHOOK_NOT_FOUND', `No webhook endpoint has the id ${JSON.stringify(id)}.`, {
        data: { id },
      });
    }
    return record;
  }
}
