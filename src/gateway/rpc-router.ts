/** Method dispatch: looks a method up in the catalogue, validates its by-name params with zod, and runs its handler. */
import type { z } from 'zod';
import { isVigilError, JSON_RPC_CODE_BY_ERROR, VigilError } from '../errors.js';
import type { Runtime } from '../runtime/runtime.js';
import type { VigilLogger } from '../shared/logger.js';
import { nearestNames } from '../shared/nearest-names.js';
import { protocolError } from './gateway-faults.js';
import type { JsonRpcRequest } from './json-rpc.js';
import { isRpcMethodName, RPC_METHODS, type RpcMethodName, type RpcResult } from '../protocol/rpc-methods.js';
import type { SubscribeParams, SubscribeResult } from '../protocol/event-feed.schema.js';
import type { Caller } from '../runtime/facade/tokens.facade.js';
import { assertCallerMay } from './scope-check.js';

/** What a connection offers the events methods. */
export interface SubscriptionHost {
  /** Opens a subscription; it starts sending once the response carrying its id is on the wire. */
  subscribe(params: SubscribeParams, startAfterResponse: (start: () => void) => void): SubscribeResult;
  /** Ends one; SUBSCRIPTION_NOT_FOUND if this connection has no such subscription. */
  unsubscribe(id: string): void;
}

/** Everything a handler may use. */
export interface RpcContext {
  runtime: Runtime;
  log: VigilLogger;
  subscriptions: SubscriptionHost;
  /** Registers work to run once this request's response has been written (so a subscription's first event follows it). */
  afterResponse: (fn: () => void) => void;
  /** The OpenRPC document. */
  discover: () => Record<string, unknown>;
  /** Who is calling: the token the connection (or request) authenticated with, and its scope. */
  caller: Caller;
}

type ParamsOf<M extends RpcMethodName> = z.output<(typeof RPC_METHODS)[M]['params']>;

/** A handler for method `M`: validated params in, the result (or a promise of it) out. */
export type RpcHandler<M extends RpcMethodName> = (
  params: ParamsOf<M>,
  ctx: RpcContext,
) => RpcResult<M> | Promise<RpcResult<M>>;

/** Handlers for the methods `M` (one file per method group provides some). */
export type RpcHandlers<M extends RpcMethodName = RpcMethodName> = { [K in M]: RpcHandler<K> };

/**
 * Runs `request` against `handlers`: -32601 for an unknown method, -32003 beyond the caller's scope, -32602 (zod
 * issues in `data`) for bad params.
 * Every outcome is counted in `vigil_gateway_requests_total` by method and code (0 for success).
 */
export async function routeRequest(request: JsonRpcRequest, handlers: RpcHandlers, ctx: RpcContext): Promise<unknown> {
  try {
    const result = await dispatch(request, handlers, ctx);
    countRequest(ctx.runtime, request.method, 0);
    return result;
  } catch (err) {
    countRequest(ctx.runtime, request.method, wireCode(err));
    throw err;
  }
}

/**
 * Counts one answered request in `vigil_gateway_requests_total`. Names outside the catalogue share one label (a
 * client must not be able to grow the metric without bound); `''` (a frame refused before any method was read) is
 * `(invalid)`.
 */
export function countRequest(runtime: Runtime, method: string, code: number): void {
  const label = method === '' ? '(invalid)' : isRpcMethodName(method) ? method : '(unknown)';
  runtime.metrics.requestHandled(label, code);
}

// The code the error goes out with (toWireError's table: VigilErrors by code, anything else -32603).
function wireCode(err: unknown): number {
  return isVigilError(err) ? (JSON_RPC_CODE_BY_ERROR[err.code] ?? -32603) : -32603;
}

// Throws at once or returns the handler's result (a promise or not): routeRequest awaits either inside its try.
function dispatch(request: JsonRpcRequest, handlers: RpcHandlers, ctx: RpcContext): unknown {
  const { method } = request;
  if (!isRpcMethodName(method)) throw methodNotFound(method);
  const spec = RPC_METHODS[method];
  // Before the params are even read: a call beyond the token's scope is refused whatever it carries.
  assertCallerMay(method, spec.scope, ctx.caller, ctx.runtime.tokens);
  const raw = normaliseParams(request.params, method);
  const parsed = spec.params.safeParse(raw);
  if (!parsed.success) {
    const where = parsed.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.join('.') || '(params)'}: ${issue.message}`)
      .join('; ');
    throw new VigilError('RPC_INVALID_PARAMS', `Invalid params for ${method}: ${where}.`, {
      data: parsed.error.issues,
    });
  }
  const handler = handlers[method] as (params: unknown, ctx: RpcContext) => unknown;
  return handler(parsed.data, ctx);
}

const METHOD_NAMES: readonly string[] = Object.keys(RPC_METHODS);

/**
 * -32601 for `method`, with `data: {suggestions}` naming the catalogue's nearest methods when some are near (a
 * misspelling, a missing namespace); with none near, the bare error the specification shows.
 */
export function methodNotFound(method: string): VigilError {
  const suggestions = nearestNames(method, METHOD_NAMES, { separator: '.' });
  return protocolError('RPC_METHOD_NOT_FOUND', suggestions.length > 0 ? { suggestions } : undefined);
}

// Params are by name; absent or an empty array (some clients send `[]` for "none") mean no params.
function normaliseParams(params: JsonRpcRequest['params'], method: string): unknown {
  if (params === undefined) return {};
  if (Array.isArray(params)) {
    if (params.length === 0) return {};
    throw new VigilError(
      'RPC_INVALID_PARAMS',
      `Invalid params for ${method}: params are by name (an object), not by position.`,
      {
        data: [
          {
            code: 'invalid_type',
            expected: 'object',
            path: [],
            message: 'params are by name (an object), not by position',
          },
        ],
      },
    );
  }
  return params;
}
