/**
 * The `fetch` model calls go through: a whole body read inside the SDK's per-attempt timeout, and an event stream
 * (a streamed reply) passed on as it arrives, under a watch for silence instead.
 */

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * `fetch` that reads the whole response body before resolving. The SDK arms its timeout around fetch only, which
 * resolves at the headers: a server that sent headers and then stalled would hang the think until the stuck-turn
 * guard (VIGIL_STUCK_TURN_S). Read inside, the body falls under the per-attempt timeout, and a body cut short fails
 * the attempt as a connection error, which the SDK retries. Right only for non-streaming calls.
 */
export async function bufferedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  return buffered(await fetch(input, init));
}

async function buffered(response: Response): Promise<Response> {
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

/** A streamed reply went quiet: no byte for longer than the per-attempt timeout. */
export class StreamStalledError extends Error {
  override readonly name = 'StreamStalledError';
}

/**
 * `fetch` for calls that may stream: a JSON body is read whole (as `bufferedFetch` does); an event stream is passed on
 * as it arrives, failing with StreamStalledError once no byte came for `idleMs`. The SDK's timeout ends at the
 * headers, so without this a stream that stalls mid-reply would hang the think.
 */
export function streamingFetch(idleMs: number): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const type = response.headers.get('content-type') ?? '';
    if (!type.startsWith('text/event-stream') || response.body === null) return buffered(response);
    return new Response(watchedForSilence(response.body, idleMs), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

function watchedForSilence(body: ReadableStream<Uint8Array>, idleMs: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const silence = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new StreamStalledError(`the streamed reply sent nothing for ${idleMs} ms`)),
          idleMs,
        );
      });
      try {
        const { done, value } = await Promise.race([reader.read(), silence]);
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (err) {
        reader.cancel(err).catch(() => undefined);
        controller.error(err);
      } finally {
        clearTimeout(timer);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
