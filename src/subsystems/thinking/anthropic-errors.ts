/** Turns Anthropic SDK failures into Vigil's THINK_FAILED / THINK_REJECTED / THINK_AUTH_FAILED / THINK_ABORTED errors, carrying what was already spent. */
import { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import { VigilError, describeError } from '../../errors.js';

/** What a failed call tells the caller: the HTTP status if any, and whether trying again later could succeed. */
export interface ThinkFailureData<P> {
  status: number | undefined;
  retryable: boolean;
  /** The usage and cost of the calls that completed before the failure (the failed call charges nothing). */
  partial: P;
}

/** A 2xx response that is not a Message (no content array); its usage cannot be trusted, so it charges nothing. */
export class MalformedResponseError extends Error {
  override readonly name = 'MalformedResponseError';
}

/** Statuses the SDK retries itself (timeouts, lock timeouts, rate limits, server errors and 529 overloaded). */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * Statuses that refuse the request itself for good: 400 invalid (e.g. "prompt is too long"), 404 unknown model, 413
 * too large, 422 unprocessable. The same request can never succeed, so it ends the turns it carried.
 */
export function isRejectedStatus(status: number): boolean {
  return status === 400 || status === 404 || status === 413 || status === 422;
}

/** Statuses that say the credentials were refused: no retry, by the SDK or by the next beat, can fix them. */
export function isAuthStatus(status: number): boolean {
  return status === 401 || status === 403;
}

/** THINK_ABORTED for `what`, with the partial result of the calls that completed. */
export function abortedError<P>(what: string, partial: P, reason: unknown): VigilError {
  return new VigilError('THINK_ABORTED', `The Anthropic ${what} was aborted: ${describeError(reason)}.`, {
    cause: reason,
    data: { partial },
  });
}

/** The Vigil error for an SDK call that threw after its retries: THINK_ABORTED when aborted, THINK_FAILED otherwise. */
export function callError<P>(err: unknown, what: string, signal: AbortSignal, partial: P): VigilError {
  if (err instanceof APIUserAbortError || signal.aborted) return abortedError(what, partial, signal.reason ?? err);
  // `instanceof` leaves the class's type parameters as any: the status is a number here, or the error has none.
  const status: unknown = err instanceof APIError ? err.status : undefined;
  if (err instanceof APIError && typeof status === 'number') {
    const type = err.type ?? 'unknown_error';
    const detail = err.apiMessage ?? err.message;
    const retryable = isRetryableStatus(status);
    const data: ThinkFailureData<P> = { status, retryable, partial };
    const after = retryable ? ' after its retries' : ' (not retried)';
    if (isAuthStatus(status)) {
      // Its own code, so the think.failed event and the log say plainly that the key is the problem.
      const message = `The Anthropic ${what} was refused (not retried): HTTP ${status} ${type}: ${detail}. Check ANTHROPIC_API_KEY.`;
      return new VigilError('THINK_AUTH_FAILED', message, { cause: err, data });
    }
    if (isRejectedStatus(status)) {
      const message = `The Anthropic ${what} was rejected (not retried): HTTP ${status} ${type}: ${detail}`;
      return new VigilError('THINK_REJECTED', message, { cause: err, data });
    }
    return new VigilError('THINK_FAILED', `The Anthropic ${what} failed${after}: HTTP ${status} ${type}: ${detail}`, {
      cause: err,
      data,
    });
  }
  // Timeouts, dropped connections and garbled bodies have no status; like 5xx they may pass, so a later try may work.
  const unreachable = err instanceof APIConnectionError;
  const malformed = err instanceof SyntaxError || err instanceof MalformedResponseError;
  const data: ThinkFailureData<P> = { status: undefined, retryable: unreachable || malformed, partial };
  const kind = unreachable ? 'could not reach the API' : malformed ? 'got a malformed response' : 'failed';
  return new VigilError('THINK_FAILED', `The Anthropic ${what} ${kind}: ${describeError(err)}`, { cause: err, data });
}
