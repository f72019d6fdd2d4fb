/**
 * The A2A `AgentExecutor`: a message becomes one turn of the agent (as `agent.send`, with the sender's scope), its
 * task recorded in the same batch; the task ends with the turn's reply. A task is one turn: a further message to a
 * task still open is refused, and a turn cannot be cancelled once admitted (the runtime has no such stop), so
 * `CancelTask` answers the SDK's "not cancelable".
 */
import { Task, TaskState } from '@a2a-js/sdk';
import { RequestMalformedError, TaskNotCancelableError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import {
  AgentEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
  type ServerCallContext,
} from '@a2a-js/sdk/server';
import type { A2aHost, TurnOutcome } from '../../runtime/a2a/a2a-host.js';
import type { Caller } from '../../runtime/facade/tokens.facade.js';
import type { A2aTaskStore } from '../../runtime/a2a/a2a-task-store.js';
import { endingMessage, type A2aTaskEndings } from '../../runtime/a2a/a2a-task-endings.js';

/** Where the gateway puts its caller in an A2A call's context. */
export const CALLER_KEY = 'vigil.caller';

/** The owner name of a caller's tasks: its token's id (the daemon's own token has none). */
export function ownerName(caller: Caller): string {
  return caller.tokenId === null ? 'daemon' : `token:${caller.tokenId}`;
}

export function callerOf(context: ServerCallContext): Caller {
  const caller = context.state.get(CALLER_KEY) as Caller | undefined;
  // The route puts it there before any call; without it nothing may run.
  if (caller === undefined) throw new Error('an A2A call came without its gateway caller');
  return caller;
}

/** The message's text parts, one after another. */
function textOf(context: RequestContext): string {
  return context.userMessage.parts
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .filter((text) => text !== '')
    .join('\n');
}

export class VigilAgentExecutor implements AgentExecutor {
  constructor(
    private readonly host: A2aHost,
    private readonly store: A2aTaskStore,
    private readonly endings: A2aTaskEndings,
    private readonly now: () => number,
  ) {}

  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    if (context.task !== undefined)
      throw new UnsupportedOperationError('A Vigil task is one turn: send a new message (no taskId) for another.');
    const text = textOf(context);
    if (text === '') throw new RequestMalformedError('The message has no text part; Vigil reads text.');
    const caller = callerOf(context.context);
    const { taskId, contextId } = context;
    let task: Task | undefined;
    let ending: Promise<TurnOutcome> | undefined;
    let turn: string | undefined;
    const admitting = this.host.admit({ text, from: `a2a:${caller.name}` }, caller.scope, (turnId, seq) => {
      task = {
        id: taskId,
        contextId,
        status: {
          state: TaskState.TASK_STATE_WORKING,
          message: undefined,
          timestamp: new Date(this.now()).toISOString(),
        },
        artifacts: [],
        history: [context.userMessage],
        metadata: { vigilTurnId: turnId },
      };
      turn = turnId;
      ending = this.endings.expect(turnId);
      const json = Task.toJSON(task) as Parameters<A2aTaskStore['admissionOp']>[0]['task'];
      return [this.store.admissionOp({ owner: ownerName(caller), turnId, seq, task: json })];
    });
    try {
      await admitting;
    } catch (err) {
      if (turn !== undefined) this.endings.forget(turn);
      throw err;
    }
    bus.publish(AgentEvent.task(task!));
    const outcome = await ending!;
    await this.endings.end(taskId, outcome);
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: {
          state: outcome.answered ? TaskState.TASK_STATE_COMPLETED : TaskState.TASK_STATE_FAILED,
          message: endingMessage(task!, outcome.turnId, outcome.text),
          timestamp: new Date(this.now()).toISOString(),
        },
        metadata: undefined,
      }),
    );
    bus.finished();
  }

  cancelTask(taskId: string): Promise<void> {
    return Promise.reject(
      new TaskNotCancelableError(
        `Task ${taskId} is a turn the agent has admitted; Vigil answers every admitted turn, so it cannot be cancelled.`,
      ),
    );
  }
}
