/** A JSON-RPC error the server answered with, as an exception: `code` and `data` exactly as on the wire, plus Vigil's string code. */
import type { JsonRpcErrorObject } from '../errors.js';

// The three protocol faults a Vigil server may send without `data` (the specification's exact shape); each JSON-RPC
// code names exactly one of them.
const PROTOCOL_FAULTS: Readonly<Record<number, string>> = {
  [-32700]: 'RPC_PARSE_ERROR',
  [-32600]: 'RPC_INVALID_REQUEST',
  [-32601]: 'RPC_METHOD_NOT_FOUND',
};

/** The server's error response to one call (for example -32001 with the checkpoint to confirm in `data`). */
export class RpcError extends Error {
  override readonly name = 'RpcError';
  /** The JSON-RPC error code (CONTRACT §4). */
  readonly code: number;
  readonly data: unknown;
  /**
   * Vigil's stable string code (`CHECKPOINT_NOT_FOUND`, `RPC_INVALID_PARAMS`, …): `data.vigilCode` as sent, or the
   * protocol fault a bare -32700/-32600/-32601 names; undefined only from a server that is not Vigil. A string, not
   * `VigilErrorCode`: a newer server may send a code this client does not list.
   */
  readonly vigilCode: string | undefined;
  /** The method that failed. */
  readonly method: string;

  constructor(error: JsonRpcErrorObject, method: string) {
    super(error.message);
    this.code = error.code;
    this.data = error.data;
    this.vigilCode = vigilCodeOf(error);
    this.method = method;
  }

  /** The error object as the server sent it. */
  toJSON(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

function vigilCodeOf(error: JsonRpcErrorObject): string | undefined {
  // -32602's zod issues stay an array (CONTRACT §4); each issue carries the code.
  const data: unknown = Array.isArray(error.data) ? error.data[0] : error.data;
  if (typeof data === 'object' && data !== null && !Array.isArray(data)) {
    const code = (data as { vigilCode?: unknown }).vigilCode;
    if (typeof code === 'string') return code;
  }
  return PROTOCOL_FAULTS[error.code];
}
