/** Turns OpenAI SDK failures into Vigil's THINK_FAILED / THINK_REJECTED / THINK_AUTH_FAILED / THINK_ABORTED errors (think-call-errors.ts). */
import { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import type { VigilError } from '../../errors.js';
import { StreamStalledError } from './buffered-fetch.js';
import { providerAbortedError, statusError, transportError, type ProviderLabel } from './think-call-errors.js';

/** How errors name the provider: any server speaking Chat Completions, OpenAI's own or a local one. */
export const OPENAI_COMPATIBLE: ProviderLabel = { name: 'OpenAI-compatible', keyVariable: 'OPENAI_API_KEY' };

/** THINK_ABORTED for `what`, with the partial result of the calls that completed. */
export function openaiAbortedError<P>(what: string, partial: P, reason: unknown): VigilError {
  return providerAbortedError(OPENAI_COMPATIBLE.name, what, partial, reason);
}

/** What the error body says, when it says it as `{error: {message}}` (OpenAI and most compatible servers). */
function detailOf(body: unknown, fallback: string): string {
  const message = (body as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' ? message : fallback;
}

/** The Vigil error for an SDK call that threw after its retries: THINK_ABORTED when aborted, THINK_FAILED otherwise. */
export function openaiCallError<P>(err: unknown, what: string, signal: AbortSignal, partial: P): VigilError {
  if (err instanceof APIUserAbortError || signal.aborted)
    return openaiAbortedError(what, partial, signal.reason ?? err);
  if (err instanceof APIError && typeof err.status === 'number') {
    const failure = {
      status: err.status,
      type: err.type ?? err.code ?? 'unknown_error',
      detail: detailOf(err.error, err.message),
    };
    return statusError(OPENAI_COMPATIBLE, what, failure, partial, err);
  }
  // A stream that stalled or sent an error event mid-reply (an APIError without a status) may pass like a dropped connection.
  const unreachable = err instanceof APIConnectionError || err instanceof StreamStalledError || err instanceof APIError;
  return transportError(OPENAI_COMPATIBLE.name, what, err, unreachable, partial);
}
