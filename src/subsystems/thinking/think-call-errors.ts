/**
 * How a failed model call becomes Vigil's THINK_FAILED / THINK_REJECTED / THINK_AUTH_FAILED / THINK_ABORTED error,
 * whatever the provider (CONTRACT §7): the HTTP status decides, and each error carries what was already spent.
 */
import { VigilError, describeError } from '../../errors.js';

/** What a failed call tells the caller: the HTTP status if any, and whether trying again later could succeed. */
export interface ThinkFailureData<P> {
  status: number | undefined;
  retryable: boolean;
  /** The usage and cost of the calls that completed before the failure (the failed call charges nothing). */
  partial: P;
}

/** A provider as its errors name it: `Anthropic`, `OpenAI-compatible`; and the variable its key is set in. */
export interface ProviderLabel {
  readonly name: string;
  readonly keyVariable: string;
}

/** A 2xx response that is not a model reply (no content, no choices); its usage cannot be trusted, so it charges nothing. */
export class MalformedResponseError extends Error {
  override readonly name = 'MalformedResponseError';
}

/** Statuses the SDKs retry themselves (timeouts, lock timeouts, rate limits, server errors and 529 overloaded). */
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
export function providerAbortedError<P>(provider: string, what: string, partial: P, reason: unknown): VigilError {
  return new VigilError('THINK_ABORTED', `The ${provider} ${what} was aborted: ${describeError(reason)}.`, {
    cause: reason,
    data: { partial },
  });
}

/** The error an HTTP status ends a call with (after the SDK's retries): auth, rejected for good, or failed. */
export function statusError<P>(
  provider: ProviderLabel,
  what: string,
  failure: { status: number; type: string; detail: string },
  partial: P,
  cause: unknown,
): VigilError {
  const { status, type, detail } = failure;
  const retryable = isRetryableStatus(status);
  const data: ThinkFailureData<P> = { status, retryable, partial };
  if (isAuthStatus(status)) {
    // Its own code, so the think.failed event and the log say plainly that the key is the problem.
    const message = `The ${provider.name} ${what} was refused (not retried): HTTP ${status} ${type}: ${detail}. Check ${provider.keyVariable}.`;
    return new VigilError('THINK_AUTH_FAILED', message, { cause, data });
  }
  if (isRejectedStatus(status)) {
    const message = `The ${provider.name} ${what} was rejected (not retried): HTTP ${status} ${type}: ${detail}`;
    return new VigilError('THINK_REJECTED', message, { cause, data });
  }
  const after = retryable ? ' after its retries' : ' (not retried)';
  return new VigilError(
    'THINK_FAILED',
    `The ${provider.name} ${what} failed${after}: HTTP ${status} ${type}: ${detail}`,
    { cause, data },
  );
}

/**
 * The error of a call that got no status: the API could not be reached (timeouts, dropped connections) or answered
 * with a malformed body. Like 5xx these may pass, so a later try may work; anything else is not retried.
 */
export function transportError<P>(
  provider: string,
  what: string,
  err: unknown,
  unreachable: boolean,
  partial: P,
): VigilError {
  const malformed = err instanceof SyntaxError || err instanceof MalformedResponseError;
  const data: ThinkFailureData<P> = { status: undefined, retryable: unreachable || malformed, partial };
  const kind = unreachable ? 'could not reach the API' : malformed ? 'got a malformed response' : 'failed';
  return new VigilError('THINK_FAILED', `The ${provider} ${what} ${kind}: ${describeError(err)}`, { cause: err, data });
}
