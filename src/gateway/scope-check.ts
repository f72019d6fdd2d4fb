/** The one check of a caller's scope, for RPC methods and HTTP paths alike: -32003 (HTTP 403) naming the scope needed. */
import { VigilError } from '../errors.js';
import { scopeAllows, type TokenScope } from '../protocol/token-scopes.js';
import type { Caller, TokensFacade } from '../runtime/facade/tokens.facade.js';

/**
 * Throws AUTH_FORBIDDEN (-32003, `data: {scope}`) unless `caller` may do `what` (a method or a path), which needs
 * `needed`; a refusal for scope is recorded (`auth.denied`, a warn line). Runs before params are read, so a refused
 * call changes nothing and learns nothing. A token revoked or expired since its connection opened is refused too.
 */
export function assertCallerMay(what: string, needed: TokenScope, caller: Caller, tokens: TokensFacade): void {
  const standing = tokens.standing(caller);
  if (standing !== 'live') {
    throw new VigilError('AUTH_FORBIDDEN', `The token ${JSON.stringify(caller.name)} was ${standing}.`, {
      data: { scope: needed, reason: `token_${standing}` },
    });
  }
  if (scopeAllows(caller.scope, needed)) return;
  tokens.denied(what, needed, caller);
  throw new VigilError(
    'AUTH_FORBIDDEN',
    `Forbidden: ${what} needs a token of scope ${needed}; token ${JSON.stringify(caller.name)} has scope ${caller.scope}.`,
    { data: { scope: needed } },
  );
}
