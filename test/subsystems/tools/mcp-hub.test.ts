/** The MCP hub against real servers: the SDK's McpServer over stdio (a child process) and over Streamable HTTP (in-process). */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { isVigilError } from '../../../src/errors.js';
import { MCP_REQUEST_TIMEOUT } from '../../../src/subsystems/tools/mcp-hub.js';
import { startHttpMcpServer, type HttpMcpFixture } from '../../fixtures/mcp-http-server.js';
import { recordingLogger } from '../../faults/recording-logger.js';
import { isAlive, resultText, stdioFixture, useHubs } from './mcp-hub.fixture.js';

const startHub = useHubs();
let dir: string;
let http: HttpMcpFixture | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'vigil-mcp-'));
});
afterEach(async () => {
  await http?.close();
  http = undefined;
});

const ALL_STDIO = ['add', 'add_tool', 'count', 'crash', 'echo', 'env', 'hang', 'remove_tool', 'slow', 'tally'];

describe('McpHub', () => {
  it('lists the tools of a stdio and a Streamable HTTP server as mcp__SERVER__TOOL, sorted, with the entry policy', async () => {
    http = await startHttpMcpServer();
    const h = startHub({
      local: stdioFixture({}, { requireApproval: ['crash'], idempotentTools: ['echo'], timeoutMs: 5000 }),
      web: { url: http.url, requireApproval: true },
    });
    const ups = await Promise.all([
      h.next('mcp.server_up', (e) => e.server === 'local'),
      h.next('mcp.server_up', (e) => e.server === 'web'),
    ]);
    expect(ups.map((e) => [e.server, e.tools, e.attempt])).toEqual([
      ['local', 10, 1],
      ['web', 6, 1],
    ]);
    const names = h.hub.list().map((tool) => tool.name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual([
      ...ALL_STDIO.map((t) => `mcp__local__${t}`),
      ...['add', 'add_tool', 'count', 'echo', 'remove_tool', 'slow'].map((t) => `mcp__web__${t}`),
    ]);
    expect(h.hub.get('mcp__local__echo')).toMatchObject({
      server: 'local',
      tool: 'echo',
      description: 'Echoes its text.',
      requireApproval: false,
      idempotent: true,
      timeoutMs: 5000,
      available: true,
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    });
    expect(h.hub.get('mcp__local__crash')).toMatchObject({ requireApproval: true, idempotent: false });
    expect(
      h.hub
        .list()
        .filter((t) => t.server === 'web')
        .every((t) => t.requireApproval && t.timeoutMs === 60_000),
    ).toBe(true);
    expect(resultText(await h.hub.callTool('mcp__local__add', { a: 2, b: 3 }))).toBe('5');
    expect(resultText(await h.hub.callTool('mcp__web__echo', { text: 'over http' }))).toBe('over http');
  });

  it('offers only allowedTools, and sends the configured headers to an HTTP server', async () => {
    http = await startHttpMcpServer();
    const h = startHub({
      local: stdioFixture({}, { allowedTools: ['echo', 'add', 'not_there'] }),
      web: { url: http.url, headers: { Authorization: 'Bearer fixture-secret' }, allowedTools: ['slow'] },
    });
    await Promise.all([
      h.next('mcp.server_up', (e) => e.server === 'local'),
      h.next('mcp.server_up', (e) => e.server === 'web'),
    ]);
    expect(h.hub.list().map((t) => t.name)).toEqual(['mcp__local__add', 'mcp__local__echo', 'mcp__web__slow']);
    expect(h.events.find((e) => e.type === 'mcp.server_up' && e.server === 'local')).toMatchObject({ tools: 2 });
    await expect(h.hub.callTool('mcp__local__crash', {})).rejects.toSatisfy((err) =>
      isVigilError(err, 'TOOL_NOT_FOUND'),
    );
    expect(http.requests.length).toBeGreaterThan(0);
    expect(http.requests.every((headers) => headers.authorization === 'Bearer fixture-secret')).toBe(true);
  });

  it('gives a stdio server only its own env and the safe defaults, never the daemon secrets', async () => {
    const secrets = {
      ANTHROPIC_API_KEY: 'sk-ant-secret',
      VIGIL_TOKEN: 'gateway-secret',
      VIGIL_CHECKPOINT_KEY: 'ab'.repeat(32),
      SOME_DAEMON_VAR: 'x',
    };
    const saved = Object.fromEntries(Object.keys(secrets).map((k) => [k, process.env[k]]));
    Object.assign(process.env, secrets);
    try {
      const h = startHub({ local: stdioFixture({ FIXTURE_GREETING: 'hello' }) });
      await h.next('mcp.server_up');
      const env = JSON.parse(resultText(await h.hub.callTool('mcp__local__env', {}))) as Record<string, string>;
      expect(env['FIXTURE_GREETING']).toBe('hello');
      expect(env['PATH']).toBe(process.env['PATH']);
      for (const name of Object.keys(secrets)) expect(env).not.toHaveProperty(name);
      // Only the SDK's safe defaults (and what Node itself sets in a child) besides the entry's own.
      const allowed = new Set(['FIXTURE_GREETING', 'HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER']);
      expect(Object.keys(env).filter((name) => !allowed.has(name))).toEqual([]);
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('reports a crashed server down, retries it with capped exponential back-off on the clock, and lists it again when back', async () => {
    const gate = join(dir, 'gate');
    writeFileSync(gate, 'open');
    const recorded = recordingLogger();
    const h = startHub(
      { local: stdioFixture({ FIXTURE_GATE_FILE: gate }) },
      { timing: { backoff: { baseMs: 1000, maxMs: 4000 } }, log: recorded.log },
    );
    await h.next('mcp.server_up');
    const crashed = h.hub.callTool('mcp__local__crash', { code: 7 });
    // While it cannot start again, every attempt fails and the wait doubles up to the cap.
    const { rmSync } = await import('node:fs');
    rmSync(gate);
    const first = await h.next('mcp.server_down');
    await expect(crashed).rejects.toSatisfy((err) => isVigilError(err, 'TOOL_CALL_FAILED'));
    expect(first).toMatchObject({ server: 'local', wasUp: true, retryInMs: 1000 });
    expect(first.reason).toMatch(/closed/);
    expect(first.reason).toContain('exited with code 7');
    // What the server itself wrote on stderr is for the debug log, never the event read tokens see.
    expect(first.reason).not.toContain('fixture');
    expect(recorded.records).toContainEqual(
      expect.objectContaining({
        level: 20,
        server: 'local',
        stderr: expect.arrayContaining(['fixture: crashing with code 7']),
      }),
    );
    expect(h.hub.get('mcp__local__echo')).toMatchObject({ available: false });
    await expect(h.hub.callTool('mcp__local__echo', { text: 'x' })).rejects.toSatisfy((err) =>
      isVigilError(err, 'TOOL_UNAVAILABLE'),
    );
    const waits = [];
    for (let i = 0; i < 3; i += 1) {
      const seen = h.events.length;
      const { retryInMs } = h.events.filter((e) => e.type === 'mcp.server_down').at(-1) as { retryInMs: number };
      // Nothing happens before the back-off has passed: no tight loop.
      h.clock.increment(retryInMs - 1);
      expect(h.events.length).toBe(seen);
      h.clock.increment(1);
      const down = await h.next('mcp.server_down', () => true, seen);
      expect(down).toMatchObject({ wasUp: false });
      expect(down.reason).toMatch(/^it could not be connected \(\w+[^)]*\); the server exited with code 3$/);
      expect(down.reason).not.toContain('gate is closed');
      waits.push(down.retryInMs);
    }
    expect(waits).toEqual([2000, 4000, 4000]);
    writeFileSync(gate, 'open');
    const seen = h.events.length;
    h.clock.increment(4000);
    const up = await h.next('mcp.server_up', () => true, seen);
    expect(up).toMatchObject({ server: 'local', tools: 10, attempt: 5 });
    expect(h.hub.get('mcp__local__echo')).toMatchObject({ available: true });
    expect(resultText(await h.hub.callTool('mcp__local__echo', { text: 'back' }))).toBe('back');
  });

  it('lists the tools again on notifications/tools/list_changed', async () => {
    const h = startHub({ local: stdioFixture() });
    await h.next('mcp.server_up');
    const added = h.next('mcp.tools_changed', (e) => e.tools === 11);
    await h.hub.callTool('mcp__local__add_tool', { name: 'fresh' });
    await added;
    expect(h.hub.get('mcp__local__fresh')).toMatchObject({ description: 'Added at run time: fresh.', available: true });
    expect(resultText(await h.hub.callTool('mcp__local__fresh', {}))).toBe('fresh');
    const removed = h.next('mcp.tools_changed', (e) => e.tools === 10);
    await h.hub.callTool('mcp__local__remove_tool', { name: 'fresh' });
    await removed;
    expect(h.hub.get('mcp__local__fresh')).toBeUndefined();
  });

  it('checks arguments against the input schema before calling, and bounds a call by its timeout and signal', async () => {
    const count = join(dir, 'count');
    const h = startHub({ local: stdioFixture({ FIXTURE_COUNT_FILE: count }) });
    await h.next('mcp.server_up');
    await expect(h.hub.callTool('mcp__local__add', { a: 1, b: 'two' })).rejects.toSatisfy(
      (err) => isVigilError(err, 'TOOL_INVALID_ARGS') && /b/.test(err.message),
    );
    await expect(h.hub.callTool('mcp__local__count', { extra: 1 })).resolves.toBeDefined();
    expect(readFileSync(count, 'utf8')).toBe('1');
    await expect(h.hub.callTool('mcp__local__slow', { ms: 10_000 }, { timeoutMs: 50 })).rejects.toSatisfy((err) =>
      isVigilError(err, 'TOOL_TIMEOUT'),
    );
    const controller = new AbortController();
    const aborted = h.hub.callTool('mcp__local__slow', { ms: 10_000 }, { signal: controller.signal });
    controller.abort(new Error('preempted'));
    await expect(aborted).rejects.toSatisfy((err) => isVigilError(err, 'TOOL_ABORTED'));
    await expect(h.hub.callTool('mcp__nope__x', {})).rejects.toSatisfy((err) => isVigilError(err, 'TOOL_NOT_FOUND'));
    // The server is fine after all that.
    expect(resultText(await h.hub.callTool('mcp__local__echo', { text: 'still here' }))).toBe('still here');
  });

  it('reports a server whose command does not exist, and an HTTP server that stops answering pings', async () => {
    http = await startHttpMcpServer();
    const h = startHub(
      { ghost: { command: join(dir, 'no-such-server') }, web: { url: http.url } },
      { timing: { pingIntervalMs: 5000 } },
    );
    const ghost = await h.next('mcp.server_down', (e) => e.server === 'ghost');
    expect(ghost).toMatchObject({ wasUp: false, retryInMs: 1000 });
    expect(ghost.reason).toContain('cannot start');
    await h.next('mcp.server_up', (e) => e.server === 'web', 0);
    await http.close();
    http = undefined;
    const seen = h.events.length;
    h.clock.increment(5000);
    const web = await h.next('mcp.server_down', (e) => e.server === 'web', seen);
    expect(web).toMatchObject({ wasUp: true, retryInMs: 1000 });
    expect(web.reason).toContain('ping');
    expect(
      h.hub
        .list()
        .filter((t) => t.server === 'web')
        .every((t) => !t.available),
    ).toBe(true);
  });

  it('stops every server: stdio processes are gone, even one that ignores the end of its stdin and SIGTERM', async () => {
    const pids = join(dir, 'pids');
    const h = startHub({
      a: stdioFixture({ FIXTURE_PID_FILE: pids }),
      stubborn: stdioFixture({ FIXTURE_PID_FILE: pids, FIXTURE_STUBBORN: '1' }),
    });
    await Promise.all([
      h.next('mcp.server_up', (e) => e.server === 'a'),
      h.next('mcp.server_up', (e) => e.server === 'stubborn'),
    ]);
    const running = readFileSync(pids, 'utf8').trim().split('\n').map(Number);
    expect(running).toHaveLength(2);
    expect(running.every(isAlive)).toBe(true);
    await h.hub.stop();
    expect(running.filter(isAlive)).toEqual([]);
    expect(h.events.filter((e) => e.type === 'mcp.server_down')).toEqual([]);
  });

  it('reads a timed-out request by the SDK’s own code (the hub does not load the SDK to compare)', () => {
    expect(MCP_REQUEST_TIMEOUT).toBe(ErrorCode.RequestTimeout);
  });

  it('starts nothing for a disabled server and an empty config', async () => {
    const h = startHub({ off: stdioFixture({}, { disabled: true }) });
    expect(h.hub.servers()).toEqual([]);
    expect(h.hub.list()).toEqual([]);
    expect(existsSync(dir)).toBe(true);
  });
});
