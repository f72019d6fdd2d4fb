/** Vigil's one error type: a stable `AREA_REASON` code, a sentence naming the offending value, and how it renders on the wire. */

import { ERROR_CODES, JSON_RPC_CODE_BY_ERROR, type JsonRpcErrorObject, type VigilErrorCode } from './protocol/error-codes.js';

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

  /** The JSON-RPC error this error becomes on the wire. */
  toJsonRpc(): JsonRpcErrorObject {
    const code = JSON_RPC_CODE_BY_ERROR[this.code] ?? -32603;
    const base: JsonRpcErrorObject = { code, message: this.message };
    const data = this.data === undefined ? { vigilCode: this.code } : this.data;
    return { ...base, data };
  }
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
