/** docs/reference/rpc-methods.md's body: every method of the catalogue with its scope, params, result and errors. */
import { z } from 'zod';
import { JSON_RPC_CODE_BY_ERROR } from '../../src/protocol/error-codes.js';
import { VigilEventSchema } from '../../src/protocol/events.schema.js';
import { RPC_METHODS, type RpcMethodSpec } from '../../src/protocol/rpc-methods.js';
import { slugOf } from './github-slug.js';
import { code, table } from './markdown.js';
import { fieldsOf, jsonSchemaOf, typeText } from './schema-type.js';

const PARAMS = { depth: 2, constraints: true } as const;
const RESULT = { depth: 2, constraints: false } as const;

/** A result written by name where spelling it out would bury the page (the event union). */
function namedResult(result: z.ZodType): string | undefined {
  if (result === VigilEventSchema) return 'an event (see [events](events.md))';
  if (result instanceof z.ZodArray && result.element === VigilEventSchema)
    return 'events, oldest first (see [events](events.md))';
  return undefined;
}

function methodSection(name: string, spec: RpcMethodSpec): string {
  const params = fieldsOf(jsonSchemaOf(spec.params, 'input'), PARAMS);
  const paramsText =
    params.length === 0
      ? 'Params: none.'
      : table(
          ['param', 'type', 'required'],
          params.map((p) => [code(p.name), code(p.type), p.required ? 'yes' : 'no']),
        );
  const result = namedResult(spec.result) ?? code(typeText(jsonSchemaOf(spec.result, 'output'), RESULT));
  const errors = spec.errors.map((e) => `${code(String(JSON_RPC_CODE_BY_ERROR[e] ?? -32603))} ${code(e)}`);
  return [
    `### ${code(name)}`,
    '',
    spec.summary,
    '',
    `Scope: ${code(spec.scope)} (a narrower token gets ${code('-32003')}; see [tokens and scopes](../operations/tokens-and-scopes.md)).`,
    '',
    paramsText,
    '',
    `Result: ${result}`,
    '',
    `Errors: ${errors.length === 0 ? 'only the standard ones' : errors.join(', ')}.`,
  ].join('\n');
}

/** The index of methods by area, then one section per method. */
export function renderRpcMethods(): string {
  const entries = Object.entries(RPC_METHODS) as [string, RpcMethodSpec][];
  const index = table(
    ['method', 'scope', 'does'],
    entries.map(([name, spec]) => [`[${code(name)}](#${slugOf(name)})`, code(spec.scope), spec.summary]),
  );
  return [index, '', ...entries.map(([name, spec]) => `${methodSection(name, spec)}\n`)].join('\n');
}
