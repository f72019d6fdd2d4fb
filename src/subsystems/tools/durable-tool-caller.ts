/** Tool calls at most once: each call's intent is synced (with its `tool.called` event) before it runs, its result after; calls to tools under `requireApproval` wait for an operator. */
import { randomUUID } from 'node:crypto';
import { describeError, VigilError } from '../../errors.js';
import type { EventBus } from '../../events/event-bus.js';
import type { VigilEvent } from '../../protocol/events.schema.js';
import type { ToolApproval, ToolCallRecord } from '../../protocol/tool-call.schema.js';
import type { Clock } from '../../shared/clock.js';
import type { VigilLogger } from '../../shared/logger.js';
import type { EventRecorder } from '../journal/event-journal.js';
import type {
  ExternalToolDefinition,
  ExternalToolResult,
  ThinkTools,
  ToolCallNotice,
} from '../thinking/think-tools.js';
import { awaitingApprovalText } from './approval-notices.js';
import type { ApprovalWaits } from './approval-waits.js';
import { DurableRun } from './durable-run.js';
import type { McpHub } from './mcp-hub.js';
import type { ToolCallLog } from './tool-call-log.js';
import {
  isUntold,
  phaseOf,
  transition,
  turnWaits,
  type CallEvent,
  type CallState,
  type TurnWaits,
} from './tool-call-state.js';
import { ToolDefinitions } from './tool-definitions.js';
import { MCP_TOOL_PREFIX } from './tool-naming.js';
import { errorOutput } from './tool-output.js';

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

/** What an operator decides about a waiting call. */
type Verdict = { approved: true } | { approved: false; reason?: string };

/**
 * The runtime's `ThinkTools`. The list the model sees is every registered tool (a tool whose server is down keeps
 * its place, so a server going down does not change the cached prefix; a call to it comes back as an error saying
 * so). A call to a tool under `requireApproval` is recorded as pending (synced with `tool.approval_requested`) and
 * answered at once with a result saying it waits; `approve` runs it durably, `deny` does not, and either way the next
 * think of its turn is told. At boot `recover()` finds intents without a result: their calls are never run again;
 * `tool.interrupted` is emitted once for each, and the next think of its turn is told the outcome is unknown.
 */
export class DurableToolCaller implements ThinkTools, ApprovalWaits {
  private readonly listing: ToolDefinitions;
  /** The calls still to be decided, run or told, by callId, each in the order it entered its current phase. */
  private readonly calls = new Map<string, CallState>();
  /** The turns `calls` hold, derived from them: dropped by `apply`, the one place `calls` changes. */
  private waits: TurnWaits | undefined;
  private readonly run: DurableRun;
  // Approved calls are not tied to any think: nothing aborts them but their own timeout or the servers stopping.
  private readonly detached = new AbortController().signal;

  constructor(private readonly options: DurableToolCallerOptions) {
    this.run = new DurableRun(options);
    this.listing = new ToolDefinitions(() => options.hub.list());
  }

  definitions(): readonly ExternalToolDefinition[] {
    return this.listing.current();
  }

  owns(name: string): boolean {
    return name.startsWith(MCP_TOOL_PREFIX);
  }

  async call(
    request: { name: string; args: unknown; turnId: string; taskId?: string },
    signal: AbortSignal,
  ): Promise<ExternalToolResult> {
    const { name, args, turnId, taskId } = request;
    const tool = this.options.hub.get(name);
    const intent: ToolCallRecord = {
      callId: `call-${randomUUID()}`,
      turnId,
      ...(taskId === undefined ? {} : { taskId }),
      name,
      args: args ?? null,
      at: this.options.clock.now(),
      idempotent: tool?.idempotent ?? false,
    };
    if (tool?.requireApproval === true) return this.requestApproval(intent);
    return this.run.call(intent, signal);
  }

  /** Calls waiting for an operator's decision, oldest first. */
  pending(): ToolCallRecord[] {
    const waiting = [...this.calls.values()].flatMap((call) =>
      call.phase === 'awaiting-approval' ? [call.record] : [],
    );
    return waiting.sort((a, b) => a.at - b.at);
  }

  /**
   * Approves a waiting call: the decision and the call's `tool.called` are synced in one batch, then the call runs
   * (at most once: a crash while it runs leaves it interrupted, never re-run). `ran` settles once its result is
   * stored and ready for its turn; it never rejects.
   */
  async approve(callId: string): Promise<{ decision: ToolCallDecision; ran: Promise<void> }> {
    const { decided, decision } = await this.decide(callId, { approved: true });
    return { decision, ran: this.runApproved(decided) };
  }

  /** Denies a waiting call: it is never run; the next think of its turn is told, with `reason`. */
  async deny(callId: string, reason?: string): Promise<ToolCallDecision> {
    return (await this.decide(callId, { approved: false, ...(reason === undefined ? {} : { reason }) })).decision;
  }

  waitingTurnIds(): ReadonlySet<string> {
    return (this.waits ??= turnWaits(this.calls.values())).waiting;
  }

  heldTurnIds(): ReadonlySet<string> {
    return (this.waits ??= turnWaits(this.calls.values())).held;
  }

  /**
   * At boot: every intent without a result is reported (`tool.interrupted`, once) and kept for its turn's next think;
   * calls waiting for approval wait again; decisions their turn was not yet told are told.
   */
  async recover(): Promise<void> {
    for (const record of await this.options.log.all()) {
      if (phaseOf(record) !== 'interrupted-unannounced') {
        this.apply(record.callId, { type: 'recovered', record });
        continue;
      }
      await this.run.announceInterrupted(record);
      this.apply(record.callId, { type: 'announced', record });
    }
  }

  notices(turnIds: readonly string[]): readonly ToolCallNotice[] {
    const wanted = new Set(turnIds);
    const isOpen = this.options.isTurnOpen ?? (() => true);
    const unknown: ToolCallNotice[] = [];
    const decided: ToolCallNotice[] = [];
    for (const call of this.calls.values()) {
      if (!isUntold(call)) continue;
      const { turnId } = call.notice;
      // A call of unknown outcome is told to its own turn only; a decision also to any think once its turn has ended.
      if (call.phase === 'unknown-untold' && (turnId === undefined || wanted.has(turnId))) unknown.push(call.notice);
      if (call.phase === 'decided-untold' && (turnId === undefined || wanted.has(turnId) || !isOpen(turnId)))
        decided.push(call.notice);
    }
    return [...unknown, ...decided];
  }

  acknowledge(callIds: readonly string[]): void {
    for (const callId of callIds) {
      const call = this.calls.get(callId);
      if (call === undefined || !isUntold(call)) continue;
      this.apply(callId, { type: 'told' });
      if (call.phase !== 'decided-untold') continue;
      const delivered: ToolCallRecord = { ...call.record, approval: { ...call.record.approval!, delivered: true } };
      // Not awaited: a crash before it lands only tells the turn once more.
      this.options.log
        .approval(delivered, [])
        .catch((err: unknown) =>
          this.options.logger.error(
            { err: describeError(err), callId },
            'could not record that a tool call decision was told',
          ),
        );
    }
  }

  /** Records a call under `requireApproval` as pending, synced with `tool.approval_requested`, and says it waits. */
  private async requestApproval(intent: ToolCallRecord): Promise<ExternalToolResult> {
    const { log, journal, bus, logger } = this.options;
    const { callId, name, args, turnId, taskId } = intent;
    // An operator is never asked about a call that could not run: bad arguments go back to the model at once.
    const problem = await this.options.hub.argsProblem?.(name, args ?? {});
    if (problem !== undefined)
      return errorOutput(`The arguments for ${name} do not match its input schema: ${problem}.`).result;
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
      logger.error(
        { err: describeError(err), name },
        'a tool call approval request could not be written; the call is not made',
      );
      return errorOutput(
        `The call to ${name} was not made: Vigil could not record its approval request (${describeError(err)}).`,
      ).result;
    }
    this.apply(callId, { type: 'requested', record });
    bus.publish(requested);
    logger.info({ callId, name, turnId }, 'a tool call waits for approval');
    return { isError: false, content: [{ type: 'text', text: awaitingApprovalText(record) }], pendingApproval: callId };
  }

  /**
   * Takes the waiting call `callId` at once (so two decisions cannot both win; its turn keeps waiting, so no think sees
   * neither the wait nor the decision), writes the decision with `tool.approval_decided` (and an approved call's
   * `tool.called`), and returns the decided record. If the write fails the call waits again.
   */
  private async decide(
    callId: string,
    verdict: Verdict,
  ): Promise<{ decided: ToolCallRecord; decision: ToolCallDecision }> {
    const { log, journal, bus, clock } = this.options;
    const waiting = this.calls.get(callId);
    if (waiting?.phase !== 'awaiting-approval') throw await this.notWaiting(callId, waiting);
    this.apply(callId, { type: 'decision-started' });
    const { record } = waiting;
    const { approved } = verdict;
    const why = verdict.approved || verdict.reason === undefined ? {} : { reason: verdict.reason };
    const decidedAt = clock.now();
    const decided: ToolCallRecord = {
      ...record,
      approval: { state: approved ? 'approved' : 'denied', decidedAt, ...why },
    };
    const events: VigilEvent[] = [];
    try {
      events.push(bus.stamp('tool.approval_decided', { callId, name: record.name, approved, ...why }));
      if (approved) events.push(this.run.calledEvent(decided));
      await log.approval(
        decided,
        events.map((event) => journal.entryOp(event)),
      );
    } catch (err) {
      bus.withdraw(...events);
      this.apply(callId, { type: 'decision-failed' });
      throw err;
    }
    for (const event of events) bus.publish(event);
    this.apply(callId, { type: 'decided', record: decided });
    return { decided, decision: { callId, name: record.name, approved, ...why, decidedAt } };
  }

  /** Runs an approved call whose decision is on disk; settles once its result is stored and ready for its turn, never rejects. */
  private async runApproved(approved: ToolCallRecord): Promise<void> {
    const { callId } = approved;
    try {
      const { stored, written } = await this.run.execute(approved, this.detached);
      await written;
      this.apply(callId, { type: 'ran', result: stored });
    } catch (err) {
      this.options.logger.error({ err: describeError(err), callId }, 'an approved tool call failed to run');
      if (this.calls.get(callId)?.phase === 'running') this.apply(callId, { type: 'run-failed' });
    }
  }

  /** Why `callId` cannot be decided: unknown, being decided, already decided, or its tool needs no approval. */
  private async notWaiting(callId: string, call: CallState | undefined): Promise<VigilError> {
    const notPending = (why: string, state?: ToolApproval['state']) =>
      new VigilError('TOOL_CALL_NOT_PENDING', `Tool call ${callId} is not waiting for approval: ${why}.`, {
        data: { callId, ...(state === undefined ? {} : { state }) },
      });
    if (call?.phase === 'deciding') return notPending('it is being decided');
    const known =
      (call !== undefined && 'record' in call ? call.record : undefined) ?? (await this.options.log.get(callId));
    if (known === undefined) {
      return new VigilError(
        'TOOL_CALL_NOT_FOUND',
        `No tool call ${JSON.stringify(callId)} is known (see tools.pending).`,
        { data: { callId } },
      );
    }
    const state = known.approval?.state;
    return notPending(state === undefined ? 'its tool needs no approval' : `it was already ${state}`, state);
  }

  /** The one place `calls` changes: `event` moves the call on (a refusal is a bug here, thrown); the derived waits are dropped. */
  private apply(callId: string, event: CallEvent): void {
    const before = this.calls.get(callId);
    const step = transition(before, event);
    if (!step.ok) throw new VigilError('INTERNAL', `Tool call ${callId}: ${step.refused}.`, { data: { callId } });
    const after = step.state;
    if (after === before) return;
    // Re-inserted on a change of phase, so each phase lists its calls in the order they entered it: decisions are
    // told in the order they were made, not in the order the calls were requested.
    if (after === undefined || after.phase !== before?.phase) this.calls.delete(callId);
    if (after !== undefined) this.calls.set(callId, after);
    this.waits = undefined;
  }
}
