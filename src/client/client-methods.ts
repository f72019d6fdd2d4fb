/**
 * The typed method namespaces of a client (`client.checkpoint.list({limit})`), inferred from the RPC catalogue, and
 * the check of each answer against it.
 */
import { VigilError } from '../errors.js';
import { RPC_METHODS, type RpcMethodName, type RpcParams, type RpcResult } from '../protocol/rpc-methods.js';

// Subscriptions need connection state, so they go through `client.subscribe`, not a bare method.
type StatefulMethod = 'events.subscribe' | 'events.unsubscribe';
type PlainMethod = Exclude<RpcMethodName, StatefulMethod>;
type NamespaceOf<M> = M extends `${infer N}.${string}` ? N : never;

/** One method as a function: params may be left out when every one of them is optional. */
// `Record<never, never>` (the empty object type) extends P exactly when every property of P is optional.
export type MethodFn<M extends RpcMethodName> =
  Record<never, never> extends RpcParams<M>
    ? (params?: RpcParams<M>) => Promise<RpcResult<M>>
    : (params: RpcParams<M>) => Promise<RpcResult<M>>;

/** Every plain method, grouped by namespace. */
export type TypedMethods = {
  [N in NamespaceOf<PlainMethod>]: { [M in PlainMethod as M extends `${N}.${infer Name}` ? Name : never]: MethodFn<M> };
};

/** Builds the namespaces over `call`. */
export function buildMethods(call: (method: RpcMethodName, params: unknown) => Promise<unknown>): TypedMethods {
  const namespaces: Record<string, Record<string, (params?: unknown) => Promise<unknown>>> = {};
  for (const method of Object.keys(RPC_METHODS) as RpcMethodName[]) {
    if (method === 'events.subscribe' || method === 'events.unsubscribe') continue;
    const [namespace, name] = method.split('.') as [string, string];
    (namespaces[namespace] ??= {})[name] = (params?: unknown) => call(method, params ?? {});
  }
  return namespaces as unknown as TypedMethods;
}

/** `result` parsed by `method`'s result schema; INTERNAL when the gateway's answer does not match it. */
export function checkedResult<M extends RpcMethodName>(method: M, result: unknown): RpcResult<M> {
  const parsed = RPC_METHODS[method].result.safeParse(result);
  if (parsed.success) return parsed.data as RpcResult<M>;
  const issue = parsed.error.issues[0];
  throw new VigilError(
    'INTERNAL',
    `The gateway's answer to ${method} does not match its schema: ${issue?.path.join('.') || '(result)'}: ${issue?.message ?? 'invalid'}.`,
    { data: parsed.error.issues },
  );
}
