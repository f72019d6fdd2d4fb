/**
 * What an operator's `VIGIL_TOKEN` must be: at least 128 bits of secret, judged by its length in the alphabet it is
 * written in, since a random token's strength is its length times the bits per character (CONTRACT §3).
 *
 * Accepted: 32 or more hex digits (`openssl rand -hex 16`: 4 bits a digit), or 22 or more characters of base64url
 * (`A-Z a-z 0-9 - _`, 6 bits each; what Vigil generates and what `vgt_…` scoped tokens are) or of standard base64
 * (`+ /` and up to two `=` of padding, not counted). Standard base64 is accepted because `openssl rand -base64 16` is
 * the command most people reach for, and a Bearer header carries `+/=` as they are (RFC 6750's b64token); in a
 * `?token=` URL those three must be percent-encoded, which the docs say. Anything else (spaces, other punctuation, a
 * short word) is refused: a pass phrase's strength cannot be judged, and the gateway may be reachable from other
 * machines.
 */

/** What `VIGIL_TOKEN` allows, phrased to end the sentence `VIGIL_TOKEN=… is invalid: <allowed>.` */
export const GATEWAY_TOKEN_ALLOWED =
  'expected at least 128 random bits: 32 or more hex digits, or 22 or more base64url or base64 characters ' +
  '(A-Z a-z 0-9 - _ or + / with = padding), e.g. the output of `openssl rand -hex 16`';

const HEX = /^[0-9a-fA-F]+$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The fewest hex digits and base64(url) characters that hold 128 bits. */
export const MIN_TOKEN_HEX_DIGITS = 32;
export const MIN_TOKEN_BASE64_CHARS = 22;

/** True when `token` is long enough for its alphabet to hold 128 bits (hex is judged as hex, being only 4 bits a digit). */
export function isStrongGatewayToken(token: string): boolean {
  if (HEX.test(token)) return token.length >= MIN_TOKEN_HEX_DIGITS;
  if (BASE64URL.test(token)) return token.length >= MIN_TOKEN_BASE64_CHARS;
  if (BASE64.test(token)) return token.replace(/=+$/, '').length >= MIN_TOKEN_BASE64_CHARS;
  return false;
}
