/**
 * Example: crash and restore. Starts `vigil run` on a scratch data dir, waits for a few checkpoints, kills it with
 * SIGKILL (no final checkpoint, no goodbye), starts it again and shows that it resumed from the newest checkpoint.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { connect, readTokenFile } from 'vigil';

const BIN = fileURLToPath(new URL('../bin/vigil.js', import.meta.url));
const dataDir = process.env.VIGIL_DATA_DIR ?? (await mkdtemp(join(tmpdir(), 'vigil-crash-demo-')));
const env = {
  ...process.env,
  VIGIL_DATA_DIR: dataDir,
  VIGIL_PORT: '0',
  VIGIL_BEAT_MS: '50',
  VIGIL_BEAT_MIN_MS: '20',
  VIGIL_BEAT_MAX_MS: '100',
  VIGIL_CHECKPOINT_INTERVAL_BEATS: '5',
};

/** Starts the daemon and resolves with it once it logs `gateway listening`. */
function startDaemon(): Promise<{ child: ChildProcess; url: string; lines: Array<Record<string, unknown>> }> {
  const child = spawn(process.execPath, [BIN, 'run'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: Array<Record<string, unknown>> = [];
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (text) => {
      const line = JSON.parse(text) as Record<string, unknown>;
      lines.push(line);
      if (line.msg === 'gateway listening') resolve({ child, url: String(line.url), lines });
    });
    child.once('exit', (code) => reject(new Error(`vigil run exited with ${code} before listening`)));
  });
}

console.log(`data dir: ${dataDir}`);
const first = await startDaemon();
console.log(`daemon 1 (pid ${first.child.pid}) listening on ${first.url}`);
const client = await connect({ url: first.url, token: await readTokenFile(dataDir), reconnect: false });
await client.goals.add({ title: 'Survive a crash', priority: 9 });
// Wait for three checkpoints to be stored.
await new Promise<void>((resolve) => {
  let count = 0;
  const feed = client.subscribe(['checkpoint.created']).subscribe(() => {
    count += 1;
    if (count === 3) {
      feed.unsubscribe();
      resolve();
    }
  });
});
const [newest] = await client.checkpoint.list({ limit: 1 });
const before = await client.heartbeat.status();
console.log(`beat ${before.beatCount}; newest checkpoint ${newest!.id} at beat ${newest!.beatCount}`);
await client.close().catch(() => undefined);

first.child.kill('SIGKILL');
await new Promise((resolve) => first.child.once('exit', resolve));
console.log('daemon 1 killed with SIGKILL');

const second = await startDaemon();
const started = second.lines.find((line) => line.msg === 'runtime started')!;
console.log(
  `daemon 2 restored beat count ${String(started.beatCount)} from checkpoint ${String(started.restoredFrom)} (goals: ${String(started.goals)})`,
);
second.child.kill('SIGTERM');
await new Promise((resolve) => second.child.once('exit', resolve));
if (process.env.VIGIL_DATA_DIR === undefined) await rm(dataDir, { recursive: true, force: true });
// A checkpoint may have landed between our look and the kill: it is never older than the one we saw.
const ok =
  typeof started.restoredFrom === 'string' &&
  started.restoredFrom >= newest!.id &&
  Number(started.beatCount) >= newest!.beatCount;
process.exit(ok ? 0 : 1);
