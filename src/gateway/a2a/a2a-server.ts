/**
 * The A2A server behind `/a2a`: the SDK's `DefaultRequestHandler` and JSON-RPC transport over Vigil's executor and
 * LevelDB task store. Built on the first A2A request (the route loads this module then), when it also follows every
 * task still open to its end (`A2aTaskEndings.recover`).
 */
import { A2A_VERSION_HEADER, AgentCard, taskStateToJSON, type CancelTaskRequest, type Task } from '@a2a-js/sdk';
import { TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import {
  DefaultRequestHandler,
  JsonRpcTransportHandler,
  ServerCallContext,
  validateVersion,
  type User,
} from '@a2a-js/sdk/server';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import type { Runtime } from '../../runtime/runtime.js';
import type { Caller } from '../../runtime/facade/tokens.facade.js';
import type { VigilLogger } from '../../shared/logger.js';
import { A2aTaskEndings } from '../../runtime/a2a/a2a-task-endings.js';
import { A2aTaskStore, TERMINAL_STATES } from '../../runtime/a2a/a2a-task-store.js';
import { CALLER_KEY, ownerName, VigilAgentExecutor } from './a2a-executor.js';
import { asksForLegacy, buildAgentCard, legacyAgentCard } from './agent-card.js';

/** The methods of this slice; streaming, resubscription and push notifications are not offered (the card says so). */
const NOT_OFFERED = new Set([
  'SendStreamingMessage',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  // A2A 0.3's names of the same.
  'message/stream',
  'tasks/resubscribe',
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
]);

/** The methods that start a task with a message, in both versions' names. */
const SENDS = new Set(['SendMessage', 'message/send']);

/** A JSON-RPC answer. */
export type A2aAnswer = { jsonrpc: '2.0'; id: string | number | null; result?: unknown; error?: unknown };

export interface A2aServer {
  /** The Agent Card in its JSON form: A2A 1.0's, or 0.3's for a caller whose `A2A-Version` asks for it. */
  card(version: string | string[] | undefined): unknown;
  /** Answers one JSON-RPC request of `caller` (whose scope the route has checked). */
  handle(body: object, caller: Caller, headers: Record<string, string | string[] | undefined>): Promise<A2aAnswer>;
  close(): void;
}

class TokenUser implements User {
  constructor(private readonly name: string) {}
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return this.name;
  }
}

/**
 * The SDK's handler, but a task still working is never marked cancelled: the SDK would do so for a task whose
 * executor is gone (after a restart) while its turn still runs and will be answered.
 */
class VigilRequestHandler extends DefaultRequestHandler {
  constructor(
    card: AgentCard,
    private readonly tasks: A2aTaskStore,
    executor: VigilAgentExecutor,
  ) {
    super(card, tasks, executor);
  }

  override async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    const task = await this.tasks.load(params.id, context);
    if (task === undefined) throw new TaskNotFoundError(`Task not found: ${params.id}`);
    if (task.status !== undefined && TERMINAL_STATES.has(taskStateToJSON(task.status.state)))
      throw new TaskNotCancelableError(`Task not cancelable: ${params.id} has ended.`);
    throw new TaskNotCancelableError(
      `Task ${params.id} is a turn the agent has admitted; Vigil answers every admitted turn, so it cannot be cancelled.`,
    );
  }
}

/** True when a `SendMessage` continues a task (`message.taskId`) rather than starting one. */
function namesTask(request: { params?: unknown }): boolean {
  const params = request.params as { message?: { taskId?: unknown } } | undefined;
  const taskId = params?.message?.taskId;
  return typeof taskId === 'string' && taskId !== '';
}

/** Builds the server and follows the open tasks to their ends. */
export async function createA2aServer(runtime: Runtime, baseUrl: string, log: VigilLogger): Promise<A2aServer> {
  const host = runtime.a2a;
  const now = () => runtime.now();
  const card = buildAgentCard(host.identity(), baseUrl);
  const store = new A2aTaskStore(host.db());
  const endings = new A2aTaskEndings(host, store, now, log);
  await endings.recover();
  const handler = new VigilRequestHandler(card, store, new VigilAgentExecutor(host, store, endings, now));
  const transport = new JsonRpcTransportHandler(handler);
  // A2A 0.3 callers (no A2A-Version header): the SDK's compat layer translates their method names and shapes.
  const legacyTransport = new LegacyJsonRpcTransportHandler(handler);
  const legacyCard = legacyAgentCard(host.identity(), baseUrl);
  const fail = (id: A2aAnswer['id'], err: unknown): A2aAnswer => ({
    jsonrpc: '2.0',
    id,
    error: JsonRpcTransportHandler.mapToJSONRPCError(err),
  });
  return {
    card: (version) => (asksForLegacy(version) ? legacyCard : AgentCard.toJSON(card)),
    async handle(body, caller, headers) {
      const request = body as { id?: unknown; method?: unknown; params?: unknown };
      const id = typeof request.id === 'string' || typeof request.id === 'number' ? request.id : null;
      const header = headers[A2A_VERSION_HEADER.toLowerCase()];
      const requestedVersion = Array.isArray(header) ? header[0] : header;
      const context = new ServerCallContext({
        user: new TokenUser(ownerName(caller)),
        ...(requestedVersion === undefined ? {} : { requestedVersion }),
        state: new Map([[CALLER_KEY, caller]]),
      });
      const legacy = asksForLegacy(header);
      try {
        if (!legacy) validateVersion(context.requestedVersion, card, 'JSONRPC');
        if (typeof request.method === 'string' && NOT_OFFERED.has(request.method))
          throw new UnsupportedOperationError(`${request.method} is not offered by this agent yet.`);
        // Refused before the SDK runs the executor: its refusal there would mark the named task failed.
        if (typeof request.method === 'string' && SENDS.has(request.method) && namesTask(request))
          throw new UnsupportedOperationError('A Vigil task is one turn: send a new message (no taskId) for another.');
      } catch (err) {
        return legacy
          ? { jsonrpc: '2.0', id, error: LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(err) }
          : fail(id, err);
      }
      const answer = await (legacy ? legacyTransport : transport).handle(body as Record<string, unknown>, context);
      // Only the streaming methods answer with a stream, and they are refused above.
      if (Symbol.asyncIterator in answer) return fail(id, new UnsupportedOperationError('streaming is not offered'));
      return answer as A2aAnswer;
    },
    close: () => endings.close(),
  };
}
