/**
 * A conservative token estimate for text bound for Claude, without a tokenizer: one token per three UTF-8 bytes.
 * English runs near four bytes a token and code or CJK nearer three, so this over-counts rather than overflows a
 * bound. Callers that see the API's reported usage may calibrate on top of it; they must never go below it.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 3);
}
