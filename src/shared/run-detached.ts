/**
 * Work started and not waited for. A bare `void promise` turns a rejection into an unhandled one, which ends the
 * daemon (Node's default); here a failure is logged at error with what was being done, and the daemon goes on.
 */
import { describeError } from '../errors.js';
import type { VigilLogger } from './logger.js';

/** Lets `work` run on its own; if it fails, logs `what` (a phrase: "refreshing the tool list") with the reason. */
export function runDetached(work: Promise<unknown>, log: Pick<VigilLogger, 'error'>, what: string): void {
  work.catch((err: unknown) => log.error({ err: describeError(err) }, `${what} failed`));
}
