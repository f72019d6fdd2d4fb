/**
 * Why `vigil mcp` has no link to the daemon, in the words a client command prints for the same failure (what is
 * missing, what to run): no token file yet, nothing answering at the address, a refused token. A tool call then
 * answers with this sentence as its `isError` result, and the next call looks for the daemon again.
 */
export class LinkUnavailableError extends Error {
  override readonly name = 'LinkUnavailableError';

  /** `message`: the client command's sentence; `cause`: the error it describes (CLIENT_NO_TOKEN, CLIENT_DISCONNECTED…). */
  constructor(message: string, options: { cause: unknown }) {
    super(message, { cause: options.cause });
  }
}
