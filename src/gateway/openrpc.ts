/** The OpenRPC document of `rpc.discover`, generated from the same zod schemas the server validates with, so it cannot drift. */
import { z } from 'zod';
import { JSON_RPC_CODE_BY_ERROR, type VigilErrorCode } from '../errors.js';
import { VIGIL_VERSION } from '../shared/version.js';
import { DroppedNotificationSchema, EventNotificationSchema } from '../protocol/event-feed.schema.js';
import { RPC_METHODS, type RpcMethodSpec } from '../protocol/rpc-methods.js';

/** The OpenRPC version the document follows. */
export const OPENRPC_VERSION = '1.3.2';

type JsonSchema = Record<string, unknown>;

// Params are what clients send (input); results are what the server sends (output).
function schemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

function errorsOf(codes: readonly VigilErrorCode[]): Array<{ code: number; message: string }> {
  return codes.map((code) => ({ code: JSON_RPC_CODE_BY_ERROR[code] ?? -32603, message: code }));
}

function describeMethod(name: string, spec: RpcMethodSpec) {
  const params = schemaOf(spec.params, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  const required = new Set(params.required ?? []);
  return {
    name,
    summary: spec.summary,
    // OpenRPC has no field for authorisation; an `x-` extension carries the scope a token needs (CONTRACT §14).
    'x-vigil-scope': spec.scope,
    paramStructure: 'by-name',
    params: Object.entries(params.properties ?? {}).map(([param, schema]) => ({
      name: param,
      required: required.has(param),
      schema,
    })),
    result: { name: `${name}.result`, schema: schemaOf(spec.result, 'output') },
    errors: [
      ...(spec.scope === 'read'
        ? []
        : [
            { code: -32003, message: `AUTH_FORBIDDEN (a token of scope ${spec.scope} is needed; data.scope names it)` },
          ]),
      { code: -32602, message: 'Invalid params (zod issues in data, each with vigilCode)' },
      ...errorsOf(spec.errors),
    ],
  };
}

/** Builds the document: every method with params, result and errors, plus the feed's notifications as an extension. */
export function buildOpenRpcDocument(): Record<string, unknown> {
  return {
    openrpc: OPENRPC_VERSION,
    info: {
      title: 'Vigil gateway',
      version: VIGIL_VERSION,
      description:
        'JSON-RPC 2.0 over WebSocket at /rpc (text frames, params by name). See docs/reference/gateway.md in the package.',
    },
    methods: Object.entries(RPC_METHODS).map(([name, spec]) => describeMethod(name, spec as RpcMethodSpec)),
    // OpenRPC has no server-to-client notifications; these name the feed's, in the same form.
    'x-notifications': [
      { name: 'events.event', params: schemaOf(EventNotificationSchema, 'output') },
      { name: 'events.dropped', params: schemaOf(DroppedNotificationSchema, 'output') },
    ],
  };
}
