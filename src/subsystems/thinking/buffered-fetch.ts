/** The `fetch` every non-streaming model call goes through: the whole body read inside the SDK's per-attempt timeout. */

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * `fetch` that reads the whole response body before resolving. The SDK arms its timeout around fetch only, which
 * resolves at the headers: a server that sent headers and then stalled would hang the think until the stuck-turn
 * guard (VIGIL_STUCK_TURN_S). Read inside, the body falls under the per-attempt timeout, and a body cut short fails
 * the attempt as a connection error, which the SDK retries. Right only for non-streaming calls.
 */
export async function bufferedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  const body = await response.arrayBuffer();
  const headers = new Headers(response.headers);
  // The body is already decoded and complete: the wire's encoding and length no longer describe it.
  headers.delete('content-encoding');
  headers.delete('content-length');
  return new Response(NULL_BODY_STATUSES.has(response.status) ? null : body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}
