/** A scoped token's text and its stored hash: what is kept is never the secret, and only the exact secret matches. */
import { describe, expect, it } from 'vitest';
import { digestOf, mintToken, parseTokenText, secretMatches } from '../../../src/subsystems/auth/token-secret.js';
import { expiresInSeconds } from '../../../src/protocol/tokens.schema.js';

describe('token secrets', () => {
  it('mints vgt_<id>_<secret> and keeps a salted hash that only the exact secret matches', () => {
    const a = mintToken();
    const b = mintToken();
    expect(a.text).toMatch(/^vgt_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    const parsed = parseTokenText(a.text)!;
    expect(parsed.id).toBe(a.id);
    expect(a.digest).not.toContain(parsed.secret);
    expect(secretMatches(a.salt, a.digest, parsed.secret)).toBe(true);
    expect(secretMatches(a.salt, a.digest, parseTokenText(b.text)!.secret)).toBe(false);
    // The last character changed to another one (a random secret may end in "x" already).
    const forged = `${parsed.secret.slice(0, -1)}${parsed.secret.endsWith('x') ? 'y' : 'x'}`;
    expect(secretMatches(a.salt, a.digest, forged)).toBe(false);
    // The salt keys the hash: the same secret under another salt is another digest.
    expect(digestOf(b.salt, parsed.secret)).not.toBe(a.digest);
  });

  it('reads only well-formed token texts (the daemon token, a typo or a padded one is not one)', () => {
    for (const text of ['test-token-0123456789', 'vgt_', `vgt_${'0'.repeat(16)}_short`, ` ${mintToken().text}`])
      expect(parseTokenText(text), text).toBeNull();
  });

  it('turns expiresIn into seconds: a number as it is, a duration by its unit, too long as null', () => {
    expect(expiresInSeconds(90)).toBe(90);
    expect(expiresInSeconds('90s')).toBe(90);
    expect(expiresInSeconds('30m')).toBe(1800);
    expect(expiresInSeconds('12h')).toBe(43_200);
    expect(expiresInSeconds('30d')).toBe(2_592_000);
    expect(expiresInSeconds('0s')).toBeNull();
    expect(expiresInSeconds('99999d')).toBeNull();
  });
});
