/** `tokens.create`, `tokens.list`, `tokens.revoke` (CONTRACT §14), `auth.whoami` and `auth.signIn`. */
import type { RpcHandlers } from '../rpc-router.js';

/** The tokens method group. */
export const tokensMethods: RpcHandlers<
  'tokens.create' | 'tokens.list' | 'tokens.revoke' | 'auth.whoami' | 'auth.signIn'
> = {
  'tokens.create': (params, { runtime }) => runtime.tokens.create(params),
  'tokens.list': (_params, { runtime }) => runtime.tokens.list(),
  'tokens.revoke': (params, { runtime }) => runtime.tokens.revoke(params.name),
  'auth.whoami': (_params, { caller }) => ({
    name: caller.name,
    scope: caller.scope,
    expiresAt: caller.expiresAt === null ? null : new Date(caller.expiresAt).toISOString(),
  }),
  'auth.signIn': (_params, { runtime, caller }) => {
    const { code, expiresAt } = runtime.tokens.signInCode(caller);
    return { code, path: `/?signin=${code}`, expiresAt };
  },
};
