/** One WebSocket upgrade attempt, for auth tests (no vitest imports: the hostile-traffic child process uses it too). */
import { WebSocket } from 'ws';

/**
 * Tries a WebSocket upgrade to `url` (from `localAddress`, e.g. 127.0.0.2, when given); resolves with the HTTP status
 * of a refusal, or 101 when a socket opened.
 */
export function tryUpgrade(url: string, headers: Record<string, string> = {}, localAddress?: string): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers, localAddress });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('open', () => {
      resolve(101);
      ws.close();
    });
    ws.on('error', () => undefined);
  });
}
