/**
 * How a client command finds its daemon (CONTRACT §2): --url, else DATA_DIR/daemon.json while its process lives, else
 * VIGIL_HOST/VIGIL_PORT; the token from --token, VIGIL_TOKEN or DATA_DIR/token; and what it says when either fails.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_DATA_DIR, resolveTarget, type DaemonTarget } from '../../src/client/commands/client-options.js';
import { DEFAULT_CONFIG_ENV } from '../../src/config.js';
import { describeConnectFailure, refusedTokenMessage } from '../../src/client/commands/connect-failure.js';
import { VigilError } from '../../src/errors.js';
import { writeDaemonFile } from '../../src/shared/daemon-file.js';
import { startGatewayHarness, TEST_TOKEN, type GatewayHarness } from '../gateway/gateway.fixture.js';
import { runCli } from './cli-run.fixture.js';

let dir: string;
let h: GatewayHarness;
// A process that has exited: its pid is what a daemon killed with -9 leaves in daemon.json.
let deadPid: number;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vigil-client-options-'));
  deadPid = spawnSync(process.execPath, ['-e', '']).pid!;
  await import('../../src/client/commands/send.command.js');
});
afterAll(() => rm(dir, { recursive: true, force: true }));
beforeEach(async () => {
  h = await startGatewayHarness();
});
afterEach(() => h.close());

/** A data dir with a token file and, when given, a daemon.json. */
async function dataDir(
  name: string,
  files: { token?: string; daemon?: { url: string; pid: number } },
): Promise<string> {
  const path = join(dir, name);
  await mkdir(path, { recursive: true });
  if (files.token !== undefined) await writeFile(join(path, 'token'), `${files.token}\n`, { mode: 0o600 });
  if (files.daemon !== undefined) await writeDaemonFile(path, { ...files.daemon, startedAt: new Date().toISOString() });
  return path;
}

const io = (env: Record<string, string | undefined>) => ({
  env,
  stdout: () => {},
  stderr: () => {},
  readFile: async () => '',
  writeFile: async () => {},
  interrupted: () => new Promise<void>(() => {}),
});
const args = (flags: Record<string, string>) => ({ positionals: [], flags });

describe('resolveTarget', () => {
  it("looks in the daemon's own default data dir", () => {
    expect(DEFAULT_DATA_DIR).toBe(DEFAULT_CONFIG_ENV['VIGIL_DATA_DIR']);
  });

  it('takes the URL from daemon.json while its process lives, and the token from the token file beside it', async () => {
    const d = await dataDir('live', {
      token: 'file-token',
      daemon: { url: 'http://127.0.0.1:45678', pid: process.pid },
    });
    const target = await resolveTarget(args({ 'data-dir': d }), io({ VIGIL_PORT: '7999' }));
    expect(target).toMatchObject({
      url: 'http://127.0.0.1:45678',
      urlSource: { kind: 'daemon-file', path: join(d, 'daemon.json'), pid: process.pid },
      token: 'file-token',
      tokenSource: { kind: 'file', path: join(d, 'token') },
    });
  });

  it('does not trust a daemon.json whose process is gone: VIGIL_HOST/VIGIL_PORT instead', async () => {
    const d = await dataDir('stale', { token: 't', daemon: { url: 'http://127.0.0.1:45678', pid: deadPid } });
    const target = await resolveTarget(args({ 'data-dir': d }), io({ VIGIL_PORT: '7999' }));
    expect(target).toMatchObject({
      url: 'http://127.0.0.1:7999',
      urlSource: { kind: 'env' },
      daemonFile: { kind: 'found', alive: false },
    });
  });

  it('lets --url and --token win over everything, and VIGIL_TOKEN over the token file', async () => {
    const d = await dataDir('flags', {
      token: 'file-token',
      daemon: { url: 'http://127.0.0.1:45678', pid: process.pid },
    });
    expect(
      await resolveTarget(args({ 'data-dir': d, url: 'http://10.0.0.1:1', token: 'flag' }), io({ VIGIL_TOKEN: 'env' })),
    ).toMatchObject({
      url: 'http://10.0.0.1:1/',
      urlSource: { kind: 'flag' },
      token: 'flag',
    });
    expect(await resolveTarget(args({ 'data-dir': d }), io({ VIGIL_TOKEN: 'env' }))).toMatchObject({
      token: 'env',
      tokenSource: { kind: 'env' },
    });
  });

  it('refuses with CLIENT_NO_TOKEN when there is no token file, naming it and how to start the daemon', async () => {
    const d = join(dir, 'empty');
    const err = await resolveTarget(args({ 'data-dir': d }), io({})).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CLIENT_NO_TOKEN', data: { tokenFile: join(d, 'token') } });
    expect((err as Error).message).toBe(
      `No token file at ${join(d, 'token')} (is the daemon running with this data dir?). Start it with \`vigil run --data-dir ${d}\`, ` +
        `or give the running daemon's data dir with --data-dir, or its token with --token or VIGIL_TOKEN.`,
    );
  });
});

describe('describeConnectFailure', () => {
  const target = (over: Partial<DaemonTarget>): DaemonTarget => ({
    url: 'http://127.0.0.1:7420',
    urlSource: { kind: 'default' },
    token: 't',
    tokenSource: { kind: 'file', path: 'data/token' },
    dataDir: './data',
    daemonFile: { kind: 'absent', path: 'data/daemon.json' },
    ...over,
  });
  const refused = new VigilError(
    'GATEWAY_UNAUTHORIZED',
    'The gateway at ws://127.0.0.1:7420/rpc refused the token (HTTP 401).',
  );
  const unreachable = new VigilError(
    'CLIENT_DISCONNECTED',
    'No connection to the gateway at ws://127.0.0.1:7420/rpc: connect ECONNREFUSED 127.0.0.1:7420.',
  );

  it('says a 429 is the daemon refusing this address for a while, not a daemon that does not answer', () => {
    const throttled = new VigilError('GATEWAY_THROTTLED', 'The gateway at ws://127.0.0.1:7420/rpc answered 429.');
    const sameDir = target({ urlSource: { kind: 'daemon-file', path: 'data/daemon.json', pid: 7 } });
    const message = describeConnectFailure(throttled, sameDir);
    expect(message).toMatch(
      /^the daemon at http:\/\/127\.0\.0\.1:7420 is up but refused this address for now \(HTTP 429\)/,
    );
    expect(message).toContain('too many wrong tokens');
    expect(message).not.toContain('does not answer');
  });

  it('says where a refused token came from, and what to pass instead', () => {
    expect(refusedTokenMessage(target({ tokenSource: { kind: 'env' } }))).toMatch(
      /^the daemon refused the token \(HTTP 401 from http:\/\/127\.0\.0\.1:7420\); the token came from VIGIL_TOKEN\. Pass this daemon's token/,
    );
    expect(describeConnectFailure(refused, target({}))).toMatch(
      /the token came from the token file data\/token\. It is not the token of the daemon at/,
    );
    const sameDir = target({ urlSource: { kind: 'daemon-file', path: 'data/daemon.json', pid: 7 } });
    expect(describeConnectFailure(refused, sameDir)).toMatch(/That daemon was started with VIGIL_TOKEN/);
  });

  it('says a daemon.json was not trusted because its process is gone, and how to start the daemon', () => {
    const stale = target({
      daemonFile: {
        kind: 'found',
        path: 'data/daemon.json',
        info: { url: 'http://127.0.0.1:41000', pid: 4242, startedAt: '2026-03-01T10:00:00.000Z' },
        alive: false,
      },
    });
    expect(describeConnectFailure(unreachable, stale)).toBe(
      'No connection to the gateway at ws://127.0.0.1:7420/rpc: connect ECONNREFUSED 127.0.0.1:7420 (the default address). ' +
        'data/daemon.json names pid 4242, which is no longer running (that daemon did not stop cleanly), so it was not trusted: the daemon is not running; start it with `vigil run`.',
    );
    expect(describeConnectFailure(unreachable, target({}))).toMatch(
      /No daemon has written data\/daemon\.json in data dir \.\/data/,
    );
    expect(describeConnectFailure(new Error('other'), target({}))).toBeUndefined();
  });
});

describe('a client command and its data dir', () => {
  it('reaches a daemon on any port through --data-dir alone (daemon.json and the token file)', async () => {
    const d = await dataDir('reach', { token: TEST_TOKEN, daemon: { url: h.gateway.url, pid: process.pid } });
    const { code, stdout, stderr } = await runCli(h, ['rpc', 'heartbeat.status', '--data-dir', d], { env: {} });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ state: 'awake' });
  });

  it('exits 1 with the two token errors told apart: no token file, and a token the daemon refuses', async () => {
    const missing = await runCli(h, ['send', 'hi', '--data-dir', join(dir, 'no-daemon-here')], { env: {} });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(
      /^vigil: No token file at .*no-daemon-here\/token \(is the daemon running with this data dir\?\)/,
    );
    const d = await dataDir('wrong-token', {
      token: 'not-the-token',
      daemon: { url: h.gateway.url, pid: process.pid },
    });
    const refused = await runCli(h, ['send', 'hi', '--data-dir', d], { env: {} });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^vigil: the daemon refused the token \(HTTP 401 from /);
    expect(refused.stderr).not.toMatch(/No token file/);
  });

  it('says so when it falls back from a stale daemon.json and nothing answers', async () => {
    const d = await dataDir('stale-cli', { token: TEST_TOKEN, daemon: { url: h.gateway.url, pid: deadPid } });
    const { code, stderr } = await runCli(h, ['rpc', 'heartbeat.status', '--data-dir', d], {
      env: { VIGIL_PORT: '1' },
    });
    expect(code).toBe(1);
    expect(stderr).toMatch(new RegExp(`names pid ${deadPid}, which is no longer running`));
  });

  it('prints the suggestions of a -32601 after the error itself', async () => {
    const { code, stderr } = await runCli(h, ['rpc', 'agent.sned', '{"text":"hi"}']);
    expect(code).toBe(1);
    const [json, hint] = stderr.trimEnd().split('\n');
    expect(JSON.parse(json!)).toEqual({
      code: -32601,
      message: 'Method not found',
      data: { suggestions: ['agent.send'], vigilCode: 'RPC_METHOD_NOT_FOUND' },
    });
    expect(hint).toBe(
      'vigil: no method "agent.sned"; did you mean "agent.send"? `vigil rpc rpc.discover` lists every method.',
    );
  });
});
