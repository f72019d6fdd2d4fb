/**
 * Before the daemon opens its store: the data dir exists (created if need be) and this user can read and write it
 * and what is in it. A data dir that cannot be created or read is a configuration mistake (exit 2) naming
 * VIGIL_DATA_DIR, never a damaged store: repairing it could not help, so the message does not suggest it.
 */
import { constants } from 'node:fs';
import { access, mkdir, readdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { VigilError, describeError } from '../errors.js';
import { PRIVATE_DIR_MODE } from './private-files.js';

// The errors that mean "this user cannot use this path", as opposed to a disk fault: each has its sentence.
const REASONS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOTDIR: 'a part of the path is a file, not a directory',
  ENOENT: 'a part of the path cannot hold directories',
  EEXIST: 'it is a file, not a directory',
};

/** The CONFIG_INVALID error for a data dir this user cannot use; `cause` is the file system's error. */
export function dataDirError(dataDir: string, path: string, cause: unknown): VigilError {
  const errno = (cause as NodeJS.ErrnoException | undefined)?.code;
  const why =
    errno !== undefined && REASONS[errno] !== undefined ? `${REASONS[errno]} (${errno})` : describeError(cause);
  const where = path === dataDir ? '' : ` at ${path}`;
  const allowed = 'expected a directory this user can create, read and write';
  return new VigilError(
    'CONFIG_INVALID',
    `The data dir ${dataDir} cannot be created or read: ${why}${where}. VIGIL_DATA_DIR (--data-dir) must be a ` +
      `directory this user can create, read and write: choose another with --data-dir, or give this user access to it.`,
    {
      cause,
      data: {
        variable: 'VIGIL_DATA_DIR',
        value: dataDir,
        allowed,
        problems: [{ variable: 'VIGIL_DATA_DIR', value: dataDir, allowed }],
      },
    },
  );
}

/**
 * `mkdir -p -m 700`, one level at a time. Node's own `recursive` loops for ever where a parent answers ENOENT to every
 * mkdir (under /proc), so the walk is ours: it stops at the first ancestor that exists. Only the data dir itself is
 * made private: its parents are the operator's.
 */
async function makeDirectories(dir: string, mode?: number): Promise<void> {
  try {
    await mkdir(dir, { mode });
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    const parent = dirname(dir);
    if (code !== 'ENOENT' || parent === dir) throw err;
    await makeDirectories(parent);
  }
  try {
    await mkdir(dir, { mode });
  } catch (err) {
    // Made a moment ago by another process: as good as made here.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

async function assertAccess(dataDir: string, path: string, mode: number): Promise<void> {
  try {
    await access(path, mode);
  } catch (err) {
    throw dataDirError(dataDir, path, err);
  }
}

/**
 * Creates `dataDir` if missing (mode 0700) and checks that it, its entries and the entries of its subdirectories (the store's
 * files) are readable and writable. Throws CONFIG_INVALID naming VIGIL_DATA_DIR when not.
 */
export async function assertDataDirUsable(dataDir: string): Promise<void> {
  try {
    await makeDirectories(dataDir, PRIVATE_DIR_MODE);
    // An existing file answers EEXIST like a directory: only stat tells them apart.
    if (!(await stat(dataDir)).isDirectory())
      throw Object.assign(new Error(`${dataDir} is a file`), { code: 'EEXIST' });
  } catch (err) {
    throw dataDirError(dataDir, dataDir, err);
  }
  const rwx = constants.R_OK | constants.W_OK | constants.X_OK;
  await assertAccess(dataDir, dataDir, rwx);
  for (const entry of await readdir(dataDir, { withFileTypes: true })) {
    const path = join(dataDir, entry.name);
    if (!entry.isDirectory()) {
      await assertAccess(dataDir, path, constants.R_OK | constants.W_OK);
      continue;
    }
    await assertAccess(dataDir, path, rwx);
    for (const inner of await readdir(path, { withFileTypes: true })) {
      await assertAccess(dataDir, join(path, inner.name), inner.isDirectory() ? rwx : constants.R_OK | constants.W_OK);
    }
  }
}
