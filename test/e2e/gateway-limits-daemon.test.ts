/** `VIGIL_MAX_CONNECTIONS` on a real `vigil run`: validated at start (exit 2 naming it), and the cap its gateway keeps. */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { tryUpgrade } from '../gateway/ws-upgrade.js';
import { FAST_ENV, startDaemon, type DaemonProcess } from './daemon-process.js';

let dataDir: string;
const started: DaemonProcess[] = [];
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'vigil-limits-e2e-'));
});
afterAll(async () => {
  for (const daemon of started) daemon.kill('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
});

describe('VIGIL_MAX_CONNECTIONS on a real daemon', () => {
  it('exits 2 naming the variable and the value for a cap of 0', async () => {
    const daemon = startDaemon(['run', '--data-dir', join(dataDir, 'never'), '--port', '0'], {
      ...FAST_ENV,
      VIGIL_MAX_CONNECTIONS: '0',
    });
    started.push(daemon);
    expect(await daemon.exited).toBe(2);
    expect(daemon.stderr()).toContain('VIGIL_MAX_CONNECTIONS="0" is invalid');
  });

  it('refuses a token its second WebSocket with 503 under a cap of 2, and counts it in /metrics', async () => {
    const daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], {
      ...FAST_ENV,
      VIGIL_MAX_CONNECTIONS: '2',
    });
    started.push(daemon);
    const line = await daemon.waitFor((l) => l.msg === 'gateway listening', 20_000, 'gateway listening');
    const url = String(line.url);
    const token = (await readFile(join(dataDir, 'token'), 'utf8')).trim();
    const rpcUrl = `${url.replace('http', 'ws')}/rpc`;
    const auth = { authorization: `Bearer ${token}` };
    const held = new WebSocket(rpcUrl, { headers: auth });
    await new Promise((resolve, reject) => {
      held.once('open', resolve);
      held.once('error', reject);
    });
    expect(await tryUpgrade(rpcUrl, auth)).toBe(503);
    const metrics = await (await fetch(`${url}/metrics`, { headers: auth })).text();
    expect(metrics).toMatch(/^vigil_gateway_connections_refused_total\{reason="token_full"\} 1$/m);
    held.close();
    daemon.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
  });
});
