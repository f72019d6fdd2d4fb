/** The gateway's HTTP server: one listener on VIGIL_HOST:VIGIL_PORT; `/healthz` answers without auth. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the gateway needs from the runtime to answer `/healthz`. */
export interface HealthSource {
  status(): { beatCount: number };
}

/** A listening gateway. */
export interface Gateway {
  /** `http://host:port` as actually bound (port 0 resolved). */
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Starts the HTTP server and resolves once it listens. */
export async function startGateway(options: { host: string; port: number; runtime: HealthSource }): Promise<Gateway> {
  const server = createServer((req, res) => handle(req, res, options.runtime));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function handle(req: IncomingMessage, res: ServerResponse, runtime: HealthSource): void {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (path === '/healthz' && (req.method === 'GET' || req.method === 'HEAD')) {
    sendJson(res, 200, { ok: true, beatCount: runtime.status().beatCount });
    return;
  }
  sendJson(res, 404, { error: 'not found' });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
