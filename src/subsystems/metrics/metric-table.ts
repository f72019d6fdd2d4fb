/** Builds prom-client metrics from a declarative table, so each metric is one row (kind, name, help, labels). */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** One metric's declaration: its kind, name and help text, its label names, and (a histogram's) buckets. */
export type MetricSpec =
  | {
      readonly type: 'counter' | 'gauge';
      readonly name: string;
      readonly help: string;
      readonly labelNames?: readonly string[];
    }
  | {
      readonly type: 'histogram';
      readonly name: string;
      readonly help: string;
      readonly labelNames?: readonly string[];
      readonly buckets: readonly number[];
    };

/** A table of metrics by the key the code uses for each. */
export type MetricTable = Readonly<Record<string, MetricSpec>>;

type LabelOf<S> = S extends { readonly labelNames: readonly (infer L extends string)[] } ? L : string;
type MetricOf<S extends MetricSpec> = S['type'] extends 'counter'
  ? Counter<LabelOf<S>>
  : S['type'] extends 'gauge'
    ? Gauge<LabelOf<S>>
    : Histogram<LabelOf<S>>;

/** The metrics a table builds, by the same keys, typed by their kind and labels. */
export type MetricsOf<T extends MetricTable> = { readonly [K in keyof T]: MetricOf<T[K]> };

/**
 * Creates every metric of `table` (in the table's order) in `registry`; `collect` (by key) runs before a metric is
 * read, so values tallied elsewhere can be brought in at a scrape.
 */
export function buildMetrics<T extends MetricTable>(
  table: T,
  registry: Registry,
  collect: Partial<Record<keyof T, () => void>> = {},
): MetricsOf<T> {
  const metrics: Record<string, Counter | Gauge | Histogram> = {};
  for (const [key, spec] of Object.entries(table)) metrics[key] = buildMetric(spec, registry, collect[key]);
  return metrics as MetricsOf<T>;
}

function buildMetric(spec: MetricSpec, registry: Registry, collect?: () => void): Counter | Gauge | Histogram {
  // Labels only where declared, as a hand-written declaration would pass them.
  const common = {
    name: spec.name,
    help: spec.help,
    ...(spec.labelNames === undefined ? {} : { labelNames: [...spec.labelNames] }),
    registers: [registry],
    ...(collect === undefined ? {} : { collect }),
  };
  switch (spec.type) {
    case 'counter':
      return new Counter(common);
    case 'gauge':
      return new Gauge(common);
    case 'histogram':
      return new Histogram({ ...common, buckets: [...spec.buckets] });
  }
}
