/** `@a2a-js/sdk`'s own client against a Vigil gateway: found by its card, sending a gateway token as the bearer. */
import { Role, type Message, type Task } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';

/** The SDK's client for the agent at `url`, found by its card, sending `token` as the bearer. */
export function a2aClient(url: string, token: string): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  return new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl })] }).createFromUrl(url);
}

/** A user message of `text`, as an A2A client sends it. */
export function userMessage(text: string): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** Sends `text`; with `now`, answered at once with the task still working. */
export async function send(client: Client, text: string, now = false): Promise<Task> {
  const result = await client.sendMessage({
    tenant: '',
    message: userMessage(text),
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: now },
    metadata: undefined,
  });
  if (!('status' in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result;
}

/** The text of a task's ending message. */
export function resultText(task: Task): string {
  const part = task.status?.message?.parts[0]?.content;
  return part?.$case === 'text' ? part.value : '';
}
