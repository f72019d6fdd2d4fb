/** Which hosts only this machine can reach: the gateway's token policy and its auth both ask. */
import { isIP } from 'node:net';

/** True for hosts only this machine can reach: `localhost`, 127.0.0.0/8, `::1` (bracketed or not). */
export function isLoopbackHost(host: string): boolean {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || bare === '0:0:0:0:0:0:0:1' || bare.startsWith('::ffff:127.');
  return false;
}
