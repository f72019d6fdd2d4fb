import { existsSync } from 'node:fs';
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writePrivateFile } from '../../src/client/commands/private-file.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vigil-private-file-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const modeOf = async (path: string) => (await lstat(path)).mode & 0o777;

describe('writePrivateFile', () => {
  it('creates a new file of mode 0600', async () => {
    const file = join(dir, 'export.json');
    await writePrivateFile(file, 'secret\n');
    expect(await readFile(file, 'utf8')).toBe('secret\n');
    expect(await modeOf(file)).toBe(0o600);
  });

  it('replaces an existing 0644 file by a 0600 one holding the new text', async () => {
    const file = join(dir, 'export.json');
    await writeFile(file, 'an older, much longer text that must not survive in part\n');
    await chmod(file, 0o644);
    await writePrivateFile(file, 'new\n');
    expect(await readFile(file, 'utf8')).toBe('new\n');
    expect(await modeOf(file)).toBe(0o600);
    // Nothing is left beside it: the temporary file was renamed into place.
    expect(await readdir(dir)).toEqual(['export.json']);
  });

  it('replaces a symlink by a regular 0600 file and leaves its target untouched', async () => {
    const target = join(dir, 'elsewhere.txt');
    await writeFile(target, 'not yours\n');
    await chmod(target, 0o644);
    const file = join(dir, 'export.json');
    await symlink(target, file);
    await writePrivateFile(file, 'export\n');
    const written = await lstat(file);
    expect(written.isSymbolicLink()).toBe(false);
    expect(written.isFile()).toBe(true);
    expect(written.mode & 0o777).toBe(0o600);
    expect(await readFile(file, 'utf8')).toBe('export\n');
    expect(await readFile(target, 'utf8')).toBe('not yours\n');
    expect(await modeOf(target)).toBe(0o644);
  });

  it('replaces a dangling symlink without creating its target', async () => {
    const target = join(dir, 'planted-target');
    const file = join(dir, 'export.json');
    await symlink(target, file);
    await writePrivateFile(file, 'export\n');
    expect((await lstat(file)).isFile()).toBe(true);
    expect(existsSync(target)).toBe(false);
  });

  it('refuses a directory, and a symlink to a device, leaving nothing behind', async () => {
    const sub = join(dir, 'sub');
    await mkdir(sub);
    await expect(writePrivateFile(sub, 'x')).rejects.toMatchObject({ code: 'EISDIR' });
    const toDevice = join(dir, 'to-null');
    await symlink('/dev/null', toDevice);
    await expect(writePrivateFile(toDevice, 'x')).rejects.toMatchObject({ code: 'ESYMLINK' });
    expect((await lstat(toDevice)).isSymbolicLink()).toBe(true);
    expect((await readdir(dir)).sort()).toEqual(['sub', 'to-null']);
  });

  it('writes into a device (a full disk: /dev/full gives ENOSPC) without replacing it', async () => {
    await expect(writePrivateFile('/dev/full', 'x')).rejects.toMatchObject({ code: 'ENOSPC' });
    expect((await lstat('/dev/full')).isCharacterDevice()).toBe(true);
  });

  it('fails in a directory that does not exist, creating nothing', async () => {
    await expect(writePrivateFile(join(dir, 'missing', 'export.json'), 'x')).rejects.toMatchObject({
      code: 'ENOENT',
    });
    expect(await readdir(dir)).toEqual([]);
  });
});
