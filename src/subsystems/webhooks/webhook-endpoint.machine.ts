/**
 * An endpoint's delivery state machine, pure and total: what one attempt's outcome (or an operator's enable or
 * redeliver) does to the stored record, and which `webhook.*` notices that change calls for. No I/O, no clock, no
 * randomness of its own: time and the jitter arrive with the input and the settings.
 */
import type { WebhookHealth, WebhookRecord, WebhookStateName } from '../../protocol/webhooks.schema.js';
import { retryDelayMs, type BackoffSettings } from './webhook-backoff.js';
import { failureClass } from './webhook-failure-class.js';

/** What happened to an endpoint. */
export type EndpointInput =
  /** Event `seq` had a 2xx; `advance` is false when the cursor moved under the attempt (redeliver, gap) and must stay. */
  | { type: 'delivered'; seq: number; at: number; status: number; advance: boolean }
  /** An attempt at event `seq` (journaled at `eventAt`) failed: a non-2xx `status`, or no answer at all (`error`). */
  | { type: 'failed'; seq: number; at: number; eventAt: number; error: string; status?: number }
  /** `webhooks.enable`: deliveries resume now, with a fresh retry window. */
  | { type: 'enabled'; at: number }
  /** `webhooks.redeliver`: the cursor goes back to `afterSeq` (never forward: nothing is skipped), tried now. */
  | { type: 'redeliver'; afterSeq: number; at: number }
  /** Events up to `throughSeq` were covered by `webhook.gap` (the journal could not keep them): the cursor passes them. */
  | { type: 'skipped'; throughSeq: number };

/** The notices a transition calls for; the host emits them as events once the record is stored. */
export type EndpointNotice =
  | { type: 'webhook.failing'; payload: { id: string; error: string } }
  | { type: 'webhook.disabled'; payload: { id: string; failedSeq: number; error: string } }
  | { type: 'webhook.recovered'; payload: { id: string } };

/** What the transition needs beyond the record and the input. */
export interface EndpointSettings {
  /** VIGIL_WEBHOOK_RETRY_HOURS in ms: how long past the oldest undelivered event's window start retries go on. */
  retryWindowMs: number;
  backoff: BackoffSettings;
  /** The jitter's source, in [0, 1). */
  random: () => number;
}

/** The next record, and the notices to emit once it is stored. */
export interface EndpointTransition {
  record: WebhookRecord;
  notices: EndpointNotice[];
}

/** The state name `webhooks.list` shows. */
export function stateName(health: WebhookHealth): WebhookStateName {
  return health.state;
}

/** True when the endpoint takes deliveries (ok or failing), false when disabled. */
export function isEnabled(record: WebhookRecord): boolean {
  return record.health.state !== 'disabled';
}

const OK: WebhookHealth = { state: 'ok' };

/** The one transition: `record` after `input`. */
export function endpointTransition(
  record: WebhookRecord,
  input: EndpointInput,
  settings: EndpointSettings,
): EndpointTransition {
  switch (input.type) {
    case 'delivered':
      return delivered(record, input);
    case 'failed':
      return failed(record, input, settings);
    case 'enabled':
      return {
        record: fresh({ ...record, health: OK, windowFloorAt: Math.max(record.windowFloorAt, input.at) }),
        notices: [],
      };
    case 'redeliver':
      return {
        record: fresh({
          ...record,
          deliveredSeq: Math.min(record.deliveredSeq, input.afterSeq),
          // Old events sent again get a retry window of their own, starting now.
          windowFloorAt: Math.max(record.windowFloorAt, input.at),
        }),
        notices: [],
      };
    case 'skipped':
      if (input.throughSeq <= record.deliveredSeq) return { record, notices: [] };
      return { record: { ...record, deliveredSeq: input.throughSeq, windowFrom: undefined }, notices: [] };
  }
}

function delivered(record: WebhookRecord, input: Extract<EndpointInput, { type: 'delivered' }>): EndpointTransition {
  const seen = { ...record, lastAttemptAt: input.at, lastStatus: input.status };
  // An attempt that was in flight when the endpoint was disabled (or enabled afresh) changes no state.
  if (record.health.state === 'disabled') return { record: seen, notices: [] };
  const notices: EndpointNotice[] =
    record.health.state === 'failing' ? [{ type: 'webhook.recovered', payload: { id: record.id } }] : [];
  const deliveredSeq = input.advance ? Math.max(record.deliveredSeq, input.seq) : record.deliveredSeq;
  return { record: fresh({ ...seen, health: OK, deliveredSeq }), notices };
}

function failed(
  record: WebhookRecord,
  input: Extract<EndpointInput, { type: 'failed' }>,
  settings: EndpointSettings,
): EndpointTransition {
  const seen = { ...record, lastAttemptAt: input.at, lastStatus: input.status };
  if (record.health.state === 'disabled') return { record: seen, notices: [] };
  const windowFrom = record.windowFrom ?? Math.max(input.eventAt, record.windowFloorAt);
  // 410 Gone is the receiver saying it wants no more (the Standard Webhooks convention): disabled at once.
  const gone = input.status === 410;
  if (gone || input.at - windowFrom >= settings.retryWindowMs) {
    const error = gone ? `${input.error} (410 Gone disables the endpoint at once)` : input.error;
    return {
      record: {
        ...seen,
        health: { state: 'disabled', seq: input.seq, error },
        windowFrom,
        nextAttemptAt: undefined,
      },
      // The event says why in a class, as webhook.failing does; the record (webhooks.list, operate) keeps the error.
      notices: [
        {
          type: 'webhook.disabled',
          payload: { id: record.id, failedSeq: input.seq, error: failureClass(input.error, input.status) },
        },
      ],
    };
  }
  const previous = record.health;
  const failures = previous.state === 'failing' ? previous.failures + 1 : 1;
  const since = previous.state === 'failing' ? previous.since : input.at;
  const notices: EndpointNotice[] =
    previous.state === 'ok'
      ? // A reason class, not the error: the journal is read-scope, the full error is in webhooks.deliveries (operate).
        [{ type: 'webhook.failing', payload: { id: record.id, error: failureClass(input.error, input.status) } }]
      : [];
  return {
    record: {
      ...seen,
      health: { state: 'failing', failures, since, error: input.error },
      windowFrom,
      nextAttemptAt: input.at + retryDelayMs(failures, settings.random, settings.backoff),
    },
    notices,
  };
}

/** The record with no retry pending and no window open: the next undelivered event starts both afresh. */
function fresh(record: WebhookRecord): WebhookRecord {
  return { ...record, windowFrom: undefined, nextAttemptAt: undefined };
}
