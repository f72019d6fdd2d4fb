/** Checks a tool call's arguments against the tool's input JSON Schema before anything is sent to its server. */
import type * as AjvModule from '@modelcontextprotocol/sdk/validation/ajv';
import type { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { JsonSchemaObject } from './tool-registry.js';

/** The outcome of a check: valid, or why not. */
export type ArgsCheck = { valid: true } | { valid: false; problem: string };

/**
 * The validators of one server listing, compiled on first use. A new listing gets a new checker, so the compiled
 * schemas of tools that are gone are dropped with the old one instead of piling up in a shared Ajv instance.
 */
export class ToolArgsChecker {
  private provider: AjvJsonSchemaValidator | undefined;
  private readonly compiled = new Map<string, JsonSchemaValidator<unknown>>();

  /**
   * Checks `args` against `schema` (the schema of tool `name`). A schema that cannot be compiled fails the check.
   * Synchronous once the tool's validator is compiled, so a call goes out in the same tick as its check.
   */
  check(name: string, schema: JsonSchemaObject, args: unknown): ArgsCheck | Promise<ArgsCheck> {
    const validate = this.compiled.get(name);
    return validate === undefined ? this.compileAndCheck(name, schema, args) : verdict(validate, args);
  }

  private async compileAndCheck(name: string, schema: JsonSchemaObject, args: unknown): Promise<ArgsCheck> {
    // Ajv reads draft-07; a `$schema` naming 2020-12 would make it refuse the whole schema, so it is left out.
    const { $schema: _draft, ...rest } = schema;
    this.provider ??= new (await loadAjv()).AjvJsonSchemaValidator();
    let validate = this.compiled.get(name);
    if (validate === undefined) {
      try {
        validate = this.provider.getValidator<unknown>(rest);
      } catch (err) {
        return {
          valid: false,
          problem: `the tool's input schema cannot be used (${err instanceof Error ? err.message : String(err)})`,
        };
      }
      this.compiled.set(name, validate);
    }
    return verdict(validate, args);
  }
}

let ajv: Promise<typeof AjvModule> | undefined;

/** Ajv, loaded on the first call and once only, not at boot: it costs ~30 ms to import, and most starts make no tool call. */
export function loadAjv(): Promise<typeof AjvModule> {
  return (ajv ??= import('@modelcontextprotocol/sdk/validation/ajv'));
}

function verdict(validate: JsonSchemaValidator<unknown>, args: unknown): ArgsCheck {
  const result = validate(args);
  return result.valid ? { valid: true } : { valid: false, problem: result.errorMessage };
}
