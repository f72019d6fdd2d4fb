/**
 * An A2A task across `kill -9` (issue 53): `@a2a-js/sdk`'s client hands a real daemon a message; the daemon is killed
 * while the model is still thinking about it; after the restart `tasks/get` finds the task, working and then
 * completed with its one result, the reply of the turn the message became (answered once).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState, type Task } from '@a2a-js/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/vigil-client.js';
import {
  completion,
  pendingTurnIds,
  startFakeChatCompletions,
  toolCall,
  type FakeChatCompletions,
  type FakeChatResponse,
} from '../fixtures/fake-chat-completions.js';
import { a2aClient, resultText, send } from '../gateway/a2a-client.fixture.js';
import { startDaemon, type DaemonProcess } from './daemon-process.js';

const dir = mkdtempSync(join(tmpdir(), 'vigil-a2a-crash-'));
const started: DaemonProcess[] = [];
let api: FakeChatCompletions;
beforeAll(async () => {
  api = await startFakeChatCompletions();
});
afterEach(() => {
  for (const daemon of started.splice(0)) daemon.kill('SIGKILL');
});
afterAll(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

const TOKEN = 'a2a-crash-token-0123456789';
const MODEL = 'llama3.2';
const PRICE = { [MODEL]: { inputPerMTok: 0, outputPerMTok: 0, cacheWritePerMTok: 0, cacheReadPerMTok: 0 } };
const ANSWER = 'Answered after the restart.';

/** The model after the restart: a think's first call answers every pending turn; a later call ends the think. */
const modelAfterRestart: FakeChatResponse = {
  kind: 'respond',
  respond: (request) => {
    const turns = pendingTurnIds(request);
    const body = request.body as { messages?: Array<{ role: string }> };
    if (turns.length === 0 || (body.messages ?? []).some((m) => m.role === 'tool')) return completion('');
    return completion(
      null,
      turns.map((turnId) => toolCall('reply', { turnId, text: ANSWER })),
    );
  },
};

describe('an A2A task across kill -9', () => {
  it('is found after the restart, working and then completed with its one result', async () => {
    const dataDir = join(dir, 'data');
    const env = {
      VIGIL_THINKER: 'openai',
      OPENAI_BASE_URL: api.url,
      VIGIL_MODEL: MODEL,
      VIGIL_PRICING_JSON: JSON.stringify(PRICE),
      VIGIL_TOKEN: TOKEN,
      VIGIL_LOG_LEVEL: 'info',
    };
    const run = async () => {
      const daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], env);
      started.push(daemon);
      const listening = await daemon.waitFor((l) => l.msg === 'gateway listening', 20_000, 'gateway listening');
      return { daemon, url: String(listening.url) };
    };

    // The model never answers the first think: the turn is open when the daemon dies.
    api.enqueue({ kind: 'hang' });
    const first = await run();
    const before = await a2aClient(first.url, TOKEN);
    const task = await send(before, 'Please look into this.', true);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    await api.waitForRequests(1);
    first.daemon.kill('SIGKILL');
    expect(await first.daemon.exited).toBe('SIGKILL');

    for (let i = 0; i < 20; i++) api.enqueue(modelAfterRestart);
    const second = await run();
    const after = await a2aClient(second.url, TOKEN);
    // Its state, then its result: working until the replayed turn is answered, then completed, and never else.
    const states: TaskState[] = [];
    let read: Task = await after.getTask({ tenant: '', id: task.id, historyLength: undefined });
    for (const deadline = Date.now() + 20_000; Date.now() < deadline;) {
      states.push(read.status!.state);
      if (read.status?.state !== TaskState.TASK_STATE_WORKING) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
      read = await after.getTask({ tenant: '', id: task.id, historyLength: undefined });
    }
    expect(new Set(states)).toEqual(
      new Set(
        states.includes(TaskState.TASK_STATE_WORKING)
          ? [TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED]
          : [TaskState.TASK_STATE_COMPLETED],
      ),
    );
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(resultText(read)).toBe(ANSWER);
    expect(read.history.map((m) => m.parts[0]?.content?.$case === 'text' && m.parts[0].content.value)).toContain(
      'Please look into this.',
    );

    // The turn it is was answered once, and the task keeps that one result.
    const rpc = await connect({ url: second.url, token: TOKEN, reconnect: false });
    try {
      const turnId = (read.metadata as { vigilTurnId: string }).vigilTurnId;
      const endings = (
        (await rpc.events.history({ types: ['agent.reply', 'agent.unanswered'], limit: 100 })) as unknown as Array<{
          turnId: string;
        }>
      ).filter((event) => event.turnId === turnId);
      expect(endings).toHaveLength(1);
    } finally {
      await rpc.close();
    }
    const again = await after.getTask({ tenant: '', id: task.id, historyLength: undefined });
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(resultText(again)).toBe(ANSWER);
  });
});
