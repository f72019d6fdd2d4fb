/**
 * What the simulated operator does with webhooks, at seeded moments beside the clients' actions: adds endpoints (each
 * to a receiver URL of its own, for a few event types), removes, enables and tests them, redelivers from a seq; and
 * what the world does to the receivers: takes one down for a while, has one answer 410. In the drain the receivers
 * are calm, every disabled endpoint is enabled again, and the drain waits until every backlog is empty.
 */
import { describeError, isVigilError } from '../../src/errors.js';
import type { WebhookView } from '../../src/protocol/webhooks.schema.js';
import type { Incarnation } from './sim-incarnation.js';
import type { SimRandom } from './sim-random.js';
import type { SimRun } from './sim-run.js';
import type { SimWebhookReceiver } from './sim-webhook-receiver.js';
import type { SimEndpointRecord } from './sim-webhooks-check.js';

/** Endpoints one run adds at most. */
const MAX_ENDPOINTS = 3;
/** Type filters an endpoint is added with (never `webhook.*`: an endpoint's own notices would feed its backlog). */
const ENDPOINT_TYPES: readonly string[][] = [
  ['agent.reply', 'agent.unanswered'],
  ['agent.*'],
  ['tool.*', 'agent.reply'],
  ['heartbeat.beat'],
  ['schedule.*', 'checkpoint.*', 'agent.ack'],
  ['think.*', 'tool.completed'],
];

type WebhookActionKind = 'add' | 'remove' | 'enable' | 'redeliver' | 'test' | 'down' | 'gone' | 'comeBack';

/** The operator's webhook actions and the receivers' bad moments. */
export class SimWebhookActions {
  readonly endpoints: SimEndpointRecord[] = [];
  /**
   * The newest listing the drain has had back, and the incarnation it is of; one request at a time. A step that ends
   * before the answer keeps the previous answer: were it "not listed yet", that step would break the drain's quiet,
   * and a drain whose listings keep landing a step late would never end.
   */
  private listing: { incarnation: number; list: WebhookView[] } | null = null;
  /** The incarnation whose listing is being asked for (a dead one's may never answer: the next one asks again). */
  private listingFor: number | null = null;
  /** Endpoints the drain has asked to enable and not yet heard back about. */
  private readonly enabling = new Set<string>();

  constructor(
    private readonly run: SimRun,
    private readonly rng: SimRandom,
    private readonly receiver: SimWebhookReceiver,
  ) {}

  /** Perhaps one webhook action now (its own random stream: the clients' draws are not shifted by it). */
  maybeAct(incarnation: Incarnation): void {
    if (!this.run.scenario.webhooks || !this.rng.chance(0.25)) return;
    const live = this.endpoints.filter((e) => e.id !== null && !e.actions.some((a) => a.kind === 'remove'));
    const kind = this.rng.weighted<WebhookActionKind>({
      add: this.endpoints.length < MAX_ENDPOINTS ? (live.length === 0 ? 30 : 6) : 0,
      remove: live.length > 0 ? 1 : 0,
      enable: live.length > 0 ? 3 : 0,
      redeliver: live.length > 0 ? 3 : 0,
      test: live.length > 0 ? 2 : 0,
      down: this.endpoints.length > 0 ? 5 : 0,
      gone: this.endpoints.length > 0 ? 2 : 0,
      comeBack: this.endpoints.length > 0 ? 3 : 0,
    });
    this.perform(kind, incarnation, live);
  }

  /**
   * A drain step: every disabled endpoint is enabled again; null when every endpoint is ok with at most one event
   * outstanding (one in flight: a frequent type such as `heartbeat.beat` always has the newest on its way), else what
   * is still pending, in the words of the drain state. The checker then owes every event up to where the drain's
   * quiet began, which the quiet's ten seconds deliver (or the checker says which did not arrive).
   */
  drainPending(incarnation: Incarnation): string | null {
    if (!this.run.scenario.webhooks) return null;
    const { runtime } = incarnation;
    if (this.listingFor !== incarnation.number) {
      this.listingFor = incarnation.number;
      void runtime.webhooks
        .list()
        .then(
          (list) => (this.listing = { incarnation: incarnation.number, list }),
          () => undefined,
        )
        .finally(() => {
          if (this.listingFor === incarnation.number) this.listingFor = null;
        });
    }
    const listed = this.listing?.incarnation === incarnation.number ? this.listing.list : null;
    if (listed === null) return 'webhooks not listed yet';
    for (const hook of listed.filter((w) => w.state === 'disabled' && !this.enabling.has(w.id))) {
      this.enabling.add(hook.id);
      this.fire(incarnation, `drain webhooks.enable ${hook.id}`, this.record(hook.url), 'enable', () =>
        runtime.webhooks.enable(hook.id).finally(() => this.enabling.delete(hook.id)),
      );
    }
    const busy = listed.filter((w) => w.state !== 'ok' || w.backlog > 1);
    return busy.length === 0 ? null : busy.map((w) => `webhook ${w.id} ${w.state} backlog ${w.backlog}`).join(', ');
  }

  private perform(kind: WebhookActionKind, incarnation: Incarnation, live: SimEndpointRecord[]): void {
    const { rng, receiver } = this;
    const now = this.run.world.now();
    switch (kind) {
      case 'add':
        return this.add(incarnation);
      case 'remove': {
        const endpoint = rng.pick(live);
        return this.fire(incarnation, `webhooks.remove ${endpoint.id}`, endpoint, 'remove', () =>
          incarnation.runtime.webhooks.remove(endpoint.id!),
        );
      }
      case 'enable': {
        const endpoint = rng.pick(live);
        return this.fire(incarnation, `webhooks.enable ${endpoint.id}`, endpoint, 'enable', () =>
          incarnation.runtime.webhooks.enable(endpoint.id!),
        );
      }
      case 'redeliver': {
        const endpoint = rng.pick(live);
        // From a little before its own floor up to now: old events go out again, and ones it never owed.
        const afterSeq = Math.max(0, rng.int(endpoint.floorSeq - 20, incarnation.lastSeq()));
        return this.fire(
          incarnation,
          `webhooks.redeliver ${endpoint.id} after ${afterSeq}`,
          endpoint,
          'redeliver',
          () => incarnation.runtime.webhooks.redeliver(endpoint.id!, afterSeq),
          afterSeq,
        );
      }
      case 'test': {
        const endpoint = rng.pick(live);
        return this.fire(incarnation, `webhooks.test ${endpoint.id}`, endpoint, null, () =>
          incarnation.runtime.webhooks.test(endpoint.id!),
        );
      }
      case 'down': {
        const endpoint = rng.pick(this.endpoints);
        const ms = rng.int(2_000, 120_000);
        receiver.takeDown(endpoint.url, ms);
        this.note(incarnation, `receiver ${endpoint.url} down`, `for ${ms} ms`);
        return;
      }
      case 'gone': {
        const endpoint = rng.pick(this.endpoints);
        receiver.goAway(endpoint.url);
        this.note(incarnation, `receiver ${endpoint.url} answers 410`, `from ${new Date(now).toISOString()}`);
        return;
      }
      case 'comeBack': {
        const endpoint = rng.pick(this.endpoints);
        receiver.comeBack(endpoint.url);
        this.note(incarnation, `receiver ${endpoint.url} back`, 'answers again');
        return;
      }
    }
  }

  private add(incarnation: Incarnation): void {
    const url = `http://hook-${this.endpoints.length + 1}.sim.invalid/events`;
    const types = this.rng.pick(ENDPOINT_TYPES);
    const endpoint: SimEndpointRecord = { url, types, id: null, floorSeq: incarnation.lastSeq(), actions: [] };
    this.endpoints.push(endpoint);
    const action = this.note(incarnation, `webhooks.add ${url} ${JSON.stringify(types)}`, 'in flight');
    // Until it answers, everything the incarnation publishes may predate the endpoint: the floor follows it, and
    // stops where the answer came (or where the incarnation died).
    const follow = setFloor(endpoint, incarnation);
    incarnation.runtime.webhooks.add({ url, types, name: `sim ${this.endpoints.length}` }).then(
      (added) => {
        endpoint.id = added.id;
        follow.stop();
        action.outcome = 'ok';
      },
      (err: unknown) => {
        follow.stop();
        action.outcome = isVigilError(err) ? err.code : describeError(err);
      },
    );
  }

  /** Starts `work` without waiting; records the action on the endpoint (with the newest seq now) and its outcome. */
  private fire(
    incarnation: Incarnation,
    what: string,
    endpoint: SimEndpointRecord | undefined,
    kind: SimEndpointRecord['actions'][number]['kind'] | null,
    work: () => Promise<unknown>,
    afterSeq?: number,
  ): void {
    const action =
      endpoint === undefined || kind === null
        ? undefined
        : {
            kind,
            at: this.run.world.now(),
            seqAtCall: incarnation.lastSeq(),
            ...(afterSeq === undefined ? {} : { afterSeq }),
            done: false,
          };
    if (action !== undefined) endpoint!.actions.push(action);
    const record = this.note(incarnation, what, 'in flight');
    work().then(
      () => {
        record.outcome = 'ok';
        if (action !== undefined) action.done = true;
      },
      (err: unknown) => (record.outcome = isVigilError(err) ? err.code : describeError(err)),
    );
  }

  private record(url: string): SimEndpointRecord | undefined {
    return this.endpoints.find((e) => e.url === url);
  }

  private note(incarnation: Incarnation, action: string, outcome: string) {
    const record = { at: this.run.world.now(), incarnation: incarnation.number, action, outcome };
    this.run.history.actions.push(record);
    return record;
  }
}

/** Keeps `endpoint.floorSeq` at the incarnation's newest seq until `stop()` (the add answered, or never will). */
function setFloor(endpoint: SimEndpointRecord, incarnation: Incarnation): { stop(): void } {
  let stopped = false;
  const track = () => {
    if (stopped) return;
    endpoint.floorSeq = Math.max(endpoint.floorSeq, incarnation.lastSeq());
  };
  // The floor is read at the answer (or at the end of the run for an add that never answered): `lastSeq` then.
  void incarnation.died.then(track);
  return {
    stop: () => {
      track();
      stopped = true;
    },
  };
}
