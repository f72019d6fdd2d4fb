/** The scopes a gateway token may hold, `read` ⊂ `talk` ⊂ `operate` (CONTRACT §14), and the one comparison of them. */
import { z } from 'zod';

/** Every scope, narrowest first. */
export const TOKEN_SCOPES = ['read', 'talk', 'operate'] as const;

/** A token's scope: `read` sees, `talk` also talks to the agent and sets goals, `operate` may do everything. */
export const TokenScopeSchema = z.enum(TOKEN_SCOPES, { error: 'expected "read", "talk" or "operate"' });
export type TokenScope = z.infer<typeof TokenScopeSchema>;

const RANK: Readonly<Record<TokenScope, number>> = { read: 0, talk: 1, operate: 2 };

/** True when a token holding `held` may do what needs `needed` (scopes nest, so a wider one includes the narrower). */
export function scopeAllows(held: TokenScope, needed: TokenScope): boolean {
  return RANK[held] >= RANK[needed];
}
