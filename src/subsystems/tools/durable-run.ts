/** One tool call run at most once: its intent synced with `tool.called` before the server is asked, its result written after with `tool.completed`. */
import { describeError, isVigilError } from '../../errors.js';
import type { EventBus } from '../../events/event-bus.js';
import type { VigilEventOf } from '../../protocol/events.schema.js';
import type { ToolCallRecord, ToolCallResult } from '../../protocol/tool-call.schema.js';
import type { VigilLogger } from '../../shared/logger.js';
import type { EventRecorder } from '../journal/event-journal.js';
import type { ExternalToolResult } from '../thinking/think-tools.js';
import type { McpHub } from './mcp-hub.js';
import type { ToolCallLog } from './tool-call-log.js';
import { errorOutput, shapeToolOutput, type ShapedToolOutput } from './tool-output.js';

/** What a durable run needs. */
export interface DurableRunOptions {
  hub: Pick<McpHub, 'callTool'>;
  log: ToolCallLog;
  journal: EventRecorder;
  bus: EventBus;
  logger: VigilLogger;
}

/** A call run and its result stored: what the caller sees, what was stored, and `written` (settles when it lands; never rejects). */
export interface ExecutedCall {
  result: ExternalToolResult;
  stored: ToolCallResult;
  written: Promise<void>;
}

/**
 * The I/O of a call's durability, each write paired with the event it reports (stamped before the write, published
 * after it, withdrawn if it fails): the intent, the result, and the announcement of a call a crash left unknown.
 */
export class DurableRun {
  constructor(private readonly options: DurableRunOptions) {}

  /** Writes `intent` (synced, with `tool.called`) and runs it; a call whose intent could not be written is not made. */
  async call(intent: ToolCallRecord, signal: AbortSignal): Promise<ExternalToolResult> {
    const { log, journal, bus } = this.options;
    const called = this.calledEvent(intent);
    try {
      await log.intent(intent, [journal.entryOp(called)]);
    } catch (err) {
      bus.withdraw(called);
      // Without its intent on disk the call could not be proven at most once after a crash: it is not made.
      this.options.logger.error(
        { err: describeError(err), name: intent.name },
        'a tool call intent could not be written; the call is not made',
      );
      return errorOutput(`The call to ${intent.name} was not made: Vigil could not record it (${describeError(err)}).`)
        .result;
    }
    // The request goes out first (it leaves in this tick), then `tool.called` reaches the subscribers (journal,
    // gateway, metrics) while the server works: their time is not added to the call's.
    const running = this.execute(intent, signal);
    bus.publish(called);
    return (await running).result;
  }

  /** Runs a call whose intent is on disk, then stores its result with `tool.completed`. */
  async execute(intent: ToolCallRecord, signal: AbortSignal): Promise<ExecutedCall> {
    const { hub, log, journal, bus } = this.options;
    const { callId, name, args } = intent;
    const started = performance.now();
    let shaped: ShapedToolOutput;
    // A signal of its own per call: the SDK leaves its abort listener on the signal it is given, and the think's
    // signal lives for every call of the think (and a `/tool` think's for all of them).
    const own = new AbortController();
    const forward = () => own.abort(signal.reason);
    if (signal.aborted) forward();
    else signal.addEventListener('abort', forward, { once: true });
    try {
      shaped = shapeToolOutput(await hub.callTool(name, args ?? {}, { signal: own.signal }));
    } catch (err) {
      shaped = errorOutput(isVigilError(err) ? err.message : `The call to ${name} failed: ${describeError(err)}.`);
    } finally {
      signal.removeEventListener('abort', forward);
    }
    const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
    const ok = !shaped.result.isError;
    const stored: ToolCallResult = { ok, durationMs, resultBytes: shaped.resultBytes, text: shaped.text };
    const completed = bus.stamp('tool.completed', { callId, name, ok, durationMs, resultBytes: shaped.resultBytes });
    // Not waited for by the call: at most once needs only the intent on disk, and the result's write (never synced
    // on its own) goes in the next batch of the log, usually with the next call's intent. Until it lands the log's
    // reads wait for it; a crash before it lands leaves the call interrupted (outcome unknown, never run again), the
    // safe side. `tool.completed` is published once the record is written: the journal writes every published event
    // in batches of its own, and one that reached the disk ahead of the record would say "completed" for a call the
    // next boot reports interrupted (simulator seeds 714 and 798). If the write fails, the call did complete all the
    // same and the feed says so; only after a restart is it reported interrupted too, its result being unknown to
    // the log.
    const written = log.result(intent, stored, [journal.entryOp(completed)]).then(
      () => bus.publish(completed),
      (err: unknown) => {
        this.options.logger.error({ err: describeError(err), name, callId }, 'a tool call result could not be written');
        bus.publish(completed);
      },
    );
    return { result: { ...shaped.result, callId, resultBytes: shaped.resultBytes }, stored, written };
  }

  /** Marks a call a crash cut short as reported, with `tool.interrupted` (emitted once per call, ever). */
  async announceInterrupted(record: ToolCallRecord): Promise<void> {
    const { log, journal, bus } = this.options;
    const event = bus.stamp('tool.interrupted', { callId: record.callId, name: record.name });
    try {
      await log.reported(record, [journal.entryOp(event)]);
    } catch (err) {
      bus.withdraw(event);
      throw err;
    }
    bus.publish(event);
  }

  /** `tool.called` for `record`, stamped: the caller publishes it after its write, or withdraws it. */
  calledEvent(record: ToolCallRecord): VigilEventOf<'tool.called'> {
    const { callId, turnId, taskId, name, args } = record;
    return this.options.bus.stamp('tool.called', {
      callId,
      ...(turnId === undefined ? {} : { turnId }),
      ...(taskId === undefined ? {} : { taskId }),
      name,
      argsBytes: Buffer.byteLength(JSON.stringify(args ?? null), 'utf8'),
    });
  }
}
