/**
 * The first minutes with a real daemon (a child process): `vigil run --port 0 --data-dir D` says where to go next and
 * writes D/daemon.json, so `vigil send hello --data-dir D` reaches it; the client's two token errors, the "did you
 * mean" of a misspelt method, the warning for an unknown VIGIL_* variable, and the start-up errors that must come
 * before the data dir is touched.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_ENV, startDaemon, type DaemonProcess } from './daemon-process.js';
import { runNode } from './run-process.js';

let root: string;
const started: DaemonProcess[] = [];
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'vigil-front-door-'));
});
afterAll(async () => {
  for (const daemon of started) daemon.kill('SIGKILL');
  await rm(root, { recursive: true, force: true });
});

/** `vigil …` as a user types it: no VIGIL_* variable in the environment, only what the command line says. */
const vigil = (...args: string[]) => runNode(['bin/vigil.js', ...args]);

describe('vigil run, then vigil send with --data-dir alone', () => {
  it('finds a daemon on port 0 through daemon.json, gets the reply, tells the token errors apart, and cleans up on stop', async () => {
    const dataDir = join(root, 'agent');
    const daemon = startDaemon(['run', '--port', '0', '--data-dir', dataDir], { ...FAST_ENV, VIGIL_BEAT_MSS: '20' });
    started.push(daemon);
    const listening = await daemon.waitFor((l) => l.msg === 'gateway listening', 20_000, 'gateway listening');

    // A misspelt variable is warned about at boot, with the name it was probably meant to be.
    expect(daemon.lines.find((l) => l.variable === 'VIGIL_BEAT_MSS')).toMatchObject({
      level: 40,
      suggestion: 'VIGIL_BEAT_MS',
      msg: expect.stringMatching(/unknown variable VIGIL_BEAT_MSS .*did you mean VIGIL_BEAT_MS\?/),
    });
    // Written before the line clients wait for, naming this process.
    const daemonFile = JSON.parse(await readFile(join(dataDir, 'daemon.json'), 'utf8')) as Record<string, unknown>;
    expect(daemonFile).toEqual({ url: listening.url, pid: daemon.proc.pid, startedAt: expect.any(String) });
    expect(Date.parse(String(daemonFile['startedAt']))).not.toBeNaN();

    const sent = await vigil('send', 'hello', '--data-dir', dataDir);
    expect(sent.stderr).toBe('');
    expect(sent.code).toBe(0);
    expect(sent.stdout).toMatch(/hello/i);
    const conversation = await vigil('conversation', '--json', '--data-dir', dataDir);
    const entries = JSON.parse(conversation.stdout) as Array<{ role: string; text: string }>;
    expect(entries.filter((e) => e.role === 'agent').at(-1)?.text).toBe(sent.stdout.trimEnd());

    // The human line on stderr: the dashboard (no token in it), where the token is, and what to type next.
    const token = (await readFile(join(dataDir, 'token'), 'utf8')).trim();
    const cli = /Talk to it: (npx vigil|vigil) send/.exec(daemon.stderr())?.[1];
    expect(daemon.stderr()).toBe(
      `Vigil is listening at ${String(listening.url)}/. Dashboard: ${cli} dashboard --data-dir ${dataDir} (prints a one-time sign-in link). ` +
        `Talk to it: ${cli} send "hello" --data-dir ${dataDir}. A read-only token: ${cli} tokens create --scope read --data-dir ${dataDir}. ` +
        `The gateway token is in ${join(dataDir, 'token')}.\n`,
    );
    expect(daemon.stderr()).not.toContain(token);
    // The dashboard hint works as printed: a one-time link, which signs a browser in once and leaves the address.
    const dashboard = await vigil('dashboard', '--data-dir', dataDir);
    expect(dashboard.code).toBe(0);
    const link = dashboard.stdout.trim();
    expect(link).toMatch(new RegExp(`^${String(listening.url)}/\\?signin=[\\w-]{43}$`));
    expect(link).not.toContain(token);
    const signIn = await fetch(link, { redirect: 'manual' });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toMatch(/^\/#session=/);
    expect(signIn.headers.get('set-cookie')).toMatch(/^vigil_session_/);
    expect((await fetch(link, { redirect: 'manual' })).status).toBe(401);

    const misspelt = await vigil('rpc', 'agent.sned', '{"text":"hi"}', '--data-dir', dataDir);
    expect(misspelt.code).toBe(1);
    expect(JSON.parse(misspelt.stderr.split('\n')[0]!)).toMatchObject({
      code: -32601,
      data: { suggestions: ['agent.send'] },
    });
    expect(misspelt.stderr).toMatch(/did you mean "agent\.send"\?/);

    const elsewhere = join(root, 'never-started');
    const noTokenFile = await vigil('send', 'hello', '--data-dir', elsewhere);
    expect(noTokenFile.code).toBe(1);
    expect(noTokenFile.stderr).toContain(
      `No token file at ${join(elsewhere, 'token')} (is the daemon running with this data dir?)`,
    );
    const refused = await vigil('send', 'hello', '--data-dir', dataDir, '--token', 'not-the-token');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /the daemon refused the token \(HTTP 401 from http:\/\/127\.0\.0\.1:\d+\); the token came from --token/,
    );

    daemon.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    expect(existsSync(join(dataDir, 'daemon.json'))).toBe(false);
    expect(existsSync(join(dataDir, 'token'))).toBe(true);
  });
});

describe('vigil run start-up errors', () => {
  it('exits 1 for a port in use, suggesting --port, before the data dir is created', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as { port: number };
    try {
      const dataDir = join(root, 'port-taken');
      const daemon = startDaemon(['run', '--port', String(port), '--data-dir', dataDir], FAST_ENV);
      expect(await daemon.exited).toBe(1);
      expect(daemon.stderr()).toMatch(new RegExp(`Port ${port} on 127\\.0\\.0\\.1 is already in use.*Pass --port`));
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      holder.close();
    }
  });

  it('exits 2 for a data dir that cannot be created, naming VIGIL_DATA_DIR and not advising --repair', async () => {
    const file = join(root, 'a-file');
    await writeFile(file, 'not a directory');
    const daemon = startDaemon(['run', '--port', '0', '--data-dir', join(file, 'data')], FAST_ENV);
    expect(await daemon.exited).toBe(2);
    expect(daemon.stderr()).toMatch(
      /The data dir .*a-file\/data cannot be created or read: a part of the path is a file, not a directory \(ENOTDIR\)\. VIGIL_DATA_DIR/,
    );
    expect(daemon.stderr()).not.toMatch(/repair/);
  });
});
