/**
 * A channel's connection to its platform as one pure transition: connecting until the first call works, ok, failing
 * after a call failed (retried with backoff from one second doubling to a minute, CONTRACT §18), ok again. The
 * notices say which events the host emits: `channel.failing` once on leaving ok or connecting, `channel.recovered` on
 * the way back.
 */
import type { ChannelStateName } from '../../protocol/channels.schema.js';

/** The connection's state. */
export type LinkState =
  { state: 'connecting' } | { state: 'ok' } | { state: 'failing'; failures: number; error: string; wasOk: boolean };

/** What happened to a platform call. */
export type LinkInput = { type: 'succeeded' } | { type: 'failed'; error: string };

/** What the host announces after a transition. */
export type LinkNotice = 'failing' | 'recovered' | null;

/** The longest wait between two tries (CONTRACT §18: at most a minute apart). */
export const MAX_RETRY_MS = 60_000;
const FIRST_RETRY_MS = 1_000;

/** The state after `input`, and what to announce. */
export function linkTransition(link: LinkState, input: LinkInput): { link: LinkState; notice: LinkNotice } {
  if (input.type === 'succeeded') {
    return { link: { state: 'ok' }, notice: link.state === 'failing' ? 'recovered' : null };
  }
  if (link.state === 'failing') {
    return { link: { ...link, failures: link.failures + 1, error: input.error }, notice: null };
  }
  return {
    link: { state: 'failing', failures: 1, error: input.error, wasOk: link.state === 'ok' },
    notice: 'failing',
  };
}

/** How long to wait before the next try while failing. */
export function retryDelayMs(link: LinkState): number {
  if (link.state !== 'failing') return 0;
  return backoffMs(link.failures);
}

/** The wait after `failures` failures in a row: one second doubling, at most a minute. */
export function backoffMs(failures: number): number {
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(16, Math.max(0, failures - 1)));
}

/** The state's name in `channels.list`. */
export function linkStateName(link: LinkState): ChannelStateName {
  return link.state;
}
