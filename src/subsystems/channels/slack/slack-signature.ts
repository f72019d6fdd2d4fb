/**
 * Slack's request signing (v0), pure: `X-Slack-Signature` is `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{body}` under
 * the app's signing secret, and `X-Slack-Request-Timestamp` must be within five minutes of now, so a request is the
 * app's own and a recorded one cannot be replayed later.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a request's timestamp may be from now (Slack's advice: five minutes). */
export const SLACK_SIGNATURE_MAX_AGE_S = 300;

/** Why a request is refused, or `ok`. */
export type SlackSignatureCheck = 'ok' | 'missing' | 'stale' | 'bad_signature';

/** Checks a request's signature and timestamp against `secret` at `nowMs`. */
export function checkSlackSignature(
  secret: string,
  timestamp: string | undefined,
  signature: string | undefined,
  body: string,
  nowMs: number,
): SlackSignatureCheck {
  if (timestamp === undefined || signature === undefined || !/^\d+$/.test(timestamp)) return 'missing';
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > SLACK_SIGNATURE_MAX_AGE_S) return 'stale';
  const expected = Buffer.from(signSlackRequest(secret, timestamp, body));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected) ? 'ok' : 'bad_signature';
}

/** The `X-Slack-Signature` Slack sends for `body` at `timestamp` (tests and fakes sign with it too). */
export function signSlackRequest(secret: string, timestamp: string, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}
