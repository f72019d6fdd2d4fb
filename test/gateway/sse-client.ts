/** A minimal Server-Sent Events reader on node's http client (what `curl -N` does), for tests. */
import { request, type IncomingHttpHeaders } from 'node:http';

/** One SSE message. */
export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
}

/** An open SSE stream. */
export interface SseStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** The raw text received, as curl would print it. */
  raw(): string;
  messages: SseMessage[];
  waitFor(test: (messages: SseMessage[]) => boolean, what?: string, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Opens `url` and parses the stream as it arrives. */
export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      let raw = '';
      let pending = '';
      const messages: SseMessage[] = [];
      const waiters: Array<() => void> = [];
      res.setEncoding('utf8').on('data', (chunk: string) => {
        raw += chunk;
        pending += chunk;
        let end: number;
        while ((end = pending.indexOf('\n\n')) >= 0) {
          const block = pending.slice(0, end);
          pending = pending.slice(end + 2);
          const message: SseMessage = { data: '' };
          let hasData = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) continue;
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'data') {
              message.data = hasData ? `${message.data}\n${value}` : value;
              hasData = true;
            } else if (field === 'id') message.id = value;
            else if (field === 'event') message.event = value;
          }
          if (hasData) messages.push(message);
        }
        for (const waiter of [...waiters]) waiter();
      });
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        raw: () => raw,
        messages,
        waitFor(test, what = 'SSE messages', timeoutMs = 10_000) {
          if (test(messages)) return Promise.resolve();
          return new Promise((done, fail) => {
            const timer = setTimeout(
              () => fail(new Error(`timed out waiting for ${what}; got ${JSON.stringify(messages)}`)),
              timeoutMs,
            );
            const check = (): void => {
              if (!test(messages)) return;
              clearTimeout(timer);
              waiters.splice(waiters.indexOf(check), 1);
              done();
            };
            waiters.push(check);
          });
        },
        close: () => req.destroy(),
      });
    });
    req.on('error', (err) => {
      if ((err as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(err);
    });
    req.end();
  });
}
