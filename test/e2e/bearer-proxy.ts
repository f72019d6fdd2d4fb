/**
 * A reverse proxy for tests whose client cannot send the token (the MCP conformance suite): it adds
 * `Authorization: Bearer` and passes everything else through untouched, `Host` and `Origin` above all, and streams
 * both ways (SSE answers arrive as they are written).
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A listening proxy; `target` is set once the upstream's port is known (the upstream is started after the proxy). */
export interface BearerProxy {
  /** `http://127.0.0.1:PORT`, the proxy's own origin. */
  url: string;
  port: number;
  /** Where requests go: `{host, port}` of the upstream. */
  target: { host: string; port: number } | undefined;
  close(): Promise<void>;
}

/** Starts the proxy on 127.0.0.1, any free port. */
export async function startBearerProxy(token: string): Promise<BearerProxy> {
  const proxy: BearerProxy = { url: '', port: 0, target: undefined, close: () => close(server) };
  const server: Server = createServer((req, res) => {
    const target = proxy.target;
    if (target === undefined) {
      res.writeHead(503).end();
      return;
    }
    // rawHeaders keeps every header as sent, Host and Origin included, in order and case.
    const headers: string[] = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      if (req.rawHeaders[i]!.toLowerCase() !== 'authorization')
        headers.push(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
    }
    headers.push('Authorization', `Bearer ${token}`);
    const upstream = request(
      { host: target.host, port: target.port, method: req.method, path: req.url, headers, setHost: false },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        res.flushHeaders();
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.port = (server.address() as AddressInfo).port;
  proxy.url = `http://127.0.0.1:${proxy.port}`;
  return proxy;
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
