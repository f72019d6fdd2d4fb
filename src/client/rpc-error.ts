/** A JSON-RPC error the server answered with, as an exception: `code` and `data` exactly as on the wire. */
import type { JsonRpcErrorObject } from '../errors.js';

/** The server's error response to one call (for example -32001 with the checkpoint to confirm in `data`). */
export class RpcError extends Error {
  override readonly name = 'RpcError';
  /** The JSON-RPC error code (CONTRACT §4). */
  readonly code: number;
  readonly data: unknown;
  /** The method that failed. */
  readonly method: string;

  constructor(error: JsonRpcErrorObject, method: string) {
    super(error.message);
    this.code = error.code;
    this.data = error.data;
    this.method = method;
  }

  /** The error object as the server sent it. */
  toJSON(): JsonRpcErrorObject {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }
}
