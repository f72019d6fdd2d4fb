/**
 * At boot, a data dir or token file other users can reach is tightened (CONTRACT §4): the dir and everything in it lose
 * every group and other permission, the token file becomes 0600, each logged once. Vigil creates both private
 * (`private-files.ts`); a looser mode was set by someone, or by a version from before it did. Not refused: a path the
 * daemon cannot chmod (another user's) is warned about with the command that closes it, and the daemon starts.
 */
import { chmod, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { VigilLogger } from './logger.js';
import { shellQuote } from './shell-quote.js';
import { tokenFilePath } from './token-file.js';

/** A path group or others may use, its mode and the command that makes it private again. */
export interface ExposedPath {
  path: string;
  what: 'data dir' | 'token file';
  mode: number;
  fix: string;
}

// Any permission for group or others: read lets them copy, write or search lets them reach or replace.
const OTHERS = 0o077;

async function modeOf(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).mode & 0o777;
  } catch {
    // Absent (a first start, or VIGIL_TOKEN in use): nothing to expose. A path that cannot be read fails elsewhere.
    return undefined;
  }
}

/**
 * The data dir and, when the daemon uses it (`withTokenFile`), the token file, if group or others have any
 * permission on them. `chmod -R go=` for the dir also closes every file a version before 0700/0600 left in it.
 */
export async function findExposedPaths(dataDir: string, withTokenFile: boolean): Promise<ExposedPath[]> {
  const found: ExposedPath[] = [];
  const dirMode = await modeOf(dataDir);
  if (dirMode !== undefined && (dirMode & OTHERS) !== 0)
    found.push({ path: dataDir, what: 'data dir', mode: dirMode, fix: `chmod -R go= ${shellQuote(dataDir)}` });
  const token = tokenFilePath(dataDir);
  const tokenMode = withTokenFile ? await modeOf(token) : undefined;
  if (tokenMode !== undefined && (tokenMode & OTHERS) !== 0)
    found.push({ path: token, what: 'token file', mode: tokenMode, fix: `chmod 600 ${shellQuote(token)}` });
  return found;
}

/**
 * Tightens each exposed path: the data dir and every file and directory under it lose their group and other bits
 * (`chmod -R go=`), the token file becomes 0600. One warn line each, naming the mode it had; a chmod that fails is
 * warned about with the command that closes it.
 */
export async function tightenExposedPaths(found: readonly ExposedPath[], log: VigilLogger): Promise<void> {
  for (const { path, what, mode, fix } of found) {
    const octal = mode.toString(8).padStart(4, '0');
    const whose = what === 'token file' ? 'act with the operate scope' : 'read the conversation and memories';
    try {
      const inside = what === 'data dir' ? await closeTree(path) : (await chmod(path, mode & ~OTHERS), 0);
      const now = (mode & ~OTHERS).toString(8).padStart(4, '0');
      log.warn(
        { path, mode: octal, tightenedTo: now, ...(what === 'data dir' ? { entriesTightened: inside } : {}) },
        `the ${what} ${path} was open to other users (mode ${octal}): anyone who could read it could ${whose}; tightened to ${now}`,
      );
    } catch (err) {
      log.warn(
        { path, mode: octal, fix, err: (err as Error).message },
        `the ${what} ${path} is open to other users (mode ${octal}) and could not be tightened: anyone who can read it can ${whose}; run: ${fix}`,
      );
    }
  }
}

/** `chmod -R go=` on `dir`: the count of entries under it whose mode changed. Symbolic links are not followed. */
async function closeTree(dir: string): Promise<number> {
  await chmod(dir, (await stat(dir)).mode & 0o777 & ~OTHERS);
  let changed = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isSymbolicLink()) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const before = (await stat(path)).mode & 0o777;
      changed += (await closeTree(path)) + ((before & OTHERS) === 0 ? 0 : 1);
      continue;
    }
    const mode = (await stat(path)).mode & 0o777;
    if ((mode & OTHERS) === 0) continue;
    await chmod(path, mode & ~OTHERS);
    changed += 1;
  }
  return changed;
}
