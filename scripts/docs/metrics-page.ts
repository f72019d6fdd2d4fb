/** docs/reference/metrics.md's table: every metric of Vigil's own registry, read from a registry built as the daemon builds it. */
import { VigilMetrics } from '../../src/subsystems/metrics/vigil-metrics.js';
import { code, table } from './markdown.js';

interface MetricFacts {
  name: string;
  help: string;
  type: string;
  labelNames?: readonly string[];
}

/** One row per metric, in registration order (prom-client's default process metrics left out: see the page). */
export function renderMetrics(): string {
  const metrics = new VigilMetrics({ defaultMetrics: false });
  const rows = (metrics.registry.getMetricsAsArray() as unknown as MetricFacts[]).map((m) => [
    code(m.name),
    m.type,
    (m.labelNames ?? []).map(code).join(', '),
    m.help,
  ]);
  return table(['metric', 'type', 'labels', 'what'], rows);
}
