/** Tool calls at most once: each call's intent is synced (with its `tool.called` event) before it runs, its result after. */
import { randomUUID } from 'node:crypto';
import { describeError, isVigilError } from '../../errors.js';
import type { EventBus } from '../../events/event-bus.js';
import type { ToolCallRecord } from '../../protocol/tool-call.schema.js';
import type { Clock } from '../../shared/clock.js';
import type { VigilLogger } from '../../shared/logger.js';
import type { EventRecorder } from '../journal/event-journal.js';
import type { ExternalToolDefinition, ExternalToolResult, ThinkTools, ToolCallNotice } from '../thinking/think-tools.js';
import type { McpHub } from './mcp-hub.js';
import type { ToolCallLog } from './tool-call-log.js';
import { MCP_TOOL_PREFIX } from './tool-naming.js';
import { errorOutput, shapeToolOutput, type ShapedToolOutput } from './tool-output.js';
import type { RegisteredTool } from './tool-registry.js';

/** What the caller needs. */
export interface DurableToolCallerOptions {
  hub: Pick<McpHub, 'list' | 'get' | 'callTool'>;
  log: ToolCallLog;
  journal: EventRecorder;
  bus: EventBus;
  clock: Clock;
  logger: VigilLogger;
}

/**
 * The runtime's `ThinkTools`. The list the model sees is every registered tool but those needing approval (a tool
 * whose server is down keeps its place, so a server going down does not change the cached prefix; a call to it comes back as an error saying so).
 * At boot `recover()` finds intents without a result: their calls are never run again; `tool.interrupted` is
 * emitted once for each, and the next think of its turn is told the outcome is unknown.
 */
export class DurableToolCaller implements ThinkTools {
  private listed: readonly RegisteredTool[] | undefined;
  private defs: readonly ExternalToolDefinition[] = [];
  private readonly unknown = new Map<string, ToolCallNotice>();

  constructor(private readonly options: DurableToolCallerOptions) {}

  definitions(): readonly ExternalToolDefinition[] {
    const registry = this.options.hub.list();
    // The registry array is replaced only when a server's listing or state changes: rebuild then, not every think.
    if (registry !== this.listed) {
      // Tools that need an operator's approval are held back until approvals exist (the next slice): never called unasked.
      const next = registry.filter((tool) => !tool.requireApproval).map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }));
      // A server going down flips `available` only: same bytes, so the same array is kept (and the prompt cache).
      if (JSON.stringify(next) !== JSON.stringify(this.defs)) this.defs = next;
      this.listed = registry;
    }
    return this.defs;
  }

  owns(name: string): boolean {
    return name.startsWith(MCP_TOOL_PREFIX);
  }

  async call(request: { name: string; args: unknown; turnId: string; taskId?: string }, signal: AbortSignal): Promise<ExternalToolResult> {
    const { hub, log, journal, bus, clock } = this.options;
    const { name, args, turnId } = request;
    const task = request.taskId === undefined ? {} : { taskId: request.taskId };
    if (hub.get(name)?.requireApproval === true) {
      return errorOutput(`${name} needs an operator's approval, which this version of Vigil cannot ask for yet: it was not called.`).result;
    }
    const callId = `call-${randomUUID()}`;
    const argsJson = JSON.stringify(args ?? null);
    const intent: ToolCallRecord = { callId, turnId, ...task, name, args: args ?? null, at: clock.now(), idempotent: hub.get(name)?.idempotent ?? false };
    const called = bus.stamp('tool.called', { callId, turnId, ...task, name, argsBytes: Buffer.byteLength(argsJson, 'utf8') });
    try {
      await log.intent(intent, [journal.entryOp(called)]);
    } catch (err) {
      // Without its intent on disk the call could not be proven at most once after a crash: it is not made.
      this.options.logger.error({ err: describeError(err), name }, 'a tool call intent could not be written; the call is not made');
      return errorOutput(`The call to ${name} was not made: Vigil could not record it (${describeError(err)}).`).result;
    }
    bus.publish(called);
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
    const completed = bus.stamp('tool.completed', { callId, name, ok, durationMs, resultBytes: shaped.resultBytes });
    try {
      await log.result(intent, { ok, durationMs, resultBytes: shaped.resultBytes, text: shaped.text }, [journal.entryOp(completed)]);
    } catch (err) {
      this.options.logger.error({ err: describeError(err), name, callId }, 'a tool call result could not be written');
    }
    bus.publish(completed);
    return shaped.result;
  }

  /** At boot: every intent without a result is reported (`tool.interrupted`, once) and kept for its turn's next think. */
  async recover(): Promise<void> {
    const { log, journal, bus } = this.options;
    for (const record of await log.all()) {
      if (record.result !== undefined) continue;
      if (record.interruptedReported !== true) {
        const event = bus.stamp('tool.interrupted', { callId: record.callId, name: record.name });
        await log.reported(record, [journal.entryOp(event)]);
        bus.publish(event);
        this.unknown.set(record.callId, { callId: record.callId, turnId: record.turnId, name: record.name, line: noticeLine(record) });
      }
    }
  }

  notices(turnIds: readonly string[]): readonly ToolCallNotice[] {
    const wanted = new Set(turnIds);
    return [...this.unknown.values()].filter((notice) => notice.turnId === undefined || wanted.has(notice.turnId));
  }

  acknowledge(callIds: readonly string[]): void {
    for (const callId of callIds) this.unknown.delete(callId);
  }
}

function noticeLine(record: ToolCallRecord): string {
  const again = record.idempotent
    ? 'It is idempotent: you may call it again if you still need its result.'
    : 'It was not run again: do not assume it did or did not take effect; check or ask before repeating it.';
  return `Tool call ${record.callId} (${record.name} with arguments ${JSON.stringify(record.args)}) was interrupted by a restart: its outcome is unknown. ${again}`;
}
