/**
 * One server's refresh grants, one at a time. Every refresh-token request to its authorization server passes through
 * here, whoever makes it: our refresh (the timer, before expiry) or the SDK's (inside `auth()`, after a 401 to its
 * transport). Both read the stored refresh token and send it; with refresh-token rotation the second to arrive would
 * present a spent token, be refused with `invalid_grant`, and throw away the tokens the first just got. So a refresh
 * token is sent at most once: a requester presenting one that is in flight awaits that answer and gets a copy of it,
 * and one presenting a token already exchanged for a rotated one gets the answer it was exchanged for.
 */
import { createHash } from 'node:crypto';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/** A token endpoint's answer as a second requester gets it: the response read whole, or the error of the fetch. */
type GrantAnswer =
  | { kind: 'answered'; status: number; headers: Array<[string, string]>; body: string }
  | { kind: 'failed'; error: unknown };

/** Exchanged (rotated) refresh tokens remembered per server: more than the requests that can race for one. */
const REMEMBERED = 8;

/** The refresh token a token request presents, or undefined when it is not a refresh grant. */
export function presentedRefreshToken(init: RequestInit | undefined): string | undefined {
  if (init?.method !== 'POST' || !(init.body instanceof URLSearchParams)) return undefined;
  if (init.body.get('grant_type') !== 'refresh_token') return undefined;
  return init.body.get('refresh_token') ?? undefined;
}

/** A token kept only as its digest: what is remembered here must not be a credential itself. */
const digest = (token: string): string => createHash('sha256').update(token).digest('base64url');

/** The refresh token an answer carries, when it is a success that carries one. */
function issuedRefreshToken(answer: GrantAnswer): string | undefined {
  if (answer.kind !== 'answered' || answer.status < 200 || answer.status > 299) return undefined;
  try {
    const token = (JSON.parse(answer.body) as { refresh_token?: unknown }).refresh_token;
    return typeof token === 'string' ? token : undefined;
  } catch {
    return undefined;
  }
}

/** The grants of one server. */
export class RefreshGrants {
  /** The grant sent last (settled or not): the next waits for it, so two are never in flight. */
  private last: Promise<unknown> = Promise.resolve();
  /** Answers by the digest of the refresh token presented: in flight, or settled by a rotation. */
  private readonly answers = new Map<string, Promise<GrantAnswer>>();
  /** Digests of the refresh tokens whose grant is in flight. */
  private readonly inFlight = new Set<string>();

  /** Sends the refresh grant `init` (presenting `refreshToken`) with `fetchFn`, or hands back the answer it already got. */
  async send(fetchFn: FetchLike, url: string | URL, init: RequestInit, refreshToken: string): Promise<Response> {
    const key = digest(refreshToken);
    let answer = this.answers.get(key);
    if (answer === undefined) {
      answer = this.exchange(fetchFn, url, init, refreshToken, key);
      this.answers.set(key, answer);
    }
    const settled = await answer;
    if (settled.kind === 'failed') throw settled.error;
    return new Response(settled.body, { status: settled.status, headers: settled.headers });
  }

  /** True when `refreshToken` was exchanged for a rotated one: tokens carrying it are older than the ones stored. */
  superseded(refreshToken: string): boolean {
    const key = digest(refreshToken);
    return this.answers.has(key) && !this.inFlight.has(key);
  }

  private async exchange(
    fetchFn: FetchLike,
    url: string | URL,
    init: RequestInit,
    refreshToken: string,
    key: string,
  ): Promise<GrantAnswer> {
    this.inFlight.add(key);
    const run = this.last.then(async (): Promise<GrantAnswer> => {
      try {
        const response = await fetchFn(url, init);
        return {
          kind: 'answered',
          status: response.status,
          headers: [...response.headers],
          body: await response.text(),
        };
      } catch (error) {
        return { kind: 'failed', error };
      }
    });
    this.last = run;
    const answer = await run;
    this.inFlight.delete(key);
    const issued = issuedRefreshToken(answer);
    // Kept only when the token was rotated away: a token that stays good (no rotation, or a refusal) may be sent again.
    if (issued === undefined || issued === refreshToken) this.answers.delete(key);
    else this.forgetOldest();
    return answer;
  }

  private forgetOldest(): void {
    for (const key of this.answers.keys()) {
      if (this.answers.size <= REMEMBERED) return;
      if (!this.inFlight.has(key)) this.answers.delete(key);
    }
  }
}
