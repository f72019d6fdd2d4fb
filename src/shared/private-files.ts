/**
 * The data dir is its user's alone (CONTRACT §4): the directory 0700, every file in it 0600, subdirectories 0700.
 *
 * Why a umask and not a chmod: LevelDB creates files all the run long (a new .log at each memtable switch, .ldb
 * tables and a MANIFEST at each compaction, LOG.old, `lost/` on repair), on its own threads, with mode 0644 less the
 * process's umask. A chmod after opening would miss every file of the next compaction; only the umask reaches them
 * all. The umask is the whole process's, though, so only `vigil run`, which owns its process, sets it. A program
 * that embeds Vigil (`createRuntime`) keeps its own umask: there the data dir is still created 0700, which keeps
 * other users out of every file in it whatever their modes. The MCP servers the daemon launches get the umask it was
 * started with back (`launcher-script.ts`): a server writing files for the operator should not find them private.
 */
import { isMainThread } from 'node:worker_threads';

/** The mode of the data dir and of every directory Vigil makes in it. */
export const PRIVATE_DIR_MODE = 0o700;
/** The mode of every file Vigil writes in the data dir. */
export const PRIVATE_FILE_MODE = 0o600;
// Group and others may do nothing: files 0666 & ~077 = 0600, directories 0777 & ~077 = 0700.
const PRIVATE_UMASK = 0o077;

let umaskAtStart: number | undefined;

/** From now on every file and directory this process creates is private to its user; `vigil run` calls it first. */
export function makeNewFilesPrivate(): void {
  // A worker thread cannot set the umask (Node throws): there the 0700 data dir alone keeps other users out.
  if (!isMainThread) return;
  // `process.umask(mask)` returns the previous mask; reading it without setting one is deprecated (DEP0139).
  const previous = process.umask(PRIVATE_UMASK);
  umaskAtStart ??= previous;
}

/** The umask the process had before `makeNewFilesPrivate`, or undefined when it was never called. */
export function umaskBeforePrivate(): number | undefined {
  return umaskAtStart;
}
