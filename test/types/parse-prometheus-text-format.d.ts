/** Types for parse-prometheus-text-format (it ships none): the prom2json-shaped families it returns. */
declare module 'parse-prometheus-text-format' {
  /** Parses the text format; throws InvalidLineError on a line that is not valid text format. */
  function parsePrometheusTextFormat(text: string): parsePrometheusTextFormat.PromFamily[];

  namespace parsePrometheusTextFormat {
    /** One sample of a counter, gauge or untyped family (values are strings, as in prom2json). */
    interface PromSample {
      value: string;
      labels?: Record<string, string>;
    }

    /** One histogram series: cumulative bucket counts by `le`, plus count and sum. */
    interface PromHistogramSample {
      buckets: Record<string, string>;
      count: string;
      sum: string;
      labels?: Record<string, string>;
    }

    /** One metric family. */
    interface PromFamily {
      name: string;
      help: string;
      type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
      metrics: Array<PromSample | PromHistogramSample>;
    }
  }

  export = parsePrometheusTextFormat;
}
