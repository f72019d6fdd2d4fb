/** A data dir or token file open to other users is tightened at start and logged (CONTRACT §4). */
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findExposedPaths, tightenExposedPaths } from '../../src/shared/data-dir-exposure.js';
import type { VigilLogger } from '../../src/shared/logger.js';

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'vigil-exposure-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

/** A logger that keeps its warn lines. */
function recording(): VigilLogger & { warned: { fields: Record<string, unknown>; msg: string }[] } {
  const warned: { fields: Record<string, unknown>; msg: string }[] = [];
  const ignore = (): void => undefined;
  return {
    warned,
    warn: ((fields: Record<string, unknown>, msg: string) => {
      warned.push({ fields, msg });
    }) as unknown as VigilLogger['warn'],
    info: ignore,
    error: ignore,
    debug: ignore,
  };
}

const modeOf = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;

describe('tightenExposedPaths', () => {
  it('makes a 0755 data dir 0700 with everything in it closed to others, and a 0644 token file 0600, logging each', async () => {
    await chmod(dataDir, 0o755);
    await mkdir(join(dataDir, 'db'), { mode: 0o755 });
    await chmod(join(dataDir, 'db'), 0o755);
    await writeFile(join(dataDir, 'db', 'CURRENT'), 'x', { mode: 0o644 });
    await chmod(join(dataDir, 'db', 'CURRENT'), 0o644);
    await writeFile(join(dataDir, 'token'), `${'ab'.repeat(16)}\n`, { mode: 0o644 });
    await chmod(join(dataDir, 'token'), 0o644);
    const log = recording();

    await tightenExposedPaths(await findExposedPaths(dataDir, true), log);

    expect(await modeOf(dataDir)).toBe(0o700);
    expect(await modeOf(join(dataDir, 'db'))).toBe(0o700);
    expect(await modeOf(join(dataDir, 'db', 'CURRENT'))).toBe(0o600);
    expect(await modeOf(join(dataDir, 'token'))).toBe(0o600);
    expect(log.warned.map((line) => line.fields)).toEqual([
      expect.objectContaining({ path: dataDir, mode: '0755', tightenedTo: '0700' }),
      expect.objectContaining({ path: join(dataDir, 'token'), mode: '0644', tightenedTo: '0600' }),
    ]);
    expect(log.warned[0]?.msg).toContain('was open to other users (mode 0755)');
    // Once tightened, nothing is exposed at the next start.
    expect(await findExposedPaths(dataDir, true)).toEqual([]);
  });

  it('leaves a private data dir alone and logs nothing', async () => {
    await chmod(dataDir, 0o700);
    const log = recording();
    await tightenExposedPaths(await findExposedPaths(dataDir, true), log);
    expect(await modeOf(dataDir)).toBe(0o700);
    expect(log.warned).toEqual([]);
  });
});
