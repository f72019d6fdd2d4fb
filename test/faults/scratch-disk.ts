/** A small disk for fault tests: a real tmpfs that can be filled or made read-only (mounting it needs root, as in CI). */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A mounted scratch disk. */
export interface ScratchDisk {
  dir: string;
  /** Fills every free byte (ENOSPC for everyone after). */
  fill(): void;
  /** Frees what `fill` took. */
  free(): void;
  readOnly(): void;
  writable(): void;
  unmount(): void;
}

/**
 * Mounts a tmpfs of `sizeMb`. Where mounting is not allowed it throws, saying so: a full disk cannot be faked by a
 * test that quietly skips, so the disk-fault tests fail rather than pass untested.
 */
export function mountScratchDisk(sizeMb: number): ScratchDisk {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', dir], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    // execFileSync's error carries the child's stderr as a Buffer (no encoding was asked for).
    const stderr = ((err as { stderr?: Buffer }).stderr?.toString() ?? '').trim();
    throw new Error(
      `Cannot mount a ${sizeMb} MB tmpfs for the disk-fault tests (${stderr || (err as Error).message}): ` +
        'run them as root with CAP_SYS_ADMIN, as .ci/run does.',
      { cause: err },
    );
  }
  const filler = join(dir, 'filler');
  const remount = (mode: 'ro' | 'rw') => execFileSync('mount', ['-o', `remount,${mode}`, dir], { stdio: 'ignore' });
  return {
    dir,
    fill() {
      // Append chunks until the disk says no, then single bytes, so not even a small write fits.
      const fd = openSync(filler, 'a');
      try {
        for (const size of [64 * 1024, 4096, 1]) {
          const chunk = Buffer.alloc(size, 1);
          for (;;) {
            try {
              writeSync(fd, chunk);
            } catch {
              break;
            }
          }
        }
      } finally {
        closeSync(fd);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    readOnly: () => remount('ro'),
    writable: () => remount('rw'),
    unmount() {
      try {
        execFileSync('umount', [dir], { stdio: 'ignore' });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
