/**
 * One-time sign-in codes for the dashboard (`vigil dashboard`, RPC `auth.signIn`): a client that holds a token asks
 * for a code, and a browser that opens `/?signin=CODE` gets a session of that token's scope — the token itself never
 * enters a URL, a browser's history or a terminal's scrollback.
 *
 * A code is 256 random bits, good once, for `SIGN_IN_CODE_TTL_MS`; only its SHA-256 is kept (a heap dump shows no
 * usable code), in memory: a restart voids the codes not yet used, which costs a person one more `vigil dashboard`.
 */
import { createHash, randomBytes } from 'node:crypto';

/** How long a sign-in code waits for its browser. */
export const SIGN_IN_CODE_TTL_MS = 120_000;
/** Codes waiting at once; past it the oldest is forgotten (a loop of `auth.signIn` holds no memory). */
export const MAX_SIGN_IN_CODES = 64;

/** A code just issued. */
export interface IssuedSignInCode<T> {
  code: string;
  /** Epoch ms after which it opens nothing. */
  expiresAt: number;
  /** What it stands for (the caller whose scope the session gets). */
  holder: T;
}

const digest = (code: string): string => createHash('sha256').update(code, 'utf8').digest('base64url');

/** The codes waiting for their browser, each standing for a `T`. */
export class SignInCodes<T> {
  private readonly waiting = new Map<string, { holder: T; expiresAt: number }>();

  constructor(private readonly now: () => number) {}

  /** A new code for `holder`. */
  issue(holder: T): IssuedSignInCode<T> {
    this.forgetExpired();
    if (this.waiting.size >= MAX_SIGN_IN_CODES) this.waiting.delete(this.waiting.keys().next().value!);
    const code = randomBytes(32).toString('base64url');
    const expiresAt = this.now() + SIGN_IN_CODE_TTL_MS;
    this.waiting.set(digest(code), { holder, expiresAt });
    return { code, expiresAt, holder };
  }

  /** What `code` stands for, once: taken out whether or not it is still good; null if unknown, used or expired. */
  take(code: string): T | null {
    const key = digest(code);
    const entry = this.waiting.get(key);
    this.waiting.delete(key);
    if (entry === undefined || this.now() >= entry.expiresAt) return null;
    return entry.holder;
  }

  private forgetExpired(): void {
    const now = this.now();
    for (const [key, entry] of this.waiting) if (now >= entry.expiresAt) this.waiting.delete(key);
  }
}
