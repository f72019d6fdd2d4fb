/**
 * Creates the spans of a think through `@opentelemetry/api`, with the times the trace recorded (not the time of
 * writing) and explicit parent contexts, so nesting needs no context manager and spans can be written after the fact.
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type HrTime,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { SpanDescription } from './think-spans.js';

/** Epoch ms as OTel's [seconds, nanoseconds]: a bare number before the process started would be read as `performance.now()`. */
export function hrTimeOf(epochMs: number): HrTime {
  const seconds = Math.floor(epochMs / 1000);
  return [seconds, Math.round((epochMs - seconds * 1000) * 1e6)];
}

/** Starts and ends every described span on `tracer`; a parent is started before its children and ended after them. */
export function writeSpans(tracer: Tracer, descriptions: readonly SpanDescription[]): void {
  const contexts = new Map<string, Context>();
  const started: Array<{ span: Span; endTime: number }> = [];
  for (const description of descriptions) {
    const parent =
      description.parentKey === null ? ROOT_CONTEXT : (contexts.get(description.parentKey) ?? ROOT_CONTEXT);
    const span = tracer.startSpan(
      description.name,
      {
        kind: description.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL,
        startTime: hrTimeOf(description.startTime),
        attributes: description.attributes,
      },
      parent,
    );
    if (description.error !== undefined)
      span.setStatus({ code: SpanStatusCode.ERROR, message: description.error.message });
    contexts.set(description.key, trace.setSpan(parent, span));
    started.push({ span, endTime: description.endTime });
  }
  for (const { span, endTime } of started.reverse()) span.end(hrTimeOf(endTime));
}
