/** Gateway tokens as records (CONTRACT §14): the `tokens.*` and `auth.whoami` params and results, and the stored record. */
import { z } from 'zod';
import { isoTime } from './iso-time.js';
import { TokenScopeSchema } from './token-scopes.js';

/** The longest a token may live: ten years, in seconds. */
export const MAX_TOKEN_LIFETIME_S = 10 * 366 * 86_400;

/** A duration as `expiresIn` takes it in a string: a whole number with a unit (`90s`, `30m`, `12h`, `30d`). */
export const DURATION_PATTERN = /^(\d{1,9})(s|m|h|d)$/;
const UNIT_S: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/** A token's name: what `list` shows and `revoke` takes; letters, digits, `.`, `_`, `-` (no spaces, no controls). */
export const TokenNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, {
  error: 'expected 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit',
});

/** `expiresIn`: seconds as a number, or a duration string such as `"90s"`, `"12h"`, `"30d"`. */
export const ExpiresInSchema = z.union(
  [
    z.number().int().positive().max(MAX_TOKEN_LIFETIME_S),
    z.string().regex(DURATION_PATTERN, { error: 'expected a duration such as "90s", "30m", "12h" or "30d"' }),
  ],
  { error: 'expected seconds (a positive whole number) or a duration such as "90s", "12h" or "30d"' },
);
export type ExpiresIn = z.infer<typeof ExpiresInSchema>;

/** `expiresIn` in seconds; null when the string form overflows the longest lifetime. */
export function expiresInSeconds(value: ExpiresIn): number | null {
  if (typeof value === 'number') return value;
  const match = DURATION_PATTERN.exec(value)!;
  const seconds = Number(match[1]) * UNIT_S[match[2]!]!;
  return seconds > 0 && seconds <= MAX_TOKEN_LIFETIME_S ? seconds : null;
}

/** `tokens.create` params. */
export const CreateTokenParamsSchema = z.object({
  scope: TokenScopeSchema.describe('What the token may do: read, talk or operate.'),
  name: TokenNameSchema.optional().describe('A name to list and revoke it by (default: a generated one).'),
  expiresIn: ExpiresInSchema.optional().describe('Lifetime: seconds, or "90s", "12h", "30d" (default: no expiry).'),
});
export type CreateTokenParams = z.infer<typeof CreateTokenParamsSchema>;

/** `tokens.create` result: the secret, shown this once and never again. */
export const CreatedTokenSchema = z.object({
  name: z.string(),
  scope: TokenScopeSchema,
  token: z.string(),
  expiresAt: isoTime.nullable(),
});
export type CreatedToken = z.infer<typeof CreatedTokenSchema>;

/** One token as `tokens.list` shows it: never the secret, nor its hash. */
export const TokenViewSchema = z.object({
  name: z.string(),
  scope: TokenScopeSchema,
  createdAt: isoTime,
  expiresAt: isoTime.nullable(),
  lastUsedAt: isoTime.nullable(),
});
export type TokenView = z.infer<typeof TokenViewSchema>;

/** `tokens.revoke` params. */
export const TokenNameParamsSchema = z.object({ name: z.string().min(1).max(64) });

/** `auth.whoami` result: the caller's token, so a client (the dashboard) can show only what it may use. */
export const WhoAmISchema = z.object({
  name: z.string(),
  scope: TokenScopeSchema,
  expiresAt: isoTime.nullable(),
});
export type WhoAmI = z.infer<typeof WhoAmISchema>;

/** `auth.signIn` result: a one-time code that opens a browser session of the caller's scope at `path`. */
export const SignInLinkSchema = z.object({
  /** Good once, until `expiresAt`. */
  code: z.string(),
  /** Where a browser opens it, on the gateway's own origin: `/?signin=CODE`. */
  path: z.string(),
  expiresAt: isoTime,
});
export type SignInLink = z.infer<typeof SignInLinkSchema>;

/**
 * A token as stored: keyed by `id` (never the name, which is user text), with a salted keyed hash of the secret in
 * place of the secret. Times in epoch ms.
 */
export const TokenRecordSchema = z.object({
  id: z.string().regex(/^[0-9a-f]{16}$/),
  name: TokenNameSchema,
  scope: TokenScopeSchema,
  createdAt: z.number().int(),
  expiresAt: z.number().int().nullable(),
  lastUsedAt: z.number().int().nullable(),
  salt: z.string(),
  digest: z.string(),
});
export type TokenRecord = z.infer<typeof TokenRecordSchema>;
