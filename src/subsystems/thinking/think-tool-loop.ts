/**
 * A think's tool loop, whatever the provider: call the model, answer each tool call it made (an external MCP tool,
 * the recall tool, or one of Vigil's own actions, dispatched by kind), send the answers back, until the model ends
 * its turn or the iteration guard stops it. Aborts only between calls. The provider builds requests and reads replies.
 */
import { toolUseToAction, type ToolContext } from './own-tools.js';
import { answerRecall, RECALL_TOOL_NAME, type MemoryRecall } from './recall-tool.js';
import { answerScheduleTool, isScheduleTool, type ModelSchedules } from './schedule-tools.js';
import type { ExternalToolResult, ThinkTools } from './think-tools.js';
import type { ThinkSession } from './think-session.js';

/** One tool call the model asked for. */
export interface ToolUse {
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
  /** Why the call cannot be made as asked (arguments that are not JSON): answered with this as an error, never run. */
  readonly invalid?: string;
}

/** The answer to one tool call, for the provider to send back: an MCP result as it came, or a plain text. */
export type ToolAnswer =
  | { readonly kind: 'external'; readonly toolUseId: string; readonly result: ExternalToolResult }
  | { readonly kind: 'text'; readonly toolUseId: string; readonly text: string; readonly isError: boolean };

/** The provider's side of the loop: one model call at a time, with what the loop has added since the first. */
export interface ThinkLoopModel<Reply> {
  /** The most model calls one think may make (VIGIL_MAX_TOOL_ITERATIONS). */
  readonly maxIterations: number;
  /** Call `n` of the loop; null when what the loop added no longer leaves room for the prompt (the think ends there). */
  call(n: number): Promise<Reply | null>;
  /** The tool calls of a reply, in order. */
  toolUses(reply: Reply): readonly ToolUse[];
  /** The reply stopped to have its tool calls answered. */
  wantsTools(reply: Reply): boolean;
  /** The reply and the answers to its tool calls go into the next call's request. */
  append(reply: Reply, answers: readonly ToolAnswer[]): void;
}

/** What tool calls are answered with. */
export interface ToolDispatchDeps {
  /** The external tools (traced by the session's recorder), when the runtime has any. */
  readonly tools: ThinkTools | undefined;
  readonly memory: MemoryRecall | undefined;
  /** The runtime's schedules, for the model's `schedule_*` tools. */
  readonly schedules?: ModelSchedules | undefined;
  readonly ctx: ToolContext;
  readonly turnId: string;
}

type ToolKind = 'external' | 'recall' | 'schedule' | 'action';

/** Answers one tool call by its kind; an own action is gathered into the session, to be applied after the think. */
export function toolDispatcher(
  deps: ToolDispatchDeps,
  session: ThinkSession,
  signal: AbortSignal,
): (use: ToolUse) => Promise<ToolAnswer> {
  const handlers: Record<ToolKind, (use: ToolUse) => Promise<ToolAnswer>> = {
    external: async (use) => {
      const result = await deps.tools!.call({ name: use.name, args: use.input, turnId: deps.turnId }, signal);
      if (result.pendingApproval !== undefined) session.approvalPending();
      return { kind: 'external', toolUseId: use.id, result };
    },
    recall: async (use) => {
      const answer = await answerRecall(use.input, deps.memory, deps.turnId);
      return { kind: 'text', toolUseId: use.id, text: answer.text, isError: answer.isError };
    },
    // Stored at once (the model learns the id or why not), recorded in the trace like an own action.
    schedule: async (use) => {
      const answer = await answerScheduleTool(
        use.name as Parameters<typeof answerScheduleTool>[0],
        use.input,
        deps.schedules,
      );
      session.recorder.ownTool(use.id, use.name, !answer.isError, answer.isError ? answer.text : 'ok');
      return { kind: 'text', toolUseId: use.id, text: answer.text, isError: answer.isError };
    },
    // Synchronous, but returned as a promise like the other handlers.
    action: (use) => {
      const outcome = toolUseToAction(use.name, use.input, deps.ctx);
      session.recorder.ownTool(use.id, use.name, outcome.ok, outcome.ok ? 'ok' : outcome.error);
      if (!outcome.ok) return Promise.resolve({ kind: 'text', toolUseId: use.id, text: outcome.error, isError: true });
      session.actions.push(outcome.action);
      return Promise.resolve({ kind: 'text', toolUseId: use.id, text: 'ok', isError: false });
    },
  };
  // An external tool's name is never shadowed: the runtime's tools are asked first.
  const kindOf = (name: string): ToolKind =>
    deps.tools?.owns(name) === true
      ? 'external'
      : name === RECALL_TOOL_NAME
        ? 'recall'
        : isScheduleTool(name)
          ? 'schedule'
          : 'action';
  return (use) =>
    use.invalid === undefined ? handlers[kindOf(use.name)](use) : Promise.resolve(refused(use, use.invalid, session));
}

/** A call that cannot be made: recorded as a failed call and answered with the reason, so the model can correct it. */
function refused(use: ToolUse, reason: string, session: ThinkSession): ToolAnswer {
  session.recorder.ownTool(use.id, use.name, false, reason);
  return { kind: 'text', toolUseId: use.id, text: reason, isError: true };
}

/** Runs the loop; `checkAborted` throws (with the session's partial result) once the think is preempted. */
export async function runThinkLoop<Reply>(
  model: ThinkLoopModel<Reply>,
  dispatch: (use: ToolUse) => Promise<ToolAnswer>,
  checkAborted: () => void,
): Promise<void> {
  for (let n = 1; n <= model.maxIterations; n++) {
    checkAborted();
    const reply = await model.call(n);
    if (reply === null) return;
    const answers: ToolAnswer[] = [];
    for (const use of model.toolUses(reply)) answers.push(await dispatch(use));
    checkAborted();
    if (!model.wantsTools(reply) || answers.length === 0) return;
    model.append(reply, answers);
  }
}
