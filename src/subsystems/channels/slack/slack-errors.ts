/**
 * Slack's answers as the channel core's failure kinds. The Web API says almost everything with HTTP 200 and an
 * `error` string; a 429 carries `Retry-After` (the client is told to reject it, never to wait or retry itself), and
 * no answer at all leaves a send's outcome unknown. No token ever reaches a message.
 */
import { ErrorCode, type WebAPICallError } from '@slack/web-api';
import { ChannelCallError } from '../channel-adapter.js';

// The token is refused, revoked or belongs to no workspace any more.
const UNAUTHORIZED = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'no_permission',
  'not_allowed_token_type',
  'team_access_not_granted',
]);
// The message to edit is not there to be edited: a new one takes its place.
const GONE = new Set(['message_not_found', 'cant_update_message', 'edit_window_closed']);
// Slack's own trouble: try again later (for a send, its outcome is unknown).
const UNREACHABLE = new Set(['internal_error', 'fatal_error', 'service_unavailable', 'request_timeout']);

/** `err` (from `@slack/web-api` or the network) as a `ChannelCallError`, `secrets` cut out of its message. */
export function slackFailure(method: string, err: unknown, secrets: readonly string[]): ChannelCallError {
  if (err instanceof ChannelCallError) return err;
  const redact = (text: string) =>
    secrets.reduce((out, secret) => (secret === '' ? out : out.split(secret).join('<token>')), text);
  const coded = err as Partial<WebAPICallError> & { message?: string };
  switch (coded.code) {
    case ErrorCode.RateLimitedError: {
      const seconds = (coded as { retryAfter?: number }).retryAfter ?? 1;
      return new ChannelCallError('rate_limited', `${method}: ratelimited (retry after ${seconds}s)`, seconds * 1000);
    }
    case ErrorCode.PlatformError: {
      const error = String((coded as { data?: { error?: string } }).data?.error ?? 'unknown_error');
      const said = redact(`${method}: ${error}`);
      if (UNAUTHORIZED.has(error)) return new ChannelCallError('unauthorized', said);
      if (GONE.has(error)) return new ChannelCallError('gone', said);
      if (UNREACHABLE.has(error)) return new ChannelCallError('unreachable', said);
      if (error === 'ratelimited') return new ChannelCallError('rate_limited', said, 1000);
      return new ChannelCallError('refused', said);
    }
    case ErrorCode.HTTPError: {
      const status = (coded as { statusCode?: number }).statusCode ?? 0;
      const said = redact(`${method}: HTTP ${status}`);
      if (status === 401 || status === 403) return new ChannelCallError('unauthorized', said);
      return new ChannelCallError(status >= 500 || status === 0 ? 'unreachable' : 'refused', said);
    }
    default: {
      const message = err instanceof Error ? err.message : String(err);
      return new ChannelCallError('unreachable', redact(`${method}: ${message}`));
    }
  }
}
