/** Gateway authentication: the token from `Authorization: Bearer` or `?token=`, compared in constant time. */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * A checker for `token`. Both sides are hashed first, so `timingSafeEqual` always compares equal-length digests and
 * the time taken says nothing about the token's length or content.
 */
export function createTokenCheck(token: string): (given: string | undefined) => boolean {
  const expected = digest(token);
  return (given) => {
    const actual = digest(given ?? '');
    return timingSafeEqual(actual, expected) && given !== undefined;
  };
}

/** The token a request carries: the Bearer header wins over the `token` query parameter. */
export function tokenFromRequest(req: IncomingMessage, url: URL): string | undefined {
  const header = req.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    if (match !== null) return match[1]!.trim();
  }
  return url.searchParams.get('token') ?? undefined;
}

/** True for hosts only this machine can reach: `localhost`, 127.0.0.0/8, `::1` (bracketed or not). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || bare === '0:0:0:0:0:0:0:1' || bare.startsWith('::ffff:127.');
  return false;
}
