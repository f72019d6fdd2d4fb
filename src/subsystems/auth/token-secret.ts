/**
 * A scoped token's secret: its text (`vgt_<id>_<secret>`), and the salted keyed hash that is stored instead of it.
 *
 * Why HMAC-SHA256 and not scrypt: the secret is 256 random bits, not a password a person chose. A slow KDF exists to
 * make guessing low-entropy passwords expensive; against 2^256 possibilities guessing is hopeless at any hash speed,
 * so scrypt would only cost CPU and memory on every authentication. The per-token random salt (as the HMAC key) means
 * a copied store yields no secret and no precomputed table helps. The id in the text finds the one record to check,
 * so authentication is one HMAC and one constant-time compare — done once per connection or request, not per frame.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const TOKEN_TEXT = /^vgt_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

/** A freshly made token: its id (the store's key), its full text (given to the user once) and what is stored. */
export interface MintedToken {
  id: string;
  text: string;
  salt: string;
  digest: string;
}

/** Makes a token: 64-bit id, 256-bit secret, 128-bit salt. */
export function mintToken(): MintedToken {
  const id = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  const salt = randomBytes(16).toString('base64url');
  return { id, text: `vgt_${id}_${secret}`, salt, digest: digestOf(salt, secret) };
}

/** The id and secret of a token's text, or null when the text is not one (the daemon's own token, a typo). */
export function parseTokenText(text: string): { id: string; secret: string } | null {
  const match = TOKEN_TEXT.exec(text);
  return match === null ? null : { id: match[1]!, secret: match[2]! };
}

/** The stored hash of `secret` under `salt` (base64url). */
export function digestOf(salt: string, secret: string): string {
  return createHmac('sha256', salt).update(secret, 'utf8').digest('base64url');
}

/** True when `secret` hashes to `digest` under `salt`, compared in constant time (both digests are 32 bytes). */
export function secretMatches(salt: string, digest: string, secret: string): boolean {
  const expected = Buffer.from(digest, 'base64url');
  const actual = Buffer.from(digestOf(salt, secret), 'base64url');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
