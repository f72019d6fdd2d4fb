/**
 * A bounded queue in front of the SDK's BatchSpanProcessor, and an exporter wrapper that reports what reached the
 * collector. Spans past the bound are dropped and counted, so a slow or unreachable collector costs memory up to
 * the bound and never a wait: the heartbeat only ever hands spans over.
 */
import { TraceFlags, type Context } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, Span, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace';

/** Why spans were lost: the queue was full, or the collector did not take a batch. */
export type SpanDropReason = 'queue_full' | 'export_failed';

/** Where the counts go (the `/metrics` counters). */
export interface SpanCounts {
  exported(count: number): void;
  dropped(reason: SpanDropReason, count: number): void;
}

/** Spans ended but not yet handed to the exporter: the batch processor's queue, seen from outside it. */
export class SpanQueueGauge {
  private queued = 0;

  /** How many spans wait in the batch processor. */
  get size(): number {
    return this.queued;
  }

  /** One span entered the queue. */
  added(): void {
    this.queued += 1;
  }

  /** The batch processor took `count` spans out of its queue to export them. */
  taken(count: number): void {
    this.queued = Math.max(0, this.queued - count);
  }
}

/** Drops spans (and counts them) once `maxQueueSize` of them wait for export; passes the rest to `inner`. */
export class BoundedSpanProcessor implements SpanProcessor {
  constructor(
    private readonly inner: SpanProcessor,
    private readonly queue: SpanQueueGauge,
    private readonly maxQueueSize: number,
    private readonly counts: SpanCounts,
  ) {}

  onStart(span: Span, parentContext: Context): void {
    this.inner.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    // The batch processor queues sampled spans only; the others pass through without taking a place.
    if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) {
      this.inner.onEnd(span);
      return;
    }
    if (this.queue.size >= this.maxQueueSize) {
      this.counts.dropped('queue_full', 1);
      return;
    }
    this.queue.added();
    this.inner.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
}

/** What the exporter wrapper tells about the collector: it refused a batch, or took one after refusing. */
export interface ExportWatcher {
  failed(error: Error | undefined, spans: number): void;
  recovered(): void;
}

/** Wraps the OTLP exporter: frees the queue's places as batches leave it, and counts each batch's outcome. */
export class CountingSpanExporter implements SpanExporter {
  private failing = false;

  constructor(
    private readonly inner: SpanExporter,
    private readonly queue: SpanQueueGauge,
    private readonly counts: SpanCounts,
    private readonly watcher: ExportWatcher,
  ) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    // The batch processor has just taken these out of its queue.
    this.queue.taken(spans.length);
    this.inner.export(spans, (result) => {
      if (result.code === ExportResultCode.SUCCESS) {
        this.counts.exported(spans.length);
        if (this.failing) this.watcher.recovered();
        this.failing = false;
      } else {
        this.counts.dropped('export_failed', spans.length);
        if (!this.failing) this.watcher.failed(result.error, spans.length);
        this.failing = true;
      }
      resultCallback(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
