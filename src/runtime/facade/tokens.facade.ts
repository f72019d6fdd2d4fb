/**
 * The facade's tokens area (CONTRACT §14): `tokens.create/list/revoke`, the authentication of a scoped token, the
 * audit events, and the notice of a token that ended (revoked or expired) so the gateway closes what it opened.
 */
import type { Observable } from 'rxjs';
import { Subject } from 'rxjs/internal/Subject';
import { VigilError } from '../../errors.js';
import type { EventBus } from '../../events/event-bus.js';
import type { TokenScope } from '../../protocol/token-scopes.js';
import {
  expiresInSeconds,
  type CreatedToken,
  type CreateTokenParams,
  type TokenRecord,
  type TokenView,
} from '../../protocol/tokens.schema.js';
import type { Clock } from '../../shared/clock.js';
import type { VigilLogger } from '../../shared/logger.js';
import { mintToken, parseTokenText, secretMatches } from '../../subsystems/auth/token-secret.js';
import type { TokenStore } from '../../subsystems/auth/token-store.js';
import { SignInCodes } from '../../subsystems/auth/sign-in-codes.js';

/** Who is calling: the daemon's own token (`tokenId` null, `operate`) or a scoped token. */
export interface Caller {
  name: string;
  scope: TokenScope;
  tokenId: string | null;
  /** Epoch ms after which the token is refused; null: never. */
  expiresAt: number | null;
}

/** The caller holding the daemon's own token (`DATA_DIR/token` or `VIGIL_TOKEN`): always `operate`, never expires. */
export const DAEMON_CALLER: Caller = Object.freeze({
  name: 'daemon',
  scope: 'operate',
  tokenId: null,
  expiresAt: null,
});

/** A token that stopped authenticating, for the gateway to close what was opened with it. */
export interface TokenEnded {
  tokenId: string;
  name: string;
  reason: 'revoked' | 'expired';
}

/** The most tokens a data dir holds. */
export const MAX_TOKENS = 1_000;
/** `lastUsedAt` is written at most this often per token: a scrape every 15 s must not be a disk write every 15 s. */
export const LAST_USED_WRITE_EVERY_MS = 60_000;
// Node's timers overflow past 2^31-1 ms (24.8 days) and fire at once; a longer wait is taken in steps.
const MAX_TIMER_MS = 2_147_483_647;

/** What the area needs of the runtime. */
export interface TokensParts {
  store: TokenStore;
  bus: EventBus;
  clock: Clock;
  log: VigilLogger;
}

/** Scoped tokens as the facade offers them. */
export class TokensFacade {
  private readonly ended = new Subject<TokenEnded>();
  private readonly signedOut = new Subject<number>();
  /** Each "sign out everywhere" (`tokens.revoke {name: "daemon"}`), as its moment: browser sessions opened by then end. */
  readonly sessionsRevoked$: Observable<number> = this.signedOut.asObservable();
  /** Tokens that ended, as they end: a revoke at once, an expiry at its time (on the runtime's clock). */
  readonly ended$: Observable<TokenEnded> = this.ended.asObservable();
  private expiryTimer: unknown;
  private stopped = false;
  /** One-time dashboard sign-in codes, each for the caller that asked (`auth.signIn`). */
  private readonly signIns = new SignInCodes<Caller>(() => this.parts.clock.now());
  /** Expired tokens already announced (they stay listed until revoked). */
  private readonly announced = new Set<string>();

  constructor(private readonly parts: TokensParts) {
    this.armExpiry();
  }

  /** `tokens.create`: a new token, stored as a salted hash; its secret is in the answer and nowhere else. */
  async create(params: CreateTokenParams): Promise<CreatedToken> {
    const { store, clock, bus, log } = this.parts;
    this.assertRunning();
    if (store.size >= MAX_TOKENS)
      throw new VigilError(
        'TOKEN_LIMIT',
        `The data dir holds ${store.size} tokens, the most allowed; revoke some first.`,
        {
          data: { limit: MAX_TOKENS },
        },
      );
    const minted = mintToken();
    const name = params.name ?? `token-${minted.id.slice(0, 8)}`;
    if (name === DAEMON_CALLER.name || store.named(name) !== undefined)
      throw new VigilError('TOKEN_NAME_TAKEN', `A token named ${JSON.stringify(name)} already exists.`, {
        data: { name },
      });
    const now = clock.now();
    const seconds = params.expiresIn === undefined ? null : expiresInSeconds(params.expiresIn);
    if (seconds === null && params.expiresIn !== undefined)
      throw new VigilError(
        'RPC_INVALID_PARAMS',
        `expiresIn ${JSON.stringify(params.expiresIn)} is longer than ten years.`,
        {
          data: [{ code: 'too_big', path: ['expiresIn'], message: 'expected at most ten years' }],
        },
      );
    const record: TokenRecord = {
      id: minted.id,
      name,
      scope: params.scope,
      createdAt: now,
      expiresAt: seconds === null ? null : now + seconds * 1000,
      lastUsedAt: null,
      salt: minted.salt,
      digest: minted.digest,
    };
    await store.save(record);
    bus.emit('auth.token_created', { name, scope: record.scope });
    log.info({ name, scope: record.scope, expiresAt: iso(record.expiresAt) }, 'gateway token created');
    this.armExpiry();
    return { name, scope: record.scope, token: minted.text, expiresAt: iso(record.expiresAt) };
  }

  /** `tokens.list`: every token, oldest first, without secret or hash. */
  list(): TokenView[] {
    return this.parts.store.list().map((record) => ({
      name: record.name,
      scope: record.scope,
      createdAt: iso(record.createdAt)!,
      expiresAt: iso(record.expiresAt),
      lastUsedAt: iso(record.lastUsedAt),
    }));
  }

  /** `tokens.revoke`: the token authenticates nothing from now on, and what was opened with it is told to close. */
  async revoke(name: string): Promise<true> {
    const { store, bus, log } = this.parts;
    this.assertRunning();
    if (name === DAEMON_CALLER.name) return this.revokeSessions();
    const record = store.named(name);
    if (record === undefined)
      throw new VigilError('TOKEN_NOT_FOUND', `No token is named ${JSON.stringify(name)}.`, { data: { name } });
    await store.remove(record.id);
    bus.emit('auth.token_revoked', { name });
    log.info({ name, scope: record.scope }, 'gateway token revoked');
    this.ended.next({ tokenId: record.id, name, reason: 'revoked' });
    return true;
  }

  /** `auth.signIn`: a one-time code that opens a browser session for `caller` (its scope), and when it expires. */
  signInCode(caller: Caller): { code: string; expiresAt: string } {
    this.assertRunning();
    const issued = this.signIns.issue(caller);
    return { code: issued.code, expiresAt: iso(issued.expiresAt)! };
  }

  /** The caller a sign-in code was issued for, once, if the code and its token are still good; null otherwise. */
  takeSignInCode(code: string): Caller | null {
    const caller = this.signIns.take(code);
    return caller !== null && this.standing(caller) === 'live' ? caller : null;
  }

  /** Epoch ms of the last "sign out everywhere" (0: never): browser sessions opened at or before it are void. */
  sessionsRevokedAt(): number {
    return this.parts.store.sessionsRevokedAt;
  }

  /**
   * "Sign out everywhere": the daemon's own token cannot be revoked (it is the data dir's file or VIGIL_TOKEN), but
   * every browser session opened so far, with any token, ends: from the moment this answers, on disk.
   */
  private async revokeSessions(): Promise<true> {
    const { store, bus, log, clock } = this.parts;
    const at = Math.max(clock.now(), store.sessionsRevokedAt + 1);
    await store.revokeSessions(at);
    bus.emit('auth.sessions_revoked', { signedOutAt: new Date(at).toISOString() });
    log.info({}, 'every browser session signed out');
    this.signedOut.next(at);
    return true;
  }

  /**
   * The caller a scoped token's text stands for, or null (not a token's text, unknown, revoked, wrong secret or
   * expired). One HMAC and a constant-time compare; `lastUsedAt` is recorded, written at most once a minute.
   */
  authenticate(text: string): Caller | null {
    const parsed = parseTokenText(text);
    if (parsed === null) return null;
    const record = this.parts.store.get(parsed.id);
    if (record === undefined || !secretMatches(record.salt, record.digest, parsed.secret)) return null;
    const now = this.parts.clock.now();
    if (record.expiresAt !== null && now >= record.expiresAt) return null;
    this.noteUse(record, now);
    return { name: record.name, scope: record.scope, tokenId: record.id, expiresAt: record.expiresAt };
  }

  /** Whether `caller` may still call now: its token not revoked and not expired. No hashing: this is per request. */
  standing(caller: Caller): 'live' | 'revoked' | 'expired' {
    if (caller.tokenId === null) return 'live';
    if (this.parts.store.get(caller.tokenId) === undefined) return 'revoked';
    return caller.expiresAt !== null && this.parts.clock.now() >= caller.expiresAt ? 'expired' : 'live';
  }

  /** Records a refused call: the `auth.denied` event (counted in /metrics) and a warn line. Never the token. */
  denied(method: string, scope: TokenScope, caller: Caller): void {
    const payload = { method, scope, tokenName: caller.name, tokenScope: caller.scope };
    this.parts.bus.emit('auth.denied', payload);
    this.parts.log.warn(payload, `gateway call refused: ${method} needs scope ${scope}`);
  }

  /** Stops the expiry timer (the runtime is stopping). */
  stop(): void {
    this.stopped = true;
    if (this.expiryTimer !== undefined) this.parts.clock.clearTimeout(this.expiryTimer);
    this.expiryTimer = undefined;
    this.ended.complete();
    this.signedOut.complete();
  }

  private noteUse(record: TokenRecord, now: number): void {
    if (record.lastUsedAt !== null && now - record.lastUsedAt < LAST_USED_WRITE_EVERY_MS) return;
    // Failing to record a use is no reason to refuse it; it is written again at the next use.
    this.parts.store.touch(record.id, now).catch((err: unknown) => {
      this.parts.log.debug({ err, name: record.name }, 'token last-use time not written');
    });
  }

  // One timer, for the soonest expiry ahead: when it fires, every token past its time is announced as ended.
  private armExpiry(): void {
    const { clock, store } = this.parts;
    if (this.expiryTimer !== undefined) clock.clearTimeout(this.expiryTimer);
    this.expiryTimer = undefined;
    if (this.stopped) return;
    const now = clock.now();
    let soonest: number | null = null;
    for (const record of store.list())
      if (record.expiresAt !== null && record.expiresAt > now && (soonest === null || record.expiresAt < soonest))
        soonest = record.expiresAt;
    if (soonest === null) return;
    this.expiryTimer = clock.setTimeout(
      () => {
        this.expiryTimer = undefined;
        this.announceExpired();
        this.armExpiry();
      },
      Math.min(soonest - now, MAX_TIMER_MS),
    );
  }

  private announceExpired(): void {
    const now = this.parts.clock.now();
    for (const record of this.parts.store.list())
      if (record.expiresAt !== null && record.expiresAt <= now && !this.announced.has(record.id)) {
        this.announced.add(record.id);
        this.ended.next({ tokenId: record.id, name: record.name, reason: 'expired' });
      }
  }

  private assertRunning(): void {
    if (this.stopped) throw new VigilError('RUNTIME_STOPPED', 'The runtime is stopping and takes no more work.');
  }
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
