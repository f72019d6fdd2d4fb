/**
 * Whether the embeddings endpoint answers, as the background filler sees it: up, or down since a time with a count of
 * failures that sets the next retry's delay (doubling from 1 s to 5 min). One transition function; the filler logs
 * only where the state changes (down once, back up once), never a line per record.
 */

/** The endpoint's state. */
export type EndpointHealth = { state: 'up' } | { state: 'down'; since: number; failures: number };

/** What happened to a request. */
export type EndpointEvent = { type: 'succeeded' } | { type: 'failed'; at: number };

/** The first retry's delay, and the longest. */
export const FIRST_RETRY_MS = 1_000;
export const MAX_RETRY_MS = 5 * 60_000;

/** The state after `event`. */
export function nextHealth(health: EndpointHealth, event: EndpointEvent): EndpointHealth {
  if (event.type === 'succeeded') return { state: 'up' };
  return health.state === 'up'
    ? { state: 'down', since: event.at, failures: 1 }
    : { ...health, failures: health.failures + 1 };
}

/** How long to wait before trying a down endpoint again (0 when it is up). */
export function retryDelayMs(health: EndpointHealth): number {
  if (health.state === 'up') return 0;
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(health.failures - 1, 20));
}
