/** `tasks.list`, `tasks.cancel`, `vigil tasks list|cancel` and `rpc.discover` over a real gateway, with the stdio MCP fixture behind the runtime. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.js';
import { connect } from '../../src/client/vigil-client.js';
import { TaskViewSchema } from '../../src/protocol/tasks.schema.js';
import { stdioFixture } from '../subsystems/tools/mcp-hub.fixture.js';
import { advanceUntil, cliIo, startGatewayHarness, TEST_TOKEN, type GatewayHarness } from './gateway.fixture.js';

let h: GatewayHarness | undefined;
let dir: string | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const calls = (file: string) => {
  try {
    return Number(readFileSync(file, 'utf8'));
  } catch {
    return 0;
  }
};

describe('tasks over the gateway', () => {
  it('lists a running task, cancels it over RPC and from the CLI, with typed errors for unknown and finished tasks', async () => {
    dir = mkdtempSync(join(tmpdir(), 'vigil-gateway-tasks-'));
    const countFile = join(dir, 'count');
    h = await startGatewayHarness({
      runtime: {
        config: {
          swarmConcurrency: 1,
          mcp: { mcpServers: { fixture: stdioFixture({ FIXTURE_COUNT_FILE: countFile }) } },
        },
      },
    });
    const harness = h;
    await advanceUntil(harness, () => harness.events.some((e) => e.type === 'mcp.server_up'));
    await harness.runtime.send({ text: '/task tools=fixture__hang deadline=90\n/tool fixture__hang' });
    await advanceUntil(harness, () => calls(countFile) === 1);
    await harness.runtime.send({ text: '/task\nResearch the tides.' });
    await advanceUntil(harness, () => harness.runtime.listTasks().length === 2);

    const raw = await harness.connect();
    const listed = await raw.request('tasks.list');
    const tasks = TaskViewSchema.array().parse(listed.result);
    expect(tasks.map((t) => [t.status, t.tools, t.deadlineSeconds])).toEqual([
      ['running', ['mcp__fixture__hang'], 90],
      ['queued', [], 600],
    ]);
    expect(tasks[0]).toMatchObject({
      prompt: '/tool fixture__hang',
      costUsd: 0,
      maxCostUsd: 0.5,
      deadlineAt: expect.any(String),
      startedAt: expect.any(String),
    });

    // The typed client.
    const client = await connect({ url: harness.gateway.url, token: TEST_TOKEN, reconnect: false });
    try {
      const cancelled = await harness.until(client.tasks.cancel({ id: tasks[1]!.id }));
      expect(cancelled).toMatchObject({ id: tasks[1]!.id, status: 'cancelled' });
    } finally {
      await client.close();
    }

    // The CLI.
    const io = cliIo(harness);
    expect(await harness.until(main(['tasks', 'list'], io))).toBe(0);
    expect(io.out().trim().split('\n')).toEqual([
      `${tasks[0]!.id}\trunning\t$0.0000/$0.50\tmcp__fixture__hang\t/tool fixture__hang`,
      `${tasks[1]!.id}\tcancelled\t$0.0000/$0.50\t-\tResearch the tides.`,
    ]);
    const cancelIo = cliIo(harness);
    expect(await harness.until(main(['tasks', 'cancel', tasks[0]!.id, '--json'], cancelIo))).toBe(0);
    expect(JSON.parse(cancelIo.out())).toMatchObject({ id: tasks[0]!.id, status: 'cancelled' });

    const again = await raw.request('tasks.cancel', { id: tasks[0]!.id });
    expect(again.error).toMatchObject({
      code: -32010,
      data: { vigilCode: 'TASK_FINISHED', id: tasks[0]!.id, status: 'cancelled' },
    });
    const unknownIo = cliIo(harness);
    // --json: the JSON-RPC error object as sent (without it, one human line; test/client/cli-server-errors.test.ts).
    expect(await harness.until(main(['tasks', 'cancel', 'task-nope', '--json'], unknownIo))).toBe(1);
    expect(JSON.parse(unknownIo.err())).toMatchObject({
      code: -32004,
      data: { vigilCode: 'TASK_NOT_FOUND', id: 'task-nope' },
    });
    expect(await main(['tasks', 'cancel'], cliIo(harness))).toBe(2);
    expect(await main(['tasks', 'frob'], cliIo(harness))).toBe(2);
    expect((await raw.request('tasks.cancel', {})).error).toMatchObject({ code: -32602 });

    const discovered = await raw.request('rpc.discover');
    const methods = (discovered.result as { methods: Array<{ name: string }> }).methods.map((m) => m.name);
    expect(methods).toEqual(expect.arrayContaining(['tasks.list', 'tasks.cancel']));
  });
});
