/** JSON-RPC 2.0 framing: one text frame in (request, notification or batch), at most one frame out, exactly as the specification says. */
import type { JsonRpcErrorObject } from '../errors.js';
import { protocolError } from './gateway-faults.js';

/** A request id: string, number or null (§4). */
export type JsonRpcId = string | number | null;

/** A valid request or notification (`id` absent). */
export interface JsonRpcRequest {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown> | unknown[];
  id?: JsonRpcId;
}

/** A response object (§5). */
export type JsonRpcResponse =
  { jsonrpc: '2.0'; result: unknown; id: JsonRpcId } | { jsonrpc: '2.0'; error: JsonRpcErrorObject; id: JsonRpcId };

/** Runs one call; throws to answer with an error. Notifications run too, their outcome is just not sent. */
export type CallHandler = (request: JsonRpcRequest) => Promise<unknown>;

/** Turns whatever a call threw into the error object to send. */
export type ErrorRenderer = (err: unknown, method: string) => JsonRpcErrorObject;

/** The most requests one batch may hold; a larger batch is one -32600 (the frame limit already bounds it at ~30,000). */
export const MAX_BATCH_SIZE = 1000;

/**
 * Handles one frame's text: the response object, the array of responses for a batch, or null when nothing is to be
 * sent (a notification, or a batch of only notifications).
 */
export async function handleJsonRpcFrame(
  text: string,
  call: CallHandler,
  renderError: ErrorRenderer,
): Promise<JsonRpcResponse | JsonRpcResponse[] | null> {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return failure(null, protocolError('RPC_PARSE_ERROR'), renderError);
  }
  if (!Array.isArray(message)) return handleOne(message, call, renderError);
  // §6: an empty batch is one Invalid Request, not an empty array.
  if (message.length === 0) return failure(null, protocolError('RPC_INVALID_REQUEST'), renderError);
  if (message.length > MAX_BATCH_SIZE) {
    return failure(
      null,
      protocolError('RPC_INVALID_REQUEST', { reason: `a batch may hold at most ${MAX_BATCH_SIZE} requests` }),
      renderError,
    );
  }
  const responses = await Promise.all(message.map((entry) => handleOne(entry, call, renderError)));
  const sent = responses.filter((response): response is JsonRpcResponse => response !== null);
  return sent.length === 0 ? null : sent;
}

async function handleOne(
  message: unknown,
  call: CallHandler,
  renderError: ErrorRenderer,
): Promise<JsonRpcResponse | null> {
  const request = asRequest(message);
  if (request === null) return failure(detectableId(message), protocolError('RPC_INVALID_REQUEST'), renderError);
  const isNotification = !Object.hasOwn(request, 'id');
  try {
    const result = await call(request);
    // `undefined` would vanish from the JSON and leave a response without `result`.
    return isNotification
      ? null
      : { jsonrpc: '2.0', result: result === undefined ? null : result, id: request.id ?? null };
  } catch (err) {
    return isNotification ? null : { jsonrpc: '2.0', error: renderError(err, request.method), id: request.id ?? null };
  }
}

function failure(id: JsonRpcId, err: unknown, renderError: ErrorRenderer): JsonRpcResponse {
  return { jsonrpc: '2.0', error: renderError(err, ''), id };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is JsonRpcId {
  return value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/** The request if `message` is a valid Request object (§4), else null. */
function asRequest(message: unknown): JsonRpcRequest | null {
  if (!isObject(message)) return null;
  if (message['jsonrpc'] !== '2.0' || typeof message['method'] !== 'string') return null;
  const params = message['params'];
  if (params !== undefined && typeof params !== 'object') return null;
  if (params === null) return null;
  if (Object.hasOwn(message, 'id') && !isId(message['id'])) return null;
  return message as unknown as JsonRpcRequest;
}

// §5: the id of an invalid request is echoed when it can be read, null otherwise.
function detectableId(message: unknown): JsonRpcId {
  if (!isObject(message)) return null;
  const id = message['id'];
  return isId(id) ? id : null;
}
