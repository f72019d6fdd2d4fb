/** The one line a starting daemon prints for a person (on stderr, beside the JSON log): where to go next. Pure. */
import { shellQuote } from '../shared/shell-quote.js';

/** What the line needs to know. */
export interface NextSteps {
  /** The gateway's URL as a browser on this machine reaches it. */
  url: string;
  /** The token file's path, or undefined when the token is VIGIL_TOKEN's value. */
  tokenFile: string | undefined;
  /** The data dir, when it is not the default (the client then needs `--data-dir` to find the daemon). */
  dataDirFlag: string | undefined;
  /**
   * How a person runs the CLI where the daemon was started: `vigil` when it is on PATH, else `npx vigil` (a checkout,
   * or a project that depends on Vigil: npm puts the package's bin on no PATH of the shell).
   */
  cli: string;
}

/**
 * `Vigil is listening at URL/. Dashboard: npx vigil dashboard (a one-time sign-in link). Talk to it: npx vigil send
 * "hello". A read-only token: npx vigil tokens create --scope read. Its token is in D/token.` Every command works as
 * printed where the daemon was started; never the token itself, nor a sign-in link (a log keeps it).
 */
export function nextStepsLine(steps: NextSteps): string {
  const page = `${steps.url.replace(/\/$/, '')}/`;
  const dataDir = steps.dataDirFlag === undefined ? '' : ` --data-dir ${shellQuote(steps.dataDirFlag)}`;
  const token = steps.tokenFile === undefined ? "VIGIL_TOKEN's value" : `in ${steps.tokenFile}`;
  return (
    `Vigil is listening at ${page}. Dashboard: ${steps.cli} dashboard${dataDir} (prints a one-time sign-in link). ` +
    `Talk to it: ${steps.cli} send "hello"${dataDir}. A read-only token: ${steps.cli} tokens create --scope read${dataDir}. ` +
    `The gateway token is ${token}.`
  );
}

/**
 * `vigil` if a `vigil` command is on `PATH` (`exists` tells whether a path is a file), else `npx vigil`. Checked by
 * name only: a `vigil` on PATH is the installed CLI, whose version a person chose.
 */
export function cliInvocation(path: string | undefined, exists: (file: string) => boolean, sep = ':'): string {
  for (const dir of (path ?? '').split(sep))
    if (dir !== '' && exists(`${dir.replace(/[/\\]$/, '')}/vigil`)) return 'vigil';
  return 'npx vigil';
}
