/**
 * At boot, the data dir and the token file other users can read are warned about, each once, with the `chmod` that
 * closes them. Not refused: an operator may share a data dir with a group on purpose, and a daemon that stopped
 * starting after an upgrade would be worse than a line in its log. Vigil creates both private
 * (`private-files.ts`); a looser mode was set by someone, or by a version from before it did.
 */
import { stat } from 'node:fs/promises';
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

/** One warn line per exposed path, naming its mode and the fix. */
export function warnExposedPaths(found: readonly ExposedPath[], log: VigilLogger): void {
  for (const { path, what, mode, fix } of found) {
    const octal = mode.toString(8).padStart(4, '0');
    const whose = what === 'token file' ? 'may act with the operate scope' : 'can read the conversation and memories';
    log.warn(
      { path, mode: octal, fix },
      `the ${what} ${path} is open to other users (mode ${octal}): anyone who can read it ${whose}; unless shared on purpose, run: ${fix}`,
    );
  }
}
