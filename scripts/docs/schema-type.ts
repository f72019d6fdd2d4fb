/**
 * A zod schema as a short TypeScript-like type for the reference pages (`{id: string, confirm?: boolean}`), read from
 * the same JSON Schema `rpc.discover` publishes (zod 4's `z.toJSONSchema`), so the page shows what the wire checks.
 */
import { z } from 'zod';

type JsonSchema = { [key: string]: unknown };

/** How much of a schema to write out. */
export interface TypeTextOptions {
  /** Objects nested deeper than this are written `{…}` (the page links to where they are described). */
  readonly depth: number;
  /** Write bounds and formats beside the type (`integer 1–1000`, `string (ISO-8601)`). */
  readonly constraints: boolean;
}

/** The JSON Schema of `schema` as a client sends it (`input`) or the server answers it (`output`). */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  return z.toJSONSchema(schema, { io, unrepresentable: 'any' });
}

const SAFE = Number.MAX_SAFE_INTEGER;

function bounds(schema: JsonSchema, unit: string): string {
  const min = schema['minimum'] ?? schema['minLength'] ?? schema['minItems'];
  const max = schema['maximum'] ?? schema['maxLength'] ?? schema['maxItems'];
  const exclusiveMin = schema['exclusiveMinimum'];
  const lo = typeof min === 'number' && min > -SAFE ? min : undefined;
  const hi = typeof max === 'number' && max < SAFE ? max : undefined;
  if (typeof exclusiveMin === 'number') return hi === undefined ? ` > ${exclusiveMin}` : ` > ${exclusiveMin}, ≤ ${hi}`;
  if (lo !== undefined && hi !== undefined) return ` ${lo}–${hi}${unit}`;
  if (lo !== undefined) return lo === 0 && unit === '' ? ' ≥ 0' : ` ≥ ${lo}${unit}`;
  if (hi !== undefined) return ` ≤ ${hi}${unit}`;
  return '';
}

function union(parts: readonly string[]): string {
  return [...new Set(parts)].join(' | ');
}

/** True when `text` has a space outside every brace (a union, a bound), so `[]` after it needs parentheses. */
function needsParentheses(text: string): boolean {
  let depth = 0;
  for (const c of text) {
    if (c === '{' || c === '(') depth++;
    else if (c === '}' || c === ')') depth--;
    else if (depth === 0 && c === ' ') return true;
  }
  return false;
}

function objectText(schema: JsonSchema, options: TypeTextOptions, level: number): string {
  const properties = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema['required'] ?? []) as string[]);
  const names = Object.keys(properties);
  const extra = schema['additionalProperties'];
  if (names.length === 0) {
    if (extra !== undefined && extra !== false)
      return `{[key: string]: ${typeText(extra as JsonSchema, options, level + 1)}}`;
    return '{}';
  }
  if (level >= options.depth) return '{…}';
  const fields = names.map(
    (name) => `${name}${required.has(name) ? '' : '?'}: ${typeText(properties[name]!, options, level + 1)}`,
  );
  return `{${fields.join(', ')}}`;
}

/** `schema` written as a type; `level` is how deep inside the outermost object it stands. */
export function typeText(schema: JsonSchema, options: TypeTextOptions, level = 0): string {
  const variants = (schema['anyOf'] ?? schema['oneOf']) as JsonSchema[] | undefined;
  if (variants !== undefined) return union(variants.map((v) => typeText(v, options, level)));
  if ('const' in schema) return JSON.stringify(schema['const']);
  if (Array.isArray(schema['enum'])) return union((schema['enum'] as unknown[]).map((v) => JSON.stringify(v)));
  const type = schema['type'];
  if (Array.isArray(type)) return union(type.map((t) => typeText({ ...schema, type: t as string }, options, level)));
  switch (type) {
    case 'object':
      return objectText(schema, options, level);
    case 'array': {
      const item = typeText((schema['items'] ?? {}) as JsonSchema, options, level);
      return `${needsParentheses(item) ? `(${item})` : item}[]`;
    }
    case 'string': {
      if (!options.constraints) return 'string';
      if (schema['format'] === 'date-time') return 'string (ISO-8601)';
      if (schema['format'] === 'uri') return 'string (URL)';
      return `string${bounds(schema, ' chars')}`;
    }
    case 'integer':
      return options.constraints ? `integer${bounds(schema, '')}` : 'integer';
    case 'number':
      return options.constraints ? `number${bounds(schema, '')}` : 'number';
    case 'boolean':
    case 'null':
      return type;
    default:
      return 'unknown';
  }
}

/** The top-level fields of an object schema: name, whether required, and type. */
export function fieldsOf(
  schema: JsonSchema,
  options: TypeTextOptions,
): { name: string; required: boolean; type: string }[] {
  const properties = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema['required'] ?? []) as string[]);
  return Object.entries(properties).map(([name, s]) => ({
    name,
    required: required.has(name),
    type: typeText(s, options, 1),
  }));
}
