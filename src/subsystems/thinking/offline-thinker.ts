/** The offline thinker: deterministic answers from simple patterns, no network, so Vigil runs without an API key. */
import { VigilError, describeError } from '../../errors.js';
import { stateMessage } from './anthropic-prompt.js';
import { CallTraceRecorder } from './call-trace-recorder.js';
import { answerMessage, offlineContext } from './offline-replies.js';
import { stateSections } from './prompt-sections.js';
import { answerToolCommand, parseToolCommand } from './offline-tool-command.js';
import { answerTaskCommand, runTaskToolLines } from './offline-task.js';
import { answerRecallCommand, parseRecallCommand } from './offline-recall-command.js';
import { answerScheduleCommand, parseScheduleCommand } from './offline-schedule-command.js';
import { refusalBeyondScope } from './offline-command-scope.js';
import type { ModelSchedules } from './schedule-tools.js';
import type { MemoryRecall } from './recall-tool.js';
import { keyTerms, excerpt } from './offline-text.js';
import { debrief, digestSwarmResult, workOnGoal } from './offline-work.js';
import type { ThinkTools } from './think-tools.js';
import { extractiveSummary } from './summary-lines.js';
import type { SummaryRequest, SummaryResult } from './summary-request.js';
import type { Thinker } from './thinker.js';
import {
  ZERO_USAGE,
  type SwarmTaskInput,
  type SwarmTaskOutput,
  type ThinkAction,
  type ThinkInput,
  type ThinkResult,
} from './thinker.schema.js';

/** Options of the offline thinker. */
export interface OfflineThinkerOptions {
  /** Model name reported in results (default `offline`). */
  model?: string;
  /** Simulated cost of each think and task in integer micro-dollars (default 0), so budgets can be exercised offline. */
  costPerThinkMicroUsd?: number;
}

/** Rejects with THINK_ABORTED if `signal` has aborted. */
function checkAborted(signal: AbortSignal, what: string): void {
  if (signal.aborted) {
    throw new VigilError('THINK_ABORTED', `The offline ${what} was aborted: ${describeError(signal.reason)}.`, {
      cause: signal.reason,
    });
  }
}

/** Same input, same output: no clock but `input.now`, no randomness, no I/O but the tool calls a `/tool` message asks for. Steps yield to the event loop so an abort is seen between them. */
export class OfflineThinker implements Thinker {
  readonly kind = 'offline';
  readonly model: string;
  readonly costPerThinkMicroUsd: number;
  private tools: ThinkTools | undefined;
  private memory: MemoryRecall | undefined;
  private schedules: ModelSchedules | undefined;

  constructor(options: OfflineThinkerOptions = {}) {
    const cost = options.costPerThinkMicroUsd ?? 0;
    if (!Number.isSafeInteger(cost) || cost < 0) {
      throw new VigilError(
        'CONFIG_INVALID',
        `costPerThinkMicroUsd=${cost} is invalid: expected a whole number of micro-dollars, 0 or more.`,
        {
          data: {
            variable: 'VIGIL_OFFLINE_COST_USD',
            value: cost,
            allowed: 'a whole number of micro-dollars, 0 or more',
          },
        },
      );
    }
    this.model = options.model ?? 'offline';
    this.costPerThinkMicroUsd = cost;
  }

  /** Lets `/tool NAME {json}` messages call the runtime's MCP tools. */
  useTools(tools: ThinkTools): void {
    this.tools = tools;
  }

  /** Lets `/recall QUERY` messages search the runtime's long-term memory. */
  useMemory(memory: MemoryRecall): void {
    this.memory = memory;
  }

  /** Lets `/schedule add {json}`, `/schedule list` and `/schedule remove ID` messages use the model's schedule tools. */
  useSchedules(schedules: ModelSchedules): void {
    this.schedules = schedules;
  }

  /**
   * Answers pending messages, digests swarm results, then does the reason's own work (a goal step or a debrief). The
   * commands that act (`/tool`, `/schedule`, `/task tools=…`) do so only for a sender with operate (offline-command-scope.ts).
   */
  async think(input: ThinkInput, signal: AbortSignal): Promise<ThinkResult> {
    const what = `think for turn ${input.turnId}`;
    const step = async (): Promise<void> => {
      await Promise.resolve();
      checkAborted(signal, what);
    };
    checkAborted(signal, what);
    const ctx = offlineContext(input);
    const actions: ThinkAction[] = [];
    // No model calls; its tool calls and the state it read (rendered as Claude would be shown it) make its trace.
    const recorder = new CallTraceRecorder(this.model, undefined, () => input.now);
    const tools = this.tools === undefined ? undefined : recorder.traced(this.tools);
    // A message whose answer waited on a task is answered by digesting the task's result, not by a second take.
    const digested = new Set(input.swarmResults.map((result) => result.turnId));
    for (const message of input.pendingMessages) {
      if (digested.has(message.turnId)) continue;
      const recallQuery = parseRecallCommand(message.text);
      if (recallQuery !== undefined) {
        actions.push(...(await answerRecallCommand(message, recallQuery, this.memory)));
        await step();
        continue;
      }
      const scheduleCommand = parseScheduleCommand(message.text);
      if (scheduleCommand !== undefined) {
        actions.push(
          ...(refusalBeyondScope(message, '/schedule') ??
            (await answerScheduleCommand(message, scheduleCommand, this.schedules))),
        );
        await step();
        continue;
      }
      const command = parseToolCommand(message.text);
      const task = command === undefined ? answerTaskCommand(message, tools) : undefined;
      // A task given tools calls them as `/tool` would (offline-task.ts): the same scope.
      const givesTools = task?.some((action) => action.type === 'spawn_task' && action.tools !== undefined) === true;
      if (task !== undefined)
        actions.push(...((givesTools ? refusalBeyondScope(message, '/task tools=…') : undefined) ?? task));
      else if (command === undefined) actions.push(...answerMessage(message, ctx));
      else
        actions.push(
          ...(refusalBeyondScope(message, '/tool') ?? (await answerToolCommand(message, command, tools, signal))),
        );
      await step();
    }
    for (const result of input.swarmResults) {
      actions.push(...digestSwarmResult(result));
      await step();
    }
    if (input.reason === 'goal_work') actions.push(...workOnGoal(ctx));
    if (input.reason === 'debrief') actions.push(...debrief(input, ctx));
    // Always one last yield, so even an empty think notices an abort that came after it started.
    await step();
    const state = stateMessage(input);
    const answer = actions.flatMap((a) => (a.type === 'reply' ? [a.text] : [])).join('\n\n');
    const trace = {
      calls: [],
      toolCalls: recorder.toolCalls,
      sections: stateSections(state),
      stopReason: 'end_turn',
      content: {
        messages: [
          { role: 'user', text: state },
          { role: 'assistant', text: answer },
        ],
      },
    };
    return { model: this.model, actions, usage: { ...ZERO_USAGE }, costMicroUsd: this.costPerThinkMicroUsd, trace };
  }

  /** The extractive summary: deterministic, free, no model call. */
  async summarize(request: SummaryRequest, signal: AbortSignal): Promise<SummaryResult> {
    checkAborted(signal, 'summary update');
    await Promise.resolve();
    return extractiveSummary(request);
  }

  /**
   * A deterministic stand-in for research: restates the prompt's key terms as findings. A prompt with `/tool NAME
   * {json}` lines instead calls those tools (its own only) in order and reports each result (offline-task.ts).
   */
  async runTask(input: SwarmTaskInput, signal: AbortSignal): Promise<SwarmTaskOutput> {
    const what = `task ${input.taskId}`;
    checkAborted(signal, what);
    await Promise.resolve();
    checkAborted(signal, what);
    const toolLines = await runTaskToolLines(input, this.tools, signal);
    checkAborted(signal, what);
    if (toolLines.length > 0) {
      return {
        text: toolLines.join('\n'),
        usage: { ...ZERO_USAGE },
        costMicroUsd: this.costPerThinkMicroUsd,
        model: this.model,
      };
    }
    const terms = keyTerms(input.prompt);
    const body =
      terms.length === 0
        ? 'the prompt has no key terms to go on, so there is nothing to report.'
        : `working offline, I could only reason from the question. Key terms: ${terms.join(', ')}. Next step: consult sources on ${terms[0]}.`;
    const text = `Findings on "${excerpt(input.prompt, 80)}": ${body}`;
    return { text, usage: { ...ZERO_USAGE }, costMicroUsd: this.costPerThinkMicroUsd, model: this.model };
  }
}
