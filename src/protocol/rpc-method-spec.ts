/** One RPC method's spec (scope, summary, params, result, errors) and the helper every catalogue part builds it with. */
import { z } from 'zod';
import type { VigilErrorCode } from './error-codes.js';
import type { TokenScope } from './token-scopes.js';

/**
 * One method: the scope a token needs to call it, what it does, its by-name params (unknown names are refused), its
 * result, and the errors it may raise.
 */
export interface RpcMethodSpec<P extends z.ZodObject = z.ZodObject, R extends z.ZodType = z.ZodType> {
  /** The narrowest token scope that may call it (CONTRACT §14); declared here once, enforced by the router. */
  scope: TokenScope;
  summary: string;
  params: P;
  result: R;
  errors: readonly VigilErrorCode[];
}

/** A method's spec; params are strict: a misspelt name (`confirmed` for `confirm`) is -32602, not silently ignored. */
export function method<P extends z.ZodObject, R extends z.ZodType>(
  scope: TokenScope,
  summary: string,
  params: P,
  result: R,
  errors: readonly VigilErrorCode[] = [],
): RpcMethodSpec<P, R> {
  return { scope, summary, params: params.strict() as P, result, errors };
}

/** A method without params. */
export const none = z.object({});
