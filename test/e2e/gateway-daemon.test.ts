import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstValueFrom, take, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/vigil-client.js';
import type { VigilEvent } from '../../src/protocol/events.schema.js';
import { openSse } from '../gateway/sse-client.js';
import { FAST_ENV, startDaemon, type DaemonProcess } from './daemon-process.js';
import { runNode } from './run-process.js';

let dataDir: string;
const started: DaemonProcess[] = [];
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'vigil-gw-e2e-'));
});
afterAll(async () => {
  for (const daemon of started) daemon.kill('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

async function run(): Promise<{ daemon: DaemonProcess; url: string }> {
  const daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], FAST_ENV);
  started.push(daemon);
  const line = await daemon.waitFor((l) => l.msg === 'gateway listening', 20_000, 'gateway listening');
  return { daemon, url: String(line.url) };
}

async function stop(daemon: DaemonProcess): Promise<void> {
  daemon.kill('SIGTERM');
  expect(await daemon.exited).toBe(0);
}

describe('the gateway of a real daemon', () => {
  it('refuses a non-loopback host without VIGIL_TOKEN: exit 2 naming VIGIL_TOKEN, nothing opened', async () => {
    const never = join(dataDir, 'never');
    const daemon = startDaemon(['run', '--host', '0.0.0.0', '--data-dir', never, '--port', '0']);
    expect(await daemon.exited).toBe(2);
    expect(daemon.stderr()).toMatch(/VIGIL_TOKEN/);
    expect(existsSync(never)).toBe(false);
  });

  it('creates the token file once (0600), and resumes SSE (Last-Event-ID) and WebSocket (after) feeds across a restart', async () => {
    const first = await run();
    const tokenFile = join(dataDir, 'token');
    const token = (await readFile(tokenFile, 'utf8')).trim();
    expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
    expect(await (await fetch(`${first.url}/healthz`)).json()).toMatchObject({
      ok: true,
      beatCount: expect.any(Number),
    });

    const sse = await openSse(`${first.url}/events?types=checkpoint.*&token=${token}`);
    const ws = await connect({ url: first.url, token, reconnect: false });
    const wsEvents = await firstValueFrom(ws.subscribe(['checkpoint.*']).pipe(take(2), toArray()));
    await sse.waitFor((m) => m.length >= 2, 'two SSE checkpoint events');
    const lastSseId = Number(sse.messages.at(-1)!.id);
    const lastWsSeq = wsEvents.at(-1)!.seq;
    sse.close();
    await ws.close();
    // Stopping writes a final checkpoint nobody is listening to; the next daemon restores from it.
    await stop(first.daemon);

    const second = await run();
    expect((await readFile(tokenFile, 'utf8')).trim()).toBe(token);
    const resumed = await openSse(`${second.url}/events?types=checkpoint.*`, {
      authorization: `Bearer ${token}`,
      'last-event-id': String(lastSseId),
    });
    const client = await connect({ url: second.url, token, reconnect: false });
    const wsResumed: VigilEvent[] = [];
    let wsTarget = Number.POSITIVE_INFINITY;
    let wsCaughtUp!: () => void;
    const wsDone = new Promise<void>((resolve) => (wsCaughtUp = resolve));
    client.subscribe(['checkpoint.*'], { after: lastWsSeq }).subscribe((event) => {
      wsResumed.push(event);
      if (wsResumed.length >= wsTarget) wsCaughtUp();
    });
    const missedBySse = await client.events.history({ types: ['checkpoint.*'], after: lastSseId, limit: 1000 });
    const missedByWs = await client.events.history({ types: ['checkpoint.*'], after: lastWsSeq, limit: 1000 });
    // What was missed spans both daemons: daemon 1's final checkpoint, then daemon 2's restore.
    const restored = missedBySse.findIndex((e) => e.type === 'checkpoint.restored');
    expect(restored).toBeGreaterThan(0);
    expect(missedBySse.slice(0, restored).some((e) => e.type === 'checkpoint.created')).toBe(true);

    await resumed.waitFor((m) => m.length >= missedBySse.length, 'the missed SSE events');
    expect(resumed.messages.slice(0, missedBySse.length).map((m) => Number(m.id))).toEqual(
      missedBySse.map((e) => e.seq),
    );
    expect(resumed.messages.slice(0, missedBySse.length).map((m) => JSON.parse(m.data))).toEqual(missedBySse);
    wsTarget = missedByWs.length;
    if (wsResumed.length >= wsTarget) wsCaughtUp();
    await wsDone;
    expect(wsResumed.slice(0, missedByWs.length).map((e) => e.seq)).toEqual(missedByWs.map((e) => e.seq));
    resumed.close();
    await client.close();
    await stop(second.daemon);
  });

  it('answers the vigil rpc command line: the result on stdout, a JSON-RPC error on stderr with exit 1', async () => {
    const { daemon, url } = await run();
    const ok = await runNode(['bin/vigil.js', 'rpc', 'heartbeat.status', '--url', url, '--data-dir', dataDir]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ beatCount: expect.any(Number), state: 'awake' });
    const bad = await runNode(['bin/vigil.js', 'rpc', 'nope.method', '{}', '--url', url, '--data-dir', dataDir]);
    expect(bad.code).toBe(1);
    // The error object as sent on the first line; the line after it names the method (src/client/commands).
    expect(JSON.parse(bad.stderr.split('\n')[0]!)).toEqual({ code: -32601, message: 'Method not found' });
    expect(bad.stderr).toContain('no method "nope.method"');
    await stop(daemon);
  });
});
