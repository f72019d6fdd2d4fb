/** `GET /metrics`: the runtime's metrics in the Prometheus text format, behind the gateway's token check. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { VigilLogger } from '../shared/logger.js';
import type { MetricsFacade } from '../runtime/facade/metrics.facade.js';

/** The handler for `/metrics`; authentication has already happened in the HTTP server. */
export function metricsRoute(
  metrics: MetricsFacade,
  log: VigilLogger,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    metrics.text().then(
      (text) => {
        res.writeHead(200, {
          // prom-client's own content type (text format 0.0.4), so scrapers parse exactly what it writes.
          'content-type': metrics.contentType,
          'content-length': Buffer.byteLength(text),
          // Every scrape must see fresh values: no proxy or browser may answer from a cache.
          'cache-control': 'no-store',
        });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: unknown) => {
        // A collector that throws (a default metric on an exotic platform) must not take the daemon down.
        log.warn({ err }, 'metrics collection failed');
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('metrics collection failed\n');
      },
    );
  };
}
