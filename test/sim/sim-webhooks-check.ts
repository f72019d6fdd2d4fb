/**
 * The webhook invariant, over a run's whole history: every journaled event of an endpoint's types reached its
 * receiver with a 2xx at least once, in seq order (no event answered 2xx while an earlier one it owed was not yet),
 * unless `webhook.gap` covers it, the endpoint was disabled (`webhook.disabled`, until the operator enabled it again)
 * or removed; and no webhook-id ever went out with two different bodies.
 */
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import type { Violation } from './sim-checker.js';
import type { SimHistory } from './sim-history.js';
import type { SimWebhookRequest } from './sim-webhook-receiver.js';

/** What the operator did to one endpoint (the simulator's own record; the runtime's view is `listed`). */
export interface SimEndpointRecord {
  /** The receiver's URL: one per endpoint, so requests belong to an endpoint by it. */
  url: string;
  types: string[];
  /** The id `webhooks.add` answered (null while the answer never came: the process died first). */
  id: string | null;
  /**
   * Every event above this seq is owed: the newest seq published when `webhooks.add` answered (or, unanswered, when
   * its incarnation ended: whatever the endpoint was created with, later incarnations only publish above it).
   */
  floorSeq: number;
  /** Operator actions on it, each with the newest seq published when it was asked for. */
  actions: {
    kind: 'remove' | 'enable' | 'redeliver';
    at: number;
    seqAtCall: number;
    afterSeq?: number;
    /** Whether it answered (its change is on disk). */
    done: boolean;
  }[];
}

/** The webhooks part of a run's history. */
export interface SimWebhooksHistory {
  requests: SimWebhookRequest[];
  endpoints: SimEndpointRecord[];
  /** Events above this seq are not checked: published after the drain found every backlog empty (the final stop). */
  checkedUpToSeq: number | null;
  /** Every endpoint as the runtime listed them right before the final stop (an add whose answer was lost shows here). */
  listed: { id: string; url: string; state: 'ok' | 'failing' | 'disabled' }[];
}

const INVARIANT_DELIVERED = 'every event of an endpoint is delivered, in seq order, or covered';
const INVARIANT_ONE_BODY = 'a webhook-id always carries the same body';

/** Both webhook invariants over `history`. */
export function checkWebhooks(history: SimHistory, all: Map<number, VigilEvent>): Violation[] {
  const { webhooks } = history;
  return [
    ...checkOneBodyPerId(webhooks.requests),
    ...webhooks.endpoints.flatMap((e) => checkEndpoint(history, all, e)),
  ];
}

function checkOneBodyPerId(requests: readonly SimWebhookRequest[]): Violation[] {
  const bodies = new Map<string, SimWebhookRequest>();
  const violations: Violation[] = [];
  for (const request of requests) {
    const first = bodies.get(request.webhookId);
    if (first === undefined) bodies.set(request.webhookId, request);
    else if (first.bodyDigest !== request.bodyDigest)
      violations.push({
        invariant: INVARIANT_ONE_BODY,
        detail: `webhook-id ${request.webhookId} went to ${first.url} with seq ${first.seq} (${first.type}) and to ${request.url} with seq ${request.seq} (${request.type}), another body`,
      });
  }
  return violations;
}

function checkEndpoint(history: SimHistory, all: Map<number, VigilEvent>, endpoint: SimEndpointRecord): Violation[] {
  const upTo = history.webhooks.checkedUpToSeq;
  if (upTo === null) return [];
  // An add whose answer was lost: the endpoint exists if the runtime lists it, and owes nothing if it does not.
  const id = endpoint.id ?? history.webhooks.listed.find((w) => w.url === endpoint.url)?.id ?? null;
  if (id === null) return [];
  const delivered = history.webhooks.requests
    .filter((r) => r.url === endpoint.url && r.answeredAt !== null && r.status !== null && r.status < 300)
    .filter((r) => r.type !== 'webhook.test')
    .sort((a, b) => a.answeredAt! - b.answeredAt!);
  const journaled = history.journal
    .filter((e) => e.seq > endpoint.floorSeq && e.seq <= upTo && matches(endpoint.types, e.type))
    .map((e) => e.seq);
  const covered = coverage(history, all, endpoint, id, journaled, delivered);
  const owed = journaled.filter((seq) => !covered(seq));
  const name = `endpoint ${id}${endpoint.id === null ? ' (its add unanswered)' : ''} ${endpoint.url} (types ${JSON.stringify(endpoint.types)}, owed after seq ${endpoint.floorSeq})`;
  const violations: Violation[] = [];
  // Walk the 2xx answers in the order they came: none may be for a seq above the oldest owed event not yet delivered.
  const got = new Set<number>();
  let oldest = 0;
  for (const request of delivered) {
    got.add(request.seq);
    while (oldest < owed.length && got.has(owed[oldest]!)) oldest += 1;
    const waiting = owed[oldest];
    if (waiting !== undefined && request.seq > waiting && !covered(request.seq))
      violations.push({
        invariant: INVARIANT_DELIVERED,
        detail: `${name}: seq ${request.seq} (${request.type}) was delivered at ${iso(request.answeredAt!)} before seq ${waiting}`,
      });
  }
  for (const seq of owed) {
    if (got.has(seq)) continue;
    violations.push({
      invariant: INVARIANT_DELIVERED,
      detail: `${name}: seq ${seq} (${all.get(seq)?.type ?? '?'}) never had a 2xx, and no webhook.gap, webhook.disabled or removal covers it`,
    });
  }
  return violations;
}

/**
 * Which seqs the endpoint no longer owes: from the oldest it had not received when its removal was asked for (when it
 * is gone at the end), inside every reported gap,
 * and from the event a `webhook.disabled` stopped it at, unless an enable asked for after it came back done (then the
 * endpoint resumes from its cursor and owes them all again).
 */
function coverage(
  history: SimHistory,
  all: Map<number, VigilEvent>,
  endpoint: SimEndpointRecord,
  id: string,
  owed: readonly number[],
  delivered: readonly SimWebhookRequest[],
): (seq: number) => boolean {
  const ranges: [number, number][] = [];
  const listed = history.webhooks.listed.find((w) => w.id === id);
  const removal = endpoint.actions.find((a) => a.kind === 'remove');
  // A removal drops what the endpoint had not received when it was asked for (its in-flight attempt is aborted).
  if (listed === undefined && removal !== undefined)
    ranges.push([stoppedAt(owed, delivered, removal.at), Number.POSITIVE_INFINITY]);
  for (const event of all.values()) {
    if (event.type === 'webhook.gap' && event.id === id) ranges.push([event.fromSeq, event.toSeq]);
    if (event.type !== 'webhook.disabled' || event.id !== id) continue;
    const at = Date.parse(event.at);
    const enabled = endpoint.actions.some((a) => a.kind === 'enable' && a.done && a.at >= at);
    if (!enabled) ranges.push([stoppedAt(owed, delivered, at), Number.POSITIVE_INFINITY]);
  }
  return (seq) => ranges.some(([from, to]) => from <= seq && seq <= to);
}

/**
 * Where an endpoint stopped at moment `at` (its `webhook.disabled` published, its removal asked for): the oldest event
 * it owed that had no 2xx by then (read from what the receiver got, not from the event's fields).
 */
function stoppedAt(owed: readonly number[], delivered: readonly SimWebhookRequest[], at: number): number {
  const before = new Set(delivered.filter((r) => r.answeredAt! <= at).map((r) => r.seq));
  return owed.find((seq) => !before.has(seq)) ?? Number.POSITIVE_INFINITY;
}

function matches(types: readonly string[], type: string): boolean {
  return types.some((t) => (t.endsWith('.*') ? type.startsWith(t.slice(0, -1)) : t === type));
}

const iso = (ms: number) => new Date(ms).toISOString();
