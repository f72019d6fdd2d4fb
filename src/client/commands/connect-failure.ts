/**
 * What a client command prints when it cannot reach its daemon: a refused token and an unreachable daemon each name
 * where the URL and token came from and what to change. Pure: the target says everything.
 */
import { isVigilError } from '../../errors.js';
import { runCommandFor, type DaemonTarget, type TokenSource, type UrlSource } from './client-options.js';

function tokenOrigin(source: TokenSource): string {
  switch (source.kind) {
    case 'flag':
      return '--token';
    case 'env':
      return 'VIGIL_TOKEN';
    case 'file':
      return `the token file ${source.path}`;
  }
}

function urlOrigin(source: UrlSource): string {
  switch (source.kind) {
    case 'flag':
      return 'from --url';
    case 'daemon-file':
      return `from ${source.path}, pid ${source.pid}`;
    case 'env':
      return 'from VIGIL_HOST/VIGIL_PORT';
    case 'default':
      return 'the default address';
  }
}

/** The sentence for a 401: the daemon answered, but not to this token. */
export function refusedTokenMessage(target: DaemonTarget): string {
  const head = `the daemon refused the token (HTTP 401 from ${target.url}); the token came from ${tokenOrigin(target.tokenSource)}.`;
  if (target.tokenSource.kind !== 'file') {
    return `${head} Pass this daemon's token with --token or VIGIL_TOKEN, or unset them and give the daemon's data dir with --data-dir (its token file is read from there).`;
  }
  if (target.urlSource.kind === 'daemon-file') {
    // The file and the address come from the same data dir: the daemon there was given its token in VIGIL_TOKEN.
    return `${head} That daemon was started with VIGIL_TOKEN, which takes the place of the file: pass the same token with --token or VIGIL_TOKEN.`;
  }
  return `${head} It is not the token of the daemon at ${target.url}: give that daemon's data dir with --data-dir, or its token with --token or VIGIL_TOKEN.`;
}

/** The sentence for a 429: the daemon answered, and is refusing this address for a while. */
export function throttledMessage(target: DaemonTarget): string {
  return (
    `the daemon at ${target.url} is up but refused this address for now (HTTP 429): too many wrong tokens came from ` +
    `it (another client with a stale token, or a guesser), and no token from it is checked until they stop for a ` +
    `second or so. Wait and try again; the token came from ${tokenOrigin(target.tokenSource)}.`
  );
}

/** What to do when nothing answers at the URL, by how the URL was found. */
function unreachableAdvice(target: DaemonTarget): string {
  const start = `start it with \`${runCommandFor(target.dataDir)}\``;
  const file = target.daemonFile;
  switch (target.urlSource.kind) {
    case 'flag':
      return `Is the daemon running there? Check the URL, or drop --url to find the daemon by its data dir.`;
    case 'daemon-file':
      return `${target.urlSource.path} names a process that is running but does not answer there (still starting, or another program took the pid): try again, or ${start}.`;
    case 'env':
    case 'default':
      if (file?.kind === 'found') {
        return `${file.path} names pid ${file.info.pid}, which is no longer running (that daemon did not stop cleanly), so it was not trusted: the daemon is not running; ${start}.`;
      }
      if (file?.kind === 'invalid')
        return `${file.path} could not be used (${file.reason}); is the daemon running? If not, ${start}.`;
      return `No daemon has written ${file?.path ?? 'daemon.json'} in data dir ${target.dataDir}: is it running with another data dir (pass --data-dir) or elsewhere (pass --url)? If not, ${start}.`;
  }
}

/** The message for an error from connecting, or undefined when it is not a connection failure. */
export function describeConnectFailure(err: unknown, target: DaemonTarget): string | undefined {
  if (isVigilError(err, 'GATEWAY_UNAUTHORIZED')) return refusedTokenMessage(target);
  if (isVigilError(err, 'GATEWAY_THROTTLED')) return throttledMessage(target);
  if (isVigilError(err, 'CLIENT_DISCONNECTED')) {
    return `${err.message.replace(/\.$/, '')} (${urlOrigin(target.urlSource)}). ${unreachableAdvice(target)}`;
  }
  return undefined;
}
