/**
 * `vigil mcp` as a Claude Code channel, against a real gateway: it declares `claude/channel` (the early `initialize`
 * answer too), and pushes the agent's own messages from the journal as `notifications/claude/channel`: what happened
 * while no host was connected arrives once the next one connects, once each and in order, and a restart of
 * `vigil mcp` pushes nothing twice (the cursor is in the data dir, per token).
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { CliIo } from '../../src/client/commands/cli-io.js';
import { mcpCommand } from '../../src/client/commands/mcp.command.js';
import { CHANNEL_CURSOR_FILE } from '../../src/client/mcp/channel-cursor.js';
import { startGatewayHarness, TEST_TOKEN, type GatewayHarness, type RawClient } from '../gateway/gateway.fixture.js';
import { ScriptedThinker } from '../fixtures/scripted-thinker.js';

/** The host's side of `vigil mcp`'s stdio: JSON lines written to its stdin, read from its stdout. */
class StreamsTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly buffer = new ReadBuffer();

  constructor(
    private readonly serverOut: PassThrough,
    private readonly serverIn: PassThrough,
  ) {}

  start(): Promise<void> {
    this.serverOut.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (let message = this.buffer.readMessage(); message !== null; message = this.buffer.readMessage()) {
        this.onmessage?.(message);
      }
    });
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.serverIn.write(serializeMessage(message));
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.serverIn.end();
    this.onclose?.();
    return Promise.resolve();
  }
}

const ChannelNotificationSchema = z.object({
  method: z.literal('notifications/claude/channel'),
  params: z.object({ content: z.string(), meta: z.record(z.string(), z.string()) }),
});
type Pushed = z.infer<typeof ChannelNotificationSchema>['params'];

let h: GatewayHarness;
let dir: string;
let raw: RawClient;
// Hosts a failed test left connected: closed after it, so no `vigil mcp` outlives its test.
const open: PassThrough[] = [];
beforeEach(async () => {
  h = await startGatewayHarness({ runtime: { thinker: new ScriptedThinker() } });
  dir = await mkdtemp(join(tmpdir(), 'vigil-mcp-channel-'));
  raw = await h.connect();
});
afterEach(async () => {
  for (const stdin of open.splice(0)) stdin.end();
  await h.close();
  await rm(dir, { recursive: true, force: true });
});

/** How long real I/O (the socket, the cursor file) may take on a loaded machine before a wait fails. */
const IO_BOUND_MS = 15_000;

/**
 * Advances simulated time (thinks) and lets real I/O run until `done` holds; fails after a bound of real time, as the
 * pushes travel over a real socket and the cursor is a real file.
 */
async function until(done: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + IO_BOUND_MS;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await h.advance(100, 100);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** `vigil mcp` in-process with the data dir `dir`, and a host (the MCP SDK's client) connected to it. */
async function connectHost(dataDir = dir) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  open.push(stdin);
  let stderr = '';
  const io = { env: {}, stderr: (text: string) => (stderr += text), stdout: () => undefined } as unknown as CliIo;
  const code = mcpCommand(['--url', h.gateway.url, '--token', TEST_TOKEN, '--data-dir', dataDir], io, stdin, stdout);
  const pushed: Pushed[] = [];
  const client = new Client({ name: 'claude-code', version: '1' });
  client.setNotificationHandler(ChannelNotificationSchema, (notification) => {
    pushed.push(notification.params);
  });
  await client.connect(new StreamsTransport(stdout, stdin));
  return {
    client,
    pushed,
    stderr: () => stderr,
    /** The host leaves (closes stdin); resolves to `vigil mcp`'s exit code. */
    async close(): Promise<number> {
      stdin.end();
      return h.until(code);
    },
  };
}

/** Sends a message as `from` over RPC and waits for its reply in the journal; its turn id. */
async function turnFrom(from: string, text: string): Promise<string> {
  const answer = await raw.request('agent.send', { text, from });
  const turnId = (answer['result'] as { turnId: string }).turnId;
  await until(() => h.ofType('agent.reply').some((event) => event.turnId === turnId), `the reply to ${text}`);
  return turnId;
}

async function cursors(): Promise<Record<string, number>> {
  return (JSON.parse(await readFile(join(dir, CHANNEL_CURSOR_FILE), 'utf8')) as { cursors: Record<string, number> })
    .cursors;
}

async function cursorKept(): Promise<boolean> {
  return stat(join(dir, CHANNEL_CURSOR_FILE)).then(
    () => true,
    () => false,
  );
}

describe('vigil mcp as a Claude Code channel', () => {
  it('declares claude/channel and instructions naming <channel> events and send_message', async () => {
    const host = await connectHost();
    expect(host.client.getServerCapabilities()).toMatchObject({
      tools: { listChanged: true },
      experimental: { 'claude/channel': {} },
    });
    const instructions = host.client.getInstructions() ?? '';
    expect(instructions).toMatch(/<channel>/);
    expect(instructions).toMatch(/send_message/);
    expect(await host.close()).toBe(0);
  });

  it('pushes what happened while no host was connected once the next connects, once each, in order', async () => {
    const first = await connectHost();
    // The first run keeps "now" as its cursor: what follows is caught up after any restart.
    await until(cursorKept, 'the first cursor');

    // This session's own message is answered as the tool's result, not pushed; another channel's reply is pushed.
    const own = await h.until(first.client.callTool({ name: 'send_message', arguments: { text: 'mine' } }));
    expect(own.content).toEqual([{ type: 'text', text: 're: mine' }]);
    const otherTurn = await turnFrom('telegram:42', 'from the phone');
    await until(() => first.pushed.length >= 1, 'the telegram reply');
    expect(first.pushed).toEqual([
      {
        content: 're: from the phone',
        meta: expect.objectContaining({ event: 'agent.reply', turn_id: otherTurn, from: 'telegram:42' }) as unknown,
      },
    ]);
    expect(await first.close()).toBe(0);

    // While no host is connected: a schedule's result, a finished task, a task requeued (not pushed), an approval.
    const scheduled = await turnFrom('schedule:daily', 'daily digest');
    h.bus.emit('swarm.task_finished', { taskId: 'task-1', status: 'done' });
    h.bus.emit('swarm.task_interrupted', { taskId: 'task-2', turnId: scheduled, outcome: 'requeued', callIds: [] });
    h.bus.emit('tool.approval_requested', { callId: 'call-1', name: 'mcp__fs__write', args: { path: '/tmp/x' } });
    await h.settle();

    const second = await connectHost();
    await until(() => second.pushed.length >= 3, 'the three missed messages');
    await h.advance(2000);
    expect(second.pushed.map((message) => [message.meta['event'], message.content])).toEqual([
      ['agent.reply', 're: daily digest'],
      ['swarm.task_finished', 'Sub-agent task task-1 ended: done. The agent reads its result in its next think.'],
      [
        'tool.approval_requested',
        'The agent\'s call to mcp__fs__write (call call-1) waits for an operator: `vigil tools approve call-1` or `vigil tools deny call-1`. Arguments: {"path":"/tmp/x"}',
      ],
    ]);
    expect(second.pushed[0]!.meta).toMatchObject({ turn_id: scheduled, from: 'schedule:daily' });
    expect(second.pushed[2]!.meta).toMatchObject({ call_id: 'call-1', tool: 'mcp__fs__write' });
    const seqs = second.pushed.map((message) => Number(message.meta['seq']));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    for (const message of second.pushed) {
      for (const key of Object.keys(message.meta)) expect(key).toMatch(/^[A-Za-z0-9_]+$/);
    }
    expect(await second.close()).toBe(0);

    // The cursor: the last seq pushed, under the token's name, in a file only its owner reads.
    const whoami = (await raw.request('auth.whoami'))['result'] as { name: string };
    expect(await cursors()).toEqual({ [whoami.name]: seqs.at(-1) });
    expect((await stat(join(dir, CHANNEL_CURSOR_FILE))).mode & 0o777).toBe(0o600);

    // A restart after more events: only the new one, nothing pushed a second time.
    h.bus.emit('swarm.task_finished', { taskId: 'task-3', status: 'failed' });
    await h.settle();
    const third = await connectHost();
    await until(() => third.pushed.length >= 1, 'the new message');
    await h.advance(2000);
    expect(third.pushed.map((message) => message.meta['task_id'])).toEqual(['task-3']);
    expect(await third.close()).toBe(0);
  });

  it('without a data dir starts from now at each start: what happened while closed is not pushed', async () => {
    const missing = join(dir, 'absent');
    const first = await connectHost(missing);
    expect(await first.close()).toBe(0);
    h.bus.emit('swarm.task_finished', { taskId: 'while-closed', status: 'done' });
    await h.settle();
    const second = await connectHost(missing);
    // Give it time to have caught up, were there anything to catch up from; then a live event arrives.
    await h.advance(1000);
    h.bus.emit('swarm.task_finished', { taskId: 'live', status: 'done' });
    await until(() => second.pushed.length >= 1, 'the live message');
    expect(second.pushed.map((message) => message.meta['task_id'])).toEqual(['live']);
    expect(await second.close()).toBe(0);
    expect(await cursorKept()).toBe(false);
  });
});
