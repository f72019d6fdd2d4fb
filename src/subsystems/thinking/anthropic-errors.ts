/** Turns Anthropic SDK failures into Vigil's THINK_FAILED / THINK_REJECTED / THINK_AUTH_FAILED / THINK_ABORTED errors (think-call-errors.ts). */
import { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type { VigilError } from '../../errors.js';
import { StreamStalledError } from './buffered-fetch.js';
import { providerAbortedError, statusError, transportError, type ProviderLabel } from './think-call-errors.js';

export {
  MalformedResponseError,
  isAuthStatus,
  isRejectedStatus,
  isRetryableStatus,
  type ThinkFailureData,
} from './think-call-errors.js';

const ANTHROPIC: ProviderLabel = { name: 'Anthropic', keyVariable: 'ANTHROPIC_API_KEY' };

/** THINK_ABORTED for `what`, with the partial result of the calls that completed. */
export function abortedError<P>(what: string, partial: P, reason: unknown): VigilError {
  return providerAbortedError(ANTHROPIC.name, what, partial, reason);
}

/** The Vigil error for an SDK call that threw after its retries: THINK_ABORTED when aborted, THINK_FAILED otherwise. */
export function callError<P>(err: unknown, what: string, signal: AbortSignal, partial: P): VigilError {
  if (err instanceof APIUserAbortError || signal.aborted) return abortedError(what, partial, signal.reason ?? err);
  // `instanceof` leaves the class's type parameters as any: the status is a number here, or the error has none.
  const status: unknown = err instanceof APIError ? err.status : undefined;
  if (err instanceof APIError && typeof status === 'number') {
    return statusError(
      ANTHROPIC,
      what,
      { status, type: err.type ?? 'unknown_error', detail: err.apiMessage ?? err.message },
      partial,
      err,
    );
  }
  // A stream that stalled or sent an error event mid-reply (an APIError without a status) may pass like a dropped connection.
  const unreachable = err instanceof APIConnectionError || err instanceof StreamStalledError || err instanceof APIError;
  return transportError(ANTHROPIC.name, what, err, unreachable, partial);
}
