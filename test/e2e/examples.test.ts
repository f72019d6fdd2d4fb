import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_ENV, startDaemon, type DaemonProcess } from './daemon-process.js';
import { runNode } from './run-process.js';

let dataDir: string;
let daemon: DaemonProcess;
let url: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'vigil-examples-'));
  // A small cost per think, so the budget moves and the feed example has budget events to print.
  daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], { ...FAST_ENV, VIGIL_OFFLINE_COST_USD: '0.001' });
  url = String((await daemon.waitFor((l) => l.msg === 'gateway listening')).url);
});
afterAll(async () => {
  daemon.kill('SIGTERM');
  await daemon.exited;
  await rm(dataDir, { recursive: true, force: true });
});

const example = (file: string, args: string[] = [], env: Record<string, string> = {}) =>
  runNode(['--import', 'tsx', `examples/${file}`, ...args], { VIGIL_URL: url, VIGIL_DATA_DIR: dataDir, ...env });

describe('examples', () => {
  it('rpc-client.ts: status, a goal, a message answered by the agent, the budget and the checkpoints', async () => {
    const { code, stdout, stderr } = await example('rpc-client.ts');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^beat \d+, awake/m);
    expect(stdout).toMatch(/^added goal g-/m);
    expect(stdout).toMatch(/^agent replied: .+/m);
    expect(stdout).toMatch(/^budget: \$\d+\.\d{4} of \$5\.00/m);
  });

  it('event-feed.ts: prints checkpoint and budget events as they come', async () => {
    const { code, stdout } = await example('event-feed.ts', ['--count', '4']);
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(4);
    for (const line of lines)
      expect(line).toMatch(/^#\d+ \S+ (checkpoint\.|agent\.budget_|agent\.sleeping|agent\.waking)/);
  });

  it('crash-restore.ts: kills its daemon with SIGKILL and shows the restarted one resuming the beat count', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'vigil-crash-example-'));
    try {
      const { code, stdout } = await example('crash-restore.ts', [], { VIGIL_DATA_DIR: scratch });
      expect(code).toBe(0);
      expect(stdout).toMatch(/killed with SIGKILL/);
      const before = /newest checkpoint (\S+) at beat (\d+)/.exec(stdout)!;
      const after = /restored beat count (\d+) from checkpoint (\S+)/.exec(stdout)!;
      expect(Number(after[1])).toBeGreaterThanOrEqual(Number(before[2]));
      expect(after[2]! >= before[1]!).toBe(true);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });
});
