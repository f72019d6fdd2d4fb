/**
 * Writes a file only its owner can read (a checkpoint export holds the conversation), whatever was at its path: a
 * new file created exclusively beside it, renamed over it. An existing file's mode is never kept (a 0644 file becomes
 * a 0600 one) and a symlink there is replaced, never written through.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** The mode of every file written here: read and write for the owner alone. */
export const PRIVATE_FILE_MODE = 0o600;

// Absent on Windows, where there are no symlinks to follow in this sense: O_EXCL is the guard there.
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/** An error with the errno code of the file system's refusal, as Node raises them. */
function fsError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}

/** What is at `path` now, without following a symlink there. */
async function kindAt(path: string): Promise<'none' | 'file' | 'symlink' | 'directory' | 'special'> {
  try {
    const found = await lstat(path);
    if (found.isSymbolicLink()) return 'symlink';
    if (found.isFile()) return 'file';
    if (found.isDirectory()) return 'directory';
    return 'special';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'none';
    throw err;
  }
}

/** Whether the symlink at `path` leads to a device, a pipe or a socket (`/dev/stdout` is one). */
async function leadsToSpecial(path: string): Promise<boolean> {
  try {
    const target = await stat(path);
    return !target.isFile() && !target.isDirectory();
  } catch {
    // Dangling, or a loop: nothing there is written to; the link itself is replaced.
    return false;
  }
}

/**
 * Writes `text` to `path` as a regular file of mode 0600: into a temporary file opened with O_CREAT|O_EXCL|O_NOFOLLOW
 * in the same directory (so a file planted there, a symlink included, is refused rather than used), synced, then
 * renamed over `path` (atomic: a reader sees the old file or the whole new one, and a symlink at `path` is replaced,
 * not followed). A device or pipe at `path` (`/dev/full`, a shell's `>(…)`) is written into, as there is no file to
 * replace; a symlink to one is refused, so `/dev/stdout` is never replaced by a file. Throws the file system's error
 * (with its `code`) and leaves no temporary file behind.
 */
export async function writePrivateFile(path: string, text: string): Promise<void> {
  const kind = await kindAt(path);
  if (kind === 'directory') throw fsError('EISDIR', `${path} is a directory`);
  if (kind === 'special') return writeInto(path, text);
  if (kind === 'symlink' && (await leadsToSpecial(path))) {
    throw fsError('ESYMLINK', `${path} is a symlink to a device or pipe, which is never written through`);
  }
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(
    temporary,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW,
    PRIVATE_FILE_MODE,
  );
  try {
    try {
      // Created 0600 less the umask; set exactly, so a umask never widens nor narrows what the file promises.
      await handle.chmod(PRIVATE_FILE_MODE);
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (err) {
    await unlink(temporary).catch(() => undefined);
    throw err;
  }
}

/** Writes into the device or pipe at `path` (opened without creating anything, never through a symlink). */
async function writeInto(path: string, text: string): Promise<void> {
  const handle = await open(path, constants.O_WRONLY | NO_FOLLOW);
  try {
    await handle.writeFile(text, 'utf8');
  } finally {
    await handle.close();
  }
}
