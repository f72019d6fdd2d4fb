/** The gateway's one table from fault to wire: JSON-RPC error objects (standard messages for protocol faults) and WebSocket close codes. */
import {
  isVigilError,
  JSON_RPC_CODE_BY_ERROR,
  VigilError,
  wireData,
  type JsonRpcErrorObject,
  type VigilErrorCode,
} from '../errors.js';
import type { VigilLogger } from '../shared/logger.js';

/** WebSocket close codes the gateway uses (RFC 6455 §7.4.1), with why. */
export const CLOSE_CODES = {
  /** The daemon is stopping. */
  goingAway: 1001,
  /** A binary frame: the gateway speaks JSON text frames only. */
  unsupportedData: 1003,
  /** An event subscriber fell so far behind that even dropping events did not help. */
  policyViolation: 1008,
  /** A frame over the 1 MiB limit (ws's `maxPayload` closes with it). */
  messageTooBig: 1009,
} as const;

// JSON-RPC 2.0 §5.1: the standard errors carry exactly these messages.
const STANDARD_MESSAGES: Partial<Record<VigilErrorCode, string>> = {
  RPC_PARSE_ERROR: 'Parse error',
  RPC_INVALID_REQUEST: 'Invalid Request',
  RPC_METHOD_NOT_FOUND: 'Method not found',
};

/** A protocol fault with its standard message; `data` only where it helps (an oversized batch, -32601's suggestions). */
export function protocolError(
  code: 'RPC_PARSE_ERROR' | 'RPC_INVALID_REQUEST' | 'RPC_METHOD_NOT_FOUND',
  data?: unknown,
): VigilError {
  return new VigilError(code, STANDARD_MESSAGES[code]!, data === undefined ? {} : { data });
}

/**
 * The JSON-RPC error object for anything a method threw: protocol faults exactly as the specification writes them,
 * VigilErrors through the code table of src/errors.ts, and anything else as -32603 `INTERNAL` (logged, never leaked).
 * Every `data` carries `vigilCode` (errors.ts `wireData`); only a bare protocol fault has no `data` at all.
 */
export function toWireError(err: unknown, log: VigilLogger, method?: string): JsonRpcErrorObject {
  if (isVigilError(err)) {
    const standard = STANDARD_MESSAGES[err.code];
    if (standard !== undefined) {
      const code = JSON_RPC_CODE_BY_ERROR[err.code]!;
      // §5.1's -32700, -32600 and -32601 name their fault one to one, and the specification's examples carry no
      // `data`: a bare one goes out exactly so. One with a detail (`reason`) carries `vigilCode` beside it.
      return err.data === undefined
        ? { code, message: standard }
        : { code, message: standard, data: wireData(err.code, err.data) };
    }
    if (err.code === 'INTERNAL') log.error({ err, method }, 'an RPC method failed');
    return err.toJsonRpc();
  }
  log.error({ err, method }, 'an RPC method threw an unexpected error');
  return new VigilError('INTERNAL', 'Internal error').toJsonRpc();
}
