/** `tokens.create`, `tokens.list`, `tokens.revoke` (CONTRACT §14) and `auth.whoami`. */
import type { RpcHandlers } from '../rpc-router.js';

/** The tokens method group. */
export const tokensMethods: RpcHandlers<'tokens.create' | 'tokens.list' | 'tokens.revoke' | 'auth.whoami'> = {
  'tokens.create': (params, { runtime }) => runtime.tokens.create(params),
  'tokens.list': (_params, { runtime }) => runtime.tokens.list(),
  'tokens.revoke': (params, { runtime }) => runtime.tokens.revoke(params.name),
  'auth.whoami': (_params, { caller }) => ({
    name: caller.name,
    scope: caller.scope,
    expiresAt: caller.expiresAt === null ? null : new Date(caller.expiresAt).toISOString(),
  }),
};
