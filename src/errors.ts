/** Vigil's one error type: a stable `AREA_REASON` code, a sentence naming the offending value, and how it renders on the wire. */

import {
  ERROR_CODES,
  JSON_RPC_CODE_BY_ERROR,
  type JsonRpcErrorObject,
  type VigilErrorCode,
} from './protocol/error-codes.js';

export { ERROR_CODES, JSON_RPC_CODE_BY_ERROR, type JsonRpcErrorObject, type VigilErrorCode };

/** Vigil's error: `code` is stable and tested; `message` is for people; `data` travels to RPC clients. */
export class VigilError extends Error {
  override readonly name = 'VigilError';
  readonly code: VigilErrorCode;
  readonly data: unknown;

  constructor(code: VigilErrorCode, message: string, options: { cause?: unknown; data?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.data = options.data;
  }

  /** The JSON-RPC error this error becomes on the wire; its `data` always carries `vigilCode` (see `wireData`). */
  toJsonRpc(): JsonRpcErrorObject {
    const code = JSON_RPC_CODE_BY_ERROR[this.code] ?? -32603;
    return { code, message: this.message, data: wireData(this.code, this.data) };
  }
}

/**
 * The `data` of a VigilError as it goes on the wire: it always carries `vigilCode`, the error's code, so a
 * client can tell apart the errors that share a JSON-RPC code (-32004 for a checkpoint, a goal or a subscription).
 * Whatever else `data` held stays where clients read it:
 * - a plain object keeps its fields, `vigilCode` added (-32001's `{id, beatCount, createdAt, vigilCode}`);
 * - an array stays an array, because CONTRACT §4 puts -32602's zod issues in `data` itself: each issue carries
 *   `vigilCode` beside its own zod `code` (`[{code: 'invalid_type', path, message, vigilCode: 'RPC_INVALID_PARAMS'}]`);
 * - anything else (a string, a number, a class instance) goes under `value`;
 * - none gives `{vigilCode}` alone.
 */
export function wireData(code: VigilErrorCode, data: unknown): unknown {
  if (data === undefined) return { vigilCode: code };
  if (Array.isArray(data) && data.length > 0 && data.every(isPlainObject))
    return data.map((item) => ({ ...item, vigilCode: code }));
  if (Array.isArray(data)) return { vigilCode: code, value: data };
  // The error's own code wins over a `vigilCode` the data may already carry: they can only disagree by mistake.
  if (isPlainObject(data)) return { ...data, vigilCode: code };
  return { vigilCode: code, value: data };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** True when `err` is a VigilError, optionally with the given code. */
export function isVigilError(err: unknown, code?: VigilErrorCode): err is VigilError {
  return err instanceof VigilError && (code === undefined || err.code === code);
}

/** A readable one-line reason for any thrown value. */
export function describeError(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
