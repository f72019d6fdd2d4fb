/**
 * A remote MCP server behind OAuth, signed in to once by the operator: `vigil run` with a Streamable HTTP entry and no
 * `oauth` field, against the SDK-built authorization and resource server of test/fixtures/mcp-oauth-server.ts. The
 * server is `needs_auth` with one `mcp.auth_required` (no URL: only an operate token's `tools.list` has the link, and
 * no log line does); `vigil tools login` prints the URL and waits; the browser's visit reaches `/oauth/callback`; a
 * tool call works; after kill -9 and a restart the tool works with no new sign-in; with VIGIL_CHECKPOINT_KEY set no
 * file of the data dir (nor a log line) holds a token the server issued.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connect, type VigilClient } from '../../src/client/vigil-client.js';
import { startOAuthMcpServer, type OAuthMcpFixture } from '../fixtures/mcp-oauth-server.js';
import { visitAuthorizationUrl } from './conformance/operator-browser.js';
import { FAST_ENV, startDaemon, type DaemonProcess } from './daemon-process.js';
import { ROOT } from './run-process.js';

const dir = mkdtempSync(join(tmpdir(), 'vigil-mcp-oauth-e2e-'));
const started: DaemonProcess[] = [];
const servers: OAuthMcpFixture[] = [];
afterEach(async () => {
  for (const daemon of started.splice(0))
    if (daemon.proc.exitCode === null && daemon.proc.signalCode === null) daemon.kill('SIGKILL');
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOKEN = 'mcp-oauth-e2e-token-0123456789';
const KEY = randomBytes(32).toString('hex');
const BIN = join(ROOT, 'bin/vigil.js');

/** A `tools.list` entry, read by its fields (a tool, or a server waiting for its sign-in). */
type ListEntry = Record<string, unknown>;

async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every byte of every file under `root`. */
function allBytes(root: string): Buffer {
  const files = readdirSync(root, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  return Buffer.concat(files.map((file) => readFileSync(join(file.parentPath, file.name))));
}

/** `/tool NAME {json}` through the offline thinker; resolves with the reply's text. */
async function callTool(client: VigilClient, name: string, args: object): Promise<string> {
  const { turnId } = await client.agent.send({ text: `/tool ${name} ${JSON.stringify(args)}`, from: 'e2e' });
  const replies = await until(
    () => client.events.history({ types: ['agent.reply', 'agent.unanswered'], limit: 50 }),
    (events) => events.some((event) => (event as { turnId?: string }).turnId === turnId),
    `the reply to ${name}`,
  );
  const reply = replies.find((event) => (event as { turnId?: string }).turnId === turnId) as { text?: string };
  return reply.text ?? '';
}

/** `vigil tools login SERVER` as the operator runs it: resolves with the URL it prints, and later with how it ended. */
function runLogin(dataDir: string, server: string) {
  const child = spawn(process.execPath, [BIN, 'tools', 'login', server, '--data-dir', dataDir], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', VIGIL_TOKEN: TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const found = /https?:\/\/\S+/.exec(stdout);
      if (found !== null) resolve(found[0]);
    });
    child.once('exit', () => reject(new Error(`vigil tools login printed no URL: ${stdout} ${stderr}`)));
  });
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, stdout, stderr })),
  );
  return { url, exited };
}

describe('a remote MCP server behind OAuth, with vigil run', () => {
  it('is signed in to once with vigil tools login, keeps working after kill -9, and no token is on disk in plaintext', async () => {
    const remote = await startOAuthMcpServer();
    servers.push(remote);
    const config = join(dir, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { remote: { url: remote.url } } }));
    const dataDir = join(dir, 'data');
    // Debug included: no line at any level may carry a token or a sign-in link.
    const env = {
      ...FAST_ENV,
      VIGIL_LOG_LEVEL: 'debug',
      VIGIL_TOKEN: TOKEN,
      VIGIL_MCP_CONFIG: config,
      VIGIL_CHECKPOINT_KEY: KEY,
    };
    const run = async () => {
      const daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], env);
      started.push(daemon);
      const listening = await daemon.waitFor((l) => l.msg === 'gateway listening', 20_000, 'gateway listening');
      const url = String(listening['url']);
      return { daemon, url, client: await connect({ url, token: TOKEN, reconnect: false }) };
    };
    const list = (client: VigilClient) => client.tools.list() as unknown as Promise<ListEntry[]>;
    const echoAvailable = (entries: ListEntry[]) =>
      entries.some((entry) => entry['name'] === 'mcp__remote__echo' && entry['available'] === true);

    const first = await run();
    // Before any sign-in: the server waits for one, says where, and says it once.
    const waiting = await until(
      () => list(first.client),
      (entries) => entries.some((entry) => entry['state'] === 'needs_auth'),
      'the server to need a sign-in',
    );
    // The server's own entry (its tools are not known before the first sign-in, so it is the only one), with the
    // link for this operate token.
    expect(waiting.filter((entry) => entry['server'] === 'remote')).toEqual([
      {
        server: 'remote',
        state: 'needs_auth',
        authorizationUrl: expect.stringContaining('/authorize?'),
        expiresAt: expect.any(String),
      },
    ]);
    const firstLink = String(waiting.find((entry) => entry['server'] === 'remote')!['authorizationUrl']);
    // A read token sees that a sign-in is needed, not the link (its state is the sign-in's credential), nor does the
    // event (the journal is read-scope).
    const { token: readToken } = await first.client.tokens.create({ scope: 'read', name: 'reader' });
    const reader = await connect({ url: first.url, token: readToken, reconnect: false });
    expect((await list(reader)).filter((entry) => entry['server'] === 'remote')).toEqual([
      { server: 'remote', state: 'needs_auth' },
    ]);
    const required = await reader.events.history({ types: ['mcp.auth_required'] });
    expect(required).toEqual([expect.objectContaining({ server: 'remote' })]);
    expect(required[0]).not.toHaveProperty('authorizationUrl');
    await reader.close();
    // A call while it waits is not sent (its tools are not even known before the first sign-in).
    const refused = await callTool(first.client, 'mcp__remote__echo', { text: 'too early' });
    expect(refused).toMatch(/^mcp__remote__echo failed:\n/);
    expect(remote.toolCalls).toBe(0);

    // The operator signs in from the CLI; their browser follows the URL to the gateway's callback.
    const login = runLogin(dataDir, 'remote');
    const loginLink = await login.url;
    const visit = await visitAuthorizationUrl(loginLink, `${first.url}/oauth/callback`);
    expect(visit.status).toBe(200);
    const ended = await login.exited;
    expect(ended.code, ended.stderr).toBe(0);
    await until(() => list(first.client), echoAvailable, 'the signed-in server’s tools');
    expect(await first.client.events.history({ types: ['mcp.auth_completed'] })).toEqual([
      expect.objectContaining({ server: 'remote' }),
    ]);
    const marker = `lantern-${randomBytes(4).toString('hex')}`;
    expect(await callTool(first.client, 'mcp__remote__echo', { text: marker })).toBe(
      `mcp__remote__echo returned:\n${marker}`,
    );
    expect(remote.toolCalls).toBe(1);

    // kill -9, and a new daemon on the same data dir: the stored tokens are enough.
    first.daemon.kill('SIGKILL');
    await first.daemon.exited;
    await first.client.close().catch(() => undefined);
    const second = await run();
    await second.daemon.waitFor((l) => l.msg === 'mcp.server_up', 20_000, 'mcp.server_up after the restart');
    await until(() => list(second.client), echoAvailable, 'the tools after the restart');
    expect(await callTool(second.client, 'mcp__remote__echo', { text: `${marker}-again` })).toBe(
      `mcp__remote__echo returned:\n${marker}-again`,
    );
    expect(remote.toolCalls).toBe(2);
    expect(remote.grants.filter((grant) => grant.grant === 'authorization_code')).toHaveLength(1);
    expect(await second.client.events.history({ types: ['mcp.auth_required'] })).toHaveLength(1);
    expect(second.daemon.lines.some((line) => line.msg === 'mcp.auth_required')).toBe(false);
    await second.client.close();
    second.daemon.kill('SIGTERM');
    expect(await second.daemon.exited).toBe(0);

    // Sealed: no token the server issued is in any file of the data dir, nor in a log line of either daemon.
    const tokens = [...remote.issued.access, ...remote.issued.refresh];
    expect(tokens.length).toBeGreaterThanOrEqual(2);
    const bytes = allBytes(dataDir);
    // The scan reads the stores themselves (their keys are in the clear), so a token in plaintext would be found.
    expect(bytes.includes(Buffer.from('!event-journal!'))).toBe(true);
    expect(tokens.filter((token) => bytes.includes(Buffer.from(token)))).toEqual([]);
    const logs =
      JSON.stringify([...first.daemon.lines, ...second.daemon.lines]) + first.daemon.stderr() + second.daemon.stderr();
    expect(tokens.filter((token) => logs.includes(token))).toEqual([]);
    // Nor any sign-in link, or its state (the sign-in's credential).
    const links = [firstLink, loginLink];
    const states = links.map((link) => new URL(link).searchParams.get('state')!);
    expect(states.every((state) => state.length >= 16)).toBe(true);
    expect([...links, ...states].filter((secret) => logs.includes(secret))).toEqual([]);
    expect(logs).not.toContain('/authorize?');
  }, 90_000);
});
