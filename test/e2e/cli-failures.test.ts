/**
 * Every `vigil` command's expected failures, as real child processes of bin/vigil.js (issue 36): no daemon, no token
 * file, a refused token, an unreachable URL, bad arguments, a data dir that is not one, a full disk on export. Each
 * prints a line or two naming the cause and what to do, exits with CONTRACT §2's code, and never a stack frame.
 */
import { spawn } from 'node:child_process';
import { chmod, lstat, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type DaemonProcess } from './daemon-process.js';
import { runProcess, type Finished } from './run-process.js';

const BIN = fileURLToPath(new URL('../../bin/vigil.js', import.meta.url));
/** A frame of a printed stack (`    at fn (file:line:col)`). */
const STACK_FRAME = /^\s+at /m;
/** A token of the right shape that no daemon here knows. */
const STRANGER_TOKEN = 'c3RyYW5nZXItdG9rZW4tbm9ib2R5LWtub3dz';

let dir: string;
let daemon: DaemonProcess;
/** Where each situation points a command. */
let live: string;
let noDaemon: string;
let empty: string;
let unrelated: string;
let regularFile: string;
let closedPort: number;
let checkpointId: string;
let exportFile: string;

/** Runs `vigil <args>` with `env` added to a clean environment. */
function vigil(args: string[], env: Record<string, string> = {}): Promise<Finished> {
  return runProcess(process.execPath, [BIN, ...args], { env, timeoutMs: 60_000 });
}

/** A port nothing listens on: one the system handed out and that was closed again. */
async function closedLocalPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Runs `fn` over `items`, `limit` at a time (two cores, shared). */
async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

/** What a failure must look like: its exit code, its message, no stack, and a line or two (usage lines aside). */
function expectFailure(what: string, result: Finished, code: number, message: RegExp): void {
  const context = `${what}\nstderr: ${result.stderr}`;
  expect(result.stderr, context).not.toMatch(STACK_FRAME);
  expect(result.code, context).toBe(code);
  expect(result.stderr, context).toMatch(/^vigil: /);
  expect(result.stderr, context).toMatch(message);
  const lines = result.stderr.trimEnd().split('\n');
  const usageAt = lines.findIndex((line) => line.startsWith('usage: '));
  expect(usageAt === -1 ? lines.length : usageAt, context).toBeLessThanOrEqual(2);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vigil-cli-failures-'));
  live = join(dir, 'live');
  daemon = startDaemon(['run', '--data-dir', live, '--port', '0'], { VIGIL_LOG_LEVEL: 'info' });
  await daemon.waitFor((line) => line.msg === 'gateway listening', 30_000, 'the daemon to listen');
  // A data dir a daemon once used: its token file, and no daemon.json (that daemon stopped).
  noDaemon = join(dir, 'stopped');
  await mkdir(noDaemon);
  await writeFile(join(noDaemon, 'token'), `${STRANGER_TOKEN}\n`, { mode: 0o600 });
  empty = join(dir, 'empty');
  await mkdir(empty);
  unrelated = join(dir, 'holiday-photos');
  await mkdir(join(unrelated, '2025'), { recursive: true });
  await writeFile(join(unrelated, 'notes.txt'), 'not a data dir\n');
  regularFile = join(dir, 'a-file');
  await writeFile(regularFile, 'not a directory\n');
  closedPort = await closedLocalPort();
  const created = await vigil(['checkpoints', 'create', '--data-dir', live]);
  expect(created.code, created.stderr).toBe(0);
  checkpointId = (JSON.parse(created.stdout) as { id: string }).id;
  exportFile = join(dir, 'agent.json');
  const exported = await vigil(['checkpoints', 'export', checkpointId, exportFile, '--data-dir', live]);
  expect(exported.code, exported.stderr).toBe(0);
}, 90_000);

afterAll(async () => {
  daemon?.kill('SIGTERM');
  await daemon?.exited;
  await rm(dir, { recursive: true, force: true });
});

/** Each client command, with arguments that are right: what fails is where it is pointed. */
function clientCommands(): Array<[string, string[]]> {
  return [
    ['send', ['send', 'hello']],
    ['rpc', ['rpc', 'heartbeat.status']],
    ['events', ['events']],
    ['conversation', ['conversation']],
    ['checkpoints list', ['checkpoints', 'list']],
    ['checkpoints create', ['checkpoints', 'create']],
    ['checkpoints show', ['checkpoints', 'show', checkpointId]],
    ['checkpoints restore', ['checkpoints', 'restore', checkpointId, '--yes']],
    ['checkpoints export', ['checkpoints', 'export', checkpointId, join(dir, 'never-written.json')]],
    ['checkpoints import', ['checkpoints', 'import', exportFile]],
    ['tools', ['tools', 'list']],
    ['thinks', ['thinks', 'list']],
    ['tasks', ['tasks', 'list']],
    ['memory', ['memory', 'search', 'anything']],
    ['schedules', ['schedules', 'list']],
    ['tokens', ['tokens', 'list']],
    ['webhooks', ['webhooks', 'list']],
  ];
}

/** Each situation: the flags and environment that cause it, the exit code and the message. */
function situations(): Array<{
  name: string;
  flags: string[];
  env?: Record<string, string>;
  code: number;
  message: RegExp;
}> {
  return [
    {
      name: 'no daemon',
      flags: ['--data-dir', noDaemon],
      env: { VIGIL_PORT: String(closedPort) },
      code: 1,
      message:
        /No connection to the gateway .*No daemon has written .*daemon\.json.* start it with `vigil run --data-dir /,
    },
    {
      name: 'no token file',
      flags: ['--data-dir', empty],
      code: 1,
      message: /No token file at .*Start it with `vigil run/,
    },
    {
      name: 'a refused token',
      flags: ['--data-dir', live, '--token', STRANGER_TOKEN],
      code: 1,
      message:
        /the daemon refused the token \(HTTP 401 from .*\); the token came from --token\. Pass this daemon's token/,
    },
    {
      name: 'an unreachable URL',
      flags: ['--url', `http://127.0.0.1:${closedPort}`, '--token', STRANGER_TOKEN],
      code: 1,
      message:
        /No connection to the gateway at ws:\/\/127\.0\.0\.1:\d+\/rpc: .*\(from --url\)\. Is the daemon running there\?/,
    },
    {
      name: 'an unknown flag',
      flags: ['--data-dir', live, '--frobnicate'],
      code: 2,
      message: /Unknown option '--frobnicate'[^]*usage: vigil /,
    },
    {
      name: 'a data dir that is a file',
      flags: ['--data-dir', regularFile],
      code: 2,
      message: /The data dir .*a-file \(--data-dir\) is a file, not a directory: give the directory the daemon runs on/,
    },
    {
      name: 'a data dir of unrelated files',
      flags: ['--data-dir', unrelated],
      code: 1,
      message: /No token file at .*holiday-photos\/token \(is the daemon running with this data dir\?\)/,
    },
  ];
}

describe('vigil client commands fail with one line and no stack', () => {
  it('for every command in every situation: no daemon, no token file, a refused token, an unreachable URL, an unknown flag, a data dir that is not one', async () => {
    const cases = clientCommands().flatMap(([command, args]) =>
      situations().map((situation) => ({ command, args, situation })),
    );
    await eachLimited(cases, 4, async ({ command, args, situation }) => {
      const result = await vigil([...args, ...situation.flags], situation.env);
      expectFailure(`vigil ${command}: ${situation.name}`, result, situation.code, situation.message);
    });
  }, 300_000);

  it('for bad arguments of each command: exit 2, the mistake named, then the usage', async () => {
    const notJson = join(dir, 'not-json.txt');
    await writeFile(notJson, 'hello\n');
    const cases: Array<[string[], RegExp]> = [
      [['send'], /send needs the TEXT/],
      [['send', 'hi', '--timeout', 'soon'], /--timeout must be a number of seconds/],
      [['rpc'], /rpc needs a METHOD/],
      [['rpc', 'goals.add', '{not json'], /PARAMS_JSON is not valid JSON/],
      [['events', '--after', 'later'], /--after must be an event seq/],
      [['conversation', '--limit', '0'], /--limit must be an integer from 1 to 1000/],
      [['checkpoints'], /checkpoints needs a subcommand/],
      [['checkpoints', 'frob'], /unknown checkpoints subcommand "frob"/],
      [['checkpoints', 'show'], /checkpoints show takes 1 argument/],
      [['checkpoints', 'export', checkpointId], /checkpoints export takes 2 argument/],
      [['checkpoints', 'list', '--limit', 'many'], /--limit must be a positive integer/],
      [['checkpoints', 'import', notJson, '--data-dir', live], /not-json\.txt is not JSON/],
      [['checkpoints', 'import', join(dir, 'missing.json'), '--data-dir', live], /cannot read .*missing\.json/],
      [['tools'], /tools needs a subcommand/],
      [['tools', 'approve'], /tools approve needs a call id/],
      [['tools', 'login'], /tools login needs a server name/],
      [['tools', 'list', '--no-wait'], /--no-wait goes with tools login only/],
      [['thinks', 'list', '--limit', 'x'], /--limit must be an integer/],
      [['tasks', 'frob'], /frob/],
      [['memory'], /memory needs a subcommand/],
      [['memory', 'search', 'q', '--limit', '0'], /--limit "0" is invalid/],
      [['schedules', 'add', 'x'], /schedules add needs exactly one of --cron, --every or --at/],
      [['schedules', 'add', 'x', '--every', '30s'], /--every "30s" is too short: the shortest interval is 1m/],
      [['tokens', 'create', '--scope', 'god'], /tokens create needs --scope read, talk or operate/],
      [['webhooks', 'add', 'http://127.0.0.1:9/'], /webhooks add needs --types/],
      [['webhooks', 'redeliver', 'wh_x'], /webhooks redeliver needs --after SEQ/],
      [['mcp', '--frobnicate'], /Unknown option '--frobnicate'[^]*usage: vigil mcp/],
      [['mcp', 'extra'], /unexpected arguments: extra[^]*usage: vigil mcp/],
      [['run', '--colour', 'blue'], /usage: vigil run/],
      [['frobnicate'], /unknown command "frobnicate"/],
    ];
    await eachLimited(cases, 4, async ([args, message]) => {
      const result = await vigil(args);
      expectFailure(`vigil ${args.join(' ')}`, result, 2, message);
      expect(result.stderr, `vigil ${args.join(' ')}`).toMatch(/usage: vigil/);
    });
  }, 180_000);

  it('shows the stack only with VIGIL_LOG_LEVEL=debug', async () => {
    const quiet = await vigil(['rpc', 'heartbeat.status', '--data-dir', empty]);
    expectFailure('without debug', quiet, 1, /No token file/);
    const debug = await vigil(['rpc', 'heartbeat.status', '--data-dir', empty], { VIGIL_LOG_LEVEL: 'debug' });
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(/^vigil: No token file at /);
    expect(debug.stderr).toMatch(STACK_FRAME);
  });

  it('ends quietly when the reader of its output goes away (vigil events | head -1)', async () => {
    const child = spawn(process.execPath, [BIN, 'events', '--data-dir', live], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    // The first event read, the reading end closes, as `head -1` does.
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
    expect(stderr).not.toMatch(STACK_FRAME);
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});

describe('vigil checkpoints export writes a private file or says why not', () => {
  it('exits 1 with one line on a full disk (/dev/full gives ENOSPC)', async () => {
    const result = await vigil(['checkpoints', 'export', checkpointId, '/dev/full', '--data-dir', live]);
    expectFailure(
      'export to /dev/full',
      result,
      1,
      /cannot write the export to \/dev\/full: no space left on the device: free some space, or give a FILE on another disk \(ENOSPC\)\./,
    );
  });

  it('replaces an existing 0644 file and a symlink with a regular 0600 file, the link target untouched', async () => {
    const existing = join(dir, 'world-readable.json');
    await writeFile(existing, 'an older export\n');
    await chmod(existing, 0o644);
    const overFile = await vigil(['checkpoints', 'export', checkpointId, existing, '--data-dir', live]);
    expect(overFile.code, overFile.stderr).toBe(0);
    expect((await lstat(existing)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(existing, 'utf8'))).toMatchObject({ kind: 'vigil.checkpoint-export' });

    const target = join(dir, 'not-an-export.txt');
    await writeFile(target, "someone else's file\n");
    await chmod(target, 0o644);
    const link = join(dir, 'linked.json');
    await symlink(target, link);
    const overLink = await vigil(['checkpoints', 'export', checkpointId, link, '--data-dir', live]);
    expect(overLink.code, overLink.stderr).toBe(0);
    const written = await lstat(link);
    expect(written.isSymbolicLink()).toBe(false);
    expect(written.mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(link, 'utf8'))).toMatchObject({ kind: 'vigil.checkpoint-export' });
    expect(await readFile(target, 'utf8')).toBe("someone else's file\n");
    expect((await lstat(target)).mode & 0o777).toBe(0o644);
  });
});

describe('vigil run fails with one line and no stack', () => {
  it('for a data dir that is not one, a data dir in use, and invalid configuration', async () => {
    const withDbFile = join(dir, 'db-is-a-file');
    await mkdir(withDbFile);
    await writeFile(join(withDbFile, 'db'), 'not LevelDB\n');
    const tokenIsDirectory = join(dir, 'token-is-a-directory');
    await mkdir(join(tokenIsDirectory, 'token'), { recursive: true });
    const cases: Array<[string, string[], Record<string, string>, number, RegExp]> = [
      [
        'a data dir that is a file',
        ['--data-dir', regularFile],
        {},
        2,
        /The data dir .*a-file cannot be created or read: it is a file, not a directory .*VIGIL_DATA_DIR \(--data-dir\) must be a directory/,
      ],
      [
        'a data dir whose db is a file',
        ['--data-dir', withDbFile],
        {},
        2,
        /The data dir .*db-is-a-file cannot be created or read: it is a file, not a directory \(EEXIST\) at .*db-is-a-file\/db\. VIGIL_DATA_DIR/,
      ],
      [
        'a data dir whose token is a directory',
        ['--data-dir', tokenIsDirectory],
        {},
        1,
        /The token file .*token could not be read: EISDIR/,
      ],
      ['a data dir in use', ['--data-dir', live], {}, 1, /The data dir .*live is in use by another Vigil daemon/],
      ['an invalid variable', ['--data-dir', empty], { VIGIL_BEAT_MS: 'often' }, 2, /VIGIL_BEAT_MS="often" is invalid/],
    ];
    await eachLimited(cases, 2, async ([name, flags, env, code, message]) => {
      const result = await vigil(['run', '--port', '0', ...flags], { VIGIL_LOG_LEVEL: 'info', ...env });
      expectFailure(`vigil run: ${name}`, result, code, message);
    });
  }, 120_000);
});
