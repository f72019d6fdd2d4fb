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
}

/**
 * `Vigil is listening. Dashboard: URL/ (its token is in D/token). Talk to it: vigil send "hello". A read-only token:
 * vigil tokens create --scope read`: never the token itself.
 */
export function nextStepsLine(steps: NextSteps): string {
  const dashboard = `${steps.url.replace(/\/$/, '')}/`;
  const token = steps.tokenFile === undefined ? "VIGIL_TOKEN's value" : `in ${steps.tokenFile}`;
  const send = `vigil send "hello"${steps.dataDirFlag === undefined ? '' : ` --data-dir ${shellQuote(steps.dataDirFlag)}`}`;
  const narrower = `vigil tokens create --scope read${steps.dataDirFlag === undefined ? '' : ` --data-dir ${shellQuote(steps.dataDirFlag)}`}`;
  return `Vigil is listening. Dashboard: ${dashboard} (its token is ${token}). Talk to it: ${send}. A read-only token: ${narrower}`;
}
