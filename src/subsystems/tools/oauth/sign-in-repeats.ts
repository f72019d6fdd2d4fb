/**
 * The bound on sign-ins a server may ask for in a row with the same scope while no request beyond the handshake gets
 * past it (a 403 `insufficient_scope` that a new token never satisfies): the MCP specification asks for a bound on
 * step-up retries, and the conformance suite allows three authorization requests. Pure counting; the sign-in
 * (`server-auth.ts`) reports the refusal.
 */

/** Sign-ins allowed in a row with one scope. */
export const MAX_REPEATED_SIGN_INS = 3;

/** Why no further sign-in is started. The scope is the server's own text: not in an event a read token sees. */
export const REPEATED_SIGN_INS_REFUSED = `the server refused the tokens of ${MAX_REPEATED_SIGN_INS} sign-ins in a row with 403 insufficient_scope; run vigil tools login to try again`;

/** A sign-in counted: allowed, refused for the first time (to be reported once), or refused again. */
export type RepeatVerdict = 'allowed' | 'refused_now' | 'refused';

/** The scope of the sign-ins asked for in a row, how many, and whether the last was refused. */
export class SignInRepeats {
  private last = { scope: '', count: 0, refused: false };

  /** The operator asks, or a request beyond the handshake got through: counting starts afresh. */
  reset(): void {
    this.last = { scope: '', count: 0, refused: false };
  }

  /** Counts a sign-in asked for with `scope`. */
  count(scope: string): RepeatVerdict {
    const last = this.last;
    this.last = last.scope === scope ? { ...last, count: last.count + 1 } : { scope, count: 1, refused: false };
    if (this.last.count <= MAX_REPEATED_SIGN_INS) return 'allowed';
    if (this.last.refused) return 'refused';
    this.last.refused = true;
    return 'refused_now';
  }
}
