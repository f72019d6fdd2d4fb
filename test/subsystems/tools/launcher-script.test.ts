import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { launcherCommand } from '../../../src/subsystems/tools/launcher-script.js';

/** The umask a server started under the launcher sees, as `sh -c umask` prints it. */
function umaskUnderLauncher(umask: number | undefined): string {
  const { command, args } = launcherCommand('sh', ['-c', 'umask'], umask);
  return spawnSync(command, args, { encoding: 'utf8' }).stdout.trim();
}

describe('launcherCommand', () => {
  it('gives the server the umask the daemon started with, not the 077 it keeps for its data dir', () => {
    expect(umaskUnderLauncher(0o022)).toBe('0022');
    expect(umaskUnderLauncher(0o027)).toBe('0027');
  });
});
