/** Tool calls at most once: each call's intent is synced (with its `tool.called` event) before it runs, its result after; calls to tools under `requireApproval` wait for an operator. */
import { randomUUID } from 'node:crypto';
import { describeError, isVigilError, VigilError } from '../../errors.js';
import type { EventBus } from '../../events/event-bus.js';
import type { ToolCallRecord, ToolCallResult } from '../../protocol/tool-call.schema.js';
import type { Clock } from '../../shared/clock.js';
import type { VigilLogger } from '../../shared/logger.js';
import type { EventRecorder } from '../journal/event-journal.js';
import type { ExternalToolDefinition, ExternalToolResult, ThinkTools, ToolCallNotice } from '../thinking/think-tools.js';
import { awaitingApprovalText, decidedNoticeLine } from './approval-notices.js';
import { NO_APPROVAL_WAITS, type ApprovalWaits } from './approval-waits.js';
import type { McpHub } from './mcp-hub.js';
import type { ToolCallLog } from './tool-call-log.js';
import { MCP_TOOL_PREFIX } from './tool-naming.js';
import { errorOutput, shapeToolOutput, type ShapedToolOutput } from './tool-output.js';
import type { RegisteredTool } from './tool-registry.js';

/** What the caller needs. */
export interface DurableToolCallerOptions {
  hub: Pick<McpHub, 'list' | 'get' | 'callTool'> & Partial<Pick<McpHub, 'argsProblem'>>;
  log: ToolCallLog;
  journal: EventRecorder;
  bus: EventBus;
  clock: Clock;
  logger: VigilLogger;
  /**
   * True while a user turn is open (default: always). A decision whose turn has ended (the model answered it anyway)
   * or that belongs to autonomous work is shown to the next think of any turn instead of waiting for its own.
   */
  isTurnOpen?: (turnId: string) => boolean;
}

/** An operator's decision, as recorded. */
export interface ToolCallDecision {
  callId: string;
  name: string;
  approved: boolean;
  reason?: string;
  /** Epoch ms. */
  decidedAt: number;
}

/** A decided call whose outcome its turn has not been shown yet. */
interface DecidedCall {
  record: ToolCallRecord;
  notice: ToolCallNotice;
}

/**
 * The runtime's `ThinkTools`. The list the model sees is every registered tool (a tool whose server is down keeps
 * its place, so a server going down does not change the cached prefix; a call to it comes back as an error saying
 * so). A call to a tool under `requireApproval` is recorded as pending (synced with `tool.approval_requested`) and
 * answered at once with a result saying it waits; `approve` runs it durably, `deny` does not, and either way the next
 * think of its turn is told. At boot `recover()` finds intents without a result: their calls are never run again;
 * `tool.interrupted` is emitted once for each, and the next think of its turn is told the outcome is unknown.
 */
export class DurableToolCaller implements ThinkTools, ApprovalWaits {
  private listed: readonly RegisteredTool[] | undefined;
  private defs: readonly ExternalToolDefinition[] = [];
  private readonly unknown = new Map<string, ToolCallNotice>();
  /** Calls waiting for an operator, by callId, in the order they were requested. */
  private readonly awaiting = new Map<string, ToolCallRecord>();
  /** Approved calls still running: their turns wait on. */
  private readonly running = new Map<string, ToolCallRecord>();
  /** Decided calls whose turn was not yet told. */
  private readonly decided = new Map<string, DecidedCall>();
  private waits: { waiting: ReadonlySet<string>; held: ReadonlySet<string> } | undefined;
  // Approved calls are not tied to any think: nothing aborts them but their own timeout or the servers stopping.
  private readonly detached = new AbortController().signal;

  constructor(private readonly options: DurableToolCallerOptions) {}

  definitions(): readonly ExternalToolDefinition[] {
    const registry = this.options.hub.list();
    // The registry array is replaced only when a server's listing or state changes: rebuild then, not every think.
    if (registry !== this.listed) {
      const next = registry.map((tool) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
        ...(tool.requireApproval ? { requireApproval: true as const } : {}),
      }));
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
    const { name, args, turnId, taskId } = request;
    const callId = `call-${randomUUID()}`;
    const tool = hub.get(name);
    const intent: ToolCallRecord = {
      callId,
      turnId,
      ...(taskId === undefined ? {} : { taskId }),
      name,
      args: args ?? null,
      at: clock.now(),
      idempotent: tool?.idempotent ?? false,
    };
    if (tool?.requireApproval === true) return this.requestApproval(intent);
    const called = this.calledEvent(intent);
    try {
      await log.intent(intent, [journal.entryOp(called)]);
    } catch (err) {
      bus.withdraw(called);
      // Without its intent on disk the call could not be proven at most once after a crash: it is not made.
      this.options.logger.error({ err: describeError(err), name }, 'a tool call intent could not be written; the call is not made');
      return errorOutput(`The call to ${name} was not made: Vigil could not record it (${describeError(err)}).`).result;
    }
    // The request goes out first (it leaves in this tick), then `tool.called` reaches the subscribers (journal,
    // gateway, metrics) while the server works: their time is not added to the call's.
    const running = this.execute(intent, signal);
    bus.publish(called);
    return (await running).result;
  }

  /** Calls waiting for an operator's decision, oldest first. */
  pending(): ToolCallRecord[] {
    return [...this.awaiting.values()].sort((a, b) => a.at - b.at);
  }

  /**
   * Approves a waiting call: the decision and the call's `tool.called` are synced in one batch, then the call runs
   * (at most once: a crash while it runs leaves it interrupted, never re-run). `ran` settles once its result is
   * stored and ready for its turn; it never rejects.
   */
  async approve(callId: string): Promise<{ decision: ToolCallDecision; ran: Promise<void> }> {
    const { log, journal, bus, clock } = this.options;
    const record = await this.take(callId);
    const decidedAt = clock.now();
    const approved: ToolCallRecord = { ...record, approval: { state: 'approved', decidedAt } };
    const decidedEvent = bus.stamp('tool.approval_decided', { callId, name: record.name, approved: true });
    const called = this.calledEvent(approved);
    this.running.set(callId, approved);
    try {
      await log.approval(approved, [journal.entryOp(decidedEvent), journal.entryOp(called)]);
    } catch (err) {
      bus.withdraw(decidedEvent, called);
      this.running.delete(callId);
      this.restore(record);
      throw err;
    }
    bus.publish(decidedEvent);
    bus.publish(called);
    const ran = this.execute(approved, this.detached).then(
      async ({ stored, written }) => {
        await written;
        this.ready({ ...approved, result: stored });
      },
      (err: unknown) => this.options.logger.error({ err: describeError(err), callId }, 'an approved tool call failed to run'),
    ).finally(() => {
      this.running.delete(callId);
      this.waits = undefined;
    });
    return { decision: { callId, name: record.name, approved: true, decidedAt }, ran };
  }

  /** Denies a waiting call: it is never run; the next think of its turn is told, with `reason`. */
  async deny(callId: string, reason?: string): Promise<ToolCallDecision> {
    const { log, journal, bus, clock } = this.options;
    const record = await this.take(callId);
    const decidedAt = clock.now();
    const why = reason === undefined ? {} : { reason };
    const denied: ToolCallRecord = { ...record, approval: { state: 'denied', decidedAt, ...why } };
    const event = bus.stamp('tool.approval_decided', { callId, name: record.name, approved: false, ...why });
    try {
      await log.approval(denied, [journal.entryOp(event)]);
    } catch (err) {
      bus.withdraw(event);
      this.running.delete(callId);
      this.restore(record);
      throw err;
    }
    bus.publish(event);
    this.running.delete(callId);
    this.ready(denied);
    return { callId, name: record.name, approved: false, ...why, decidedAt };
  }

  waitingTurnIds(): ReadonlySet<string> {
    return this.turnWaits().waiting;
  }

  heldTurnIds(): ReadonlySet<string> {
    return this.turnWaits().held;
  }

  /**
   * At boot: every intent without a result is reported (`tool.interrupted`, once) and kept for its turn's next think;
   * calls waiting for approval wait again; decisions their turn was not yet told are told.
   */
  async recover(): Promise<void> {
    const { log, journal, bus } = this.options;
    for (const record of await log.all()) {
      const approval = record.approval;
      if (approval?.state === 'pending') {
        this.awaiting.set(record.callId, record);
        continue;
      }
      if (approval?.state === 'denied') {
        if (approval.delivered !== true) this.ready(record);
        continue;
      }
      if (record.result !== undefined) {
        if (approval !== undefined && approval.delivered !== true) this.ready(record);
        continue;
      }
      if (record.interruptedReported !== true) {
        const event = bus.stamp('tool.interrupted', { callId: record.callId, name: record.name });
        try {
          await log.reported(record, [journal.entryOp(event)]);
        } catch (err) {
          bus.withdraw(event);
          throw err;
        }
        bus.publish(event);
        // An approved call's turn is told through its decision (which persists until told); others as before.
        if (approval === undefined) this.unknown.set(record.callId, { callId: record.callId, turnId: record.turnId, name: record.name, line: noticeLine(record) });
      }
      if (approval !== undefined && approval.delivered !== true) this.ready({ ...record, interruptedReported: true });
    }
    this.waits = undefined;
  }

  notices(turnIds: readonly string[]): readonly ToolCallNotice[] {
    const wanted = new Set(turnIds);
    const isOpen = this.options.isTurnOpen ?? (() => true);
    const unknown = [...this.unknown.values()].filter((notice) => notice.turnId === undefined || wanted.has(notice.turnId));
    const decided = [...this.decided.values()]
      .map((call) => call.notice)
      .filter((notice) => notice.turnId === undefined || wanted.has(notice.turnId) || !isOpen(notice.turnId));
    return [...unknown, ...decided];
  }

  acknowledge(callIds: readonly string[]): void {
    for (const callId of callIds) {
      this.unknown.delete(callId);
      const told = this.decided.get(callId);
      if (told === undefined) continue;
      this.decided.delete(callId);
      this.waits = undefined;
      const record = told.record;
      const delivered: ToolCallRecord = { ...record, approval: { ...record.approval!, delivered: true } };
      // Not awaited: a crash before it lands only tells the turn once more.
      this.options.log.approval(delivered, []).catch((err: unknown) =>
        this.options.logger.error({ err: describeError(err), callId }, 'could not record that a tool call decision was told'),
      );
    }
  }

  /** Records a call under `requireApproval` as pending, synced with `tool.approval_requested`, and says it waits. */
  private async requestApproval(intent: ToolCallRecord): Promise<ExternalToolResult> {
    const { log, journal, bus, logger } = this.options;
    const { callId, name, args, turnId, taskId } = intent;
    // An operator is never asked about a call that could not run: bad arguments go back to the model at once.
    const problem = await this.options.hub.argsProblem?.(name, args ?? {});
    if (problem !== undefined) return errorOutput(`The arguments for ${name} do not match its input schema: ${problem}.`).result;
    const record: ToolCallRecord = { ...intent, at: this.options.clock.now(), approval: { state: 'pending' } };
    const requested = bus.stamp('tool.approval_requested', {
      callId,
      name,
      args,
      ...(turnId === undefined ? {} : { turnId }),
      ...(taskId === undefined ? {} : { taskId }),
    });
    try {
      await log.intent(record, [journal.entryOp(requested)]);
    } catch (err) {
      bus.withdraw(requested);
      logger.error({ err: describeError(err), name }, 'a tool call approval request could not be written; the call is not made');
      return errorOutput(`The call to ${name} was not made: Vigil could not record its approval request (${describeError(err)}).`).result;
    }
    this.awaiting.set(callId, record);
    this.waits = undefined;
    bus.publish(requested);
    logger.info({ callId, name, turnId }, 'a tool call waits for approval');
    return { isError: false, content: [{ type: 'text', text: awaitingApprovalText(record) }], pendingApproval: callId };
  }

  /** Runs a call whose intent is on disk, then stores its result with `tool.completed` (`written` settles when it lands; it never rejects). */
  private async execute(
    intent: ToolCallRecord,
    signal: AbortSignal,
  ): Promise<{ result: ExternalToolResult; stored: ToolCallResult; written: Promise<void> }> {
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
    // reads wait for it, and the journal has the event from the bus; a crash before it lands leaves the call
    // interrupted (outcome unknown, never run again), the safe side.
    const written = log.result(intent, stored, [journal.entryOp(completed)]).catch((err: unknown) => {
      this.options.logger.error({ err: describeError(err), name, callId }, 'a tool call result could not be written');
    });
    bus.publish(completed);
    return { result: { ...shaped.result, callId, resultBytes: shaped.resultBytes }, stored, written };
  }

  private calledEvent(record: ToolCallRecord) {
    const { callId, turnId, taskId, name, args } = record;
    return this.options.bus.stamp('tool.called', {
      callId,
      ...(turnId === undefined ? {} : { turnId }),
      ...(taskId === undefined ? {} : { taskId }),
      name,
      argsBytes: Buffer.byteLength(JSON.stringify(args ?? null), 'utf8'),
    });
  }

  /** The waiting call `callId`, taken out of the waiting list at once (so two decisions cannot both win). */
  private async take(callId: string): Promise<ToolCallRecord> {
    const record = this.awaiting.get(callId);
    if (record !== undefined) {
      // Held among the running calls while its decision is written: its turn must not be thought about in between
      // (a think then would see neither the wait nor the decision, and ask again).
      this.awaiting.delete(callId);
      this.running.set(callId, record);
      this.waits = undefined;
      return record;
    }
    const known = this.running.get(callId) ?? (await this.options.log.get(callId));
    if (known === undefined) {
      throw new VigilError('TOOL_CALL_NOT_FOUND', `No tool call ${JSON.stringify(callId)} is known (see tools.pending).`, { data: { callId } });
    }
    const state = known.approval?.state;
    const why = state !== undefined ? `it was already ${state}` : this.running.has(callId) ? 'it is being decided' : 'its tool needs no approval';
    throw new VigilError('TOOL_CALL_NOT_PENDING', `Tool call ${callId} is not waiting for approval: ${why}.`, {
      data: { callId, ...(state === undefined ? {} : { state }) },
    });
  }

  /** Puts a call back in the waiting list after its decision could not be written. */
  private restore(record: ToolCallRecord): void {
    const rest = [...this.awaiting.values()];
    this.awaiting.clear();
    for (const call of [record, ...rest].sort((a, b) => a.at - b.at)) this.awaiting.set(call.callId, call);
    this.waits = undefined;
  }

  /** A decided call (ran, denied or cut short) waits to be told to a think of its turn. */
  private ready(record: ToolCallRecord): void {
    const notice: ToolCallNotice = { callId: record.callId, turnId: record.turnId, name: record.name, line: decidedNoticeLine(record) };
    this.decided.set(record.callId, { record, notice });
    this.waits = undefined;
  }

  private turnWaits(): { waiting: ReadonlySet<string>; held: ReadonlySet<string> } {
    if (this.waits !== undefined) return this.waits;
    const turnsOf = (records: Iterable<{ turnId?: string | undefined }>) =>
      [...records].flatMap((record) => (record.turnId === undefined ? [] : [record.turnId]));
    const waitingIds = [...turnsOf(this.awaiting.values()), ...turnsOf(this.running.values())];
    const heldIds = [...waitingIds, ...turnsOf([...this.decided.values()].map((call) => call.record))];
    this.waits = {
      waiting: waitingIds.length === 0 ? NO_APPROVAL_WAITS : new Set(waitingIds),
      held: heldIds.length === 0 ? NO_APPROVAL_WAITS : new Set(heldIds),
    };
    return this.waits;
  }
}

function noticeLine(record: ToolCallRecord): string {
  const again = record.idempotent
    ? 'It is idempotent: you may call it again if you still need its result.'
    : 'It was not run again: do not assume it did or did not take effect; check or ask before repeating it.';
  return `Tool call ${record.callId} (${record.name} with arguments ${JSON.stringify(record.args)}) was interrupted by a restart: its outcome is unknown. ${again}`;
}
