/** Every error code Vigil raises, and the JSON-RPC code each becomes on the wire: one table both ends read. */

/** Every error code Vigil raises, one line each on what it means. */
export const ERROR_CODES = {
  /** A configuration variable or flag has a value outside what is allowed. */
  CONFIG_INVALID: 'CONFIG_INVALID',
  /** The command line could not be understood (unknown command, missing argument). */
  CLI_USAGE: 'CLI_USAGE',
  /** Another daemon holds the data dir's LevelDB lock. */
  STORE_LOCKED: 'STORE_LOCKED',
  /** The store could not be opened or written (disk full, read-only, damaged files). */
  STORE_IO: 'STORE_IO',
  /** The data dir's LevelDB files are damaged (missing or corrupt table, MANIFEST or CURRENT); `vigil run --repair` salvages what it can. */
  STORE_CORRUPT: 'STORE_CORRUPT',
  /** The data dir is sealed and `VIGIL_CHECKPOINT_KEY` is unset or another key: the daemon refuses to start (exit 2) rather than cold-start. */
  STORE_KEY_INVALID: 'STORE_KEY_INVALID',
  /** No checkpoint with that id exists. */
  CHECKPOINT_NOT_FOUND: 'CHECKPOINT_NOT_FOUND',
  /** A stored checkpoint failed to decompress, parse, validate or migrate. */
  CHECKPOINT_CORRUPT: 'CHECKPOINT_CORRUPT',
  /** A checkpoint was written by a newer Vigil whose format this one cannot read. */
  CHECKPOINT_FORMAT_UNSUPPORTED: 'CHECKPOINT_FORMAT_UNSUPPORTED',
  /** A sealed checkpoint cannot be opened: `VIGIL_CHECKPOINT_KEY` is unset or is not the key that sealed it. */
  CHECKPOINT_KEY_INVALID: 'CHECKPOINT_KEY_INVALID',
  /** A restore needs `confirm: true` before it replaces the running state. */
  CHECKPOINT_CONFIRMATION_REQUIRED: 'CHECKPOINT_CONFIRMATION_REQUIRED',
  /** A restore is already running; only one at a time. */
  CHECKPOINT_RESTORE_BUSY: 'CHECKPOINT_RESTORE_BUSY',
  /** Saving a checkpoint failed; the beat goes on. */
  CHECKPOINT_SAVE_FAILED: 'CHECKPOINT_SAVE_FAILED',
  /** No goal with that id exists. */
  GOAL_NOT_FOUND: 'GOAL_NOT_FOUND',
  /** No long-term memory with that id exists (never did, or it was forgotten). */
  MEMORY_NOT_FOUND: 'MEMORY_NOT_FOUND',
  /** The agent is answering another message and the busy strategy is `reject`. */
  AGENT_BUSY: 'AGENT_BUSY',
  /** The budget ledger cannot be written (disk full or read-only): no think may spend money that cannot be recorded. */
  BUDGET_LEDGER_UNAVAILABLE: 'BUDGET_LEDGER_UNAVAILABLE',
  /** The thinker failed after its retries. */
  THINK_FAILED: 'THINK_FAILED',
  /** The model API refused the credentials (HTTP 401/403): retrying cannot help until the key is fixed. */
  THINK_AUTH_FAILED: 'THINK_AUTH_FAILED',
  /** The model API refused the request for good (HTTP 400, 404, 413, 422): the same request can never succeed, so it is not retried. */
  THINK_REJECTED: 'THINK_REJECTED',
  /**
   * The prompt cannot fit `VIGIL_CONTEXT_TOKENS` even by the plain estimate (the fixed prefix and the think's own state
   * alone overflow it): the think is refused before any API call and its turns end; the next message is tried afresh.
   */
  CONTEXT_TOO_SMALL: 'CONTEXT_TOO_SMALL',
  /** The think was aborted (preempted by a user message or stopped by the budget). */
  THINK_ABORTED: 'THINK_ABORTED',
  /** The runtime is stopping or stopped and takes no more work. */
  RUNTIME_STOPPED: 'RUNTIME_STOPPED',
  /** A JSON-RPC request's params did not match the method's schema. */
  RPC_INVALID_PARAMS: 'RPC_INVALID_PARAMS',
  /** No subscription with that id exists on this connection. */
  SUBSCRIPTION_NOT_FOUND: 'SUBSCRIPTION_NOT_FOUND',
  /** A connection asked for more event subscriptions than `VIGIL_MAX_SUBSCRIPTIONS` allows. */
  SUBSCRIPTION_LIMIT: 'SUBSCRIPTION_LIMIT',
  /** A JSON-RPC frame was not valid JSON. */
  RPC_PARSE_ERROR: 'RPC_PARSE_ERROR',
  /** A JSON-RPC frame was JSON but not a valid request object (or an empty or oversized batch). */
  RPC_INVALID_REQUEST: 'RPC_INVALID_REQUEST',
  /** A JSON-RPC request named a method the gateway does not have. */
  RPC_METHOD_NOT_FOUND: 'RPC_METHOD_NOT_FOUND',
  /** A connection sent more requests than `VIGIL_RPC_RATE_LIMIT` (with `VIGIL_RPC_RATE_BURST`) allows; not run. */
  RPC_RATE_LIMITED: 'RPC_RATE_LIMITED',
  /** A gateway request came without a valid token (HTTP 401). */
  GATEWAY_UNAUTHORIZED: 'GATEWAY_UNAUTHORIZED',
  /** The gateway answered 429: the client's address sent too many wrong tokens, and no token from it is checked for a while. */
  GATEWAY_THROTTLED: 'GATEWAY_THROTTLED',
  /** The token is valid but its scope does not allow the method or path (`data.scope` names the scope needed; HTTP 403); nothing was changed. */
  AUTH_FORBIDDEN: 'AUTH_FORBIDDEN',
  /** No token with that name exists (never created, or revoked). */
  TOKEN_NOT_FOUND: 'TOKEN_NOT_FOUND',
  /** A token with that name already exists: names are unique, revoke the old one first or choose another. */
  TOKEN_NAME_TAKEN: 'TOKEN_NAME_TAKEN',
  /** No more tokens may be created: the store holds its maximum; revoke some first. */
  TOKEN_LIMIT: 'TOKEN_LIMIT',
  /** The gateway's port is taken (another daemon or another program): the daemon exits before touching its data dir; pass --port. */
  GATEWAY_PORT_IN_USE: 'GATEWAY_PORT_IN_USE',
  /** A client command found no token: no --token, no VIGIL_TOKEN, and no token file in the data dir (no daemon has run with it). */
  CLIENT_NO_TOKEN: 'CLIENT_NO_TOKEN',
  /** A client's request got no answer within its timeout. */
  CLIENT_TIMEOUT: 'CLIENT_TIMEOUT',
  /** A client's connection closed (or could not be opened) before the answer came. */
  CLIENT_DISCONNECTED: 'CLIENT_DISCONNECTED',
  /** No tool with that name is registered (an MCP tool is named `mcp__SERVER__TOOL`). */
  TOOL_NOT_FOUND: 'TOOL_NOT_FOUND',
  /** The tool's MCP server is not connected now; it is being retried with back-off. */
  TOOL_UNAVAILABLE: 'TOOL_UNAVAILABLE',
  /** The tool's MCP server needs the operator to sign in (OAuth: `vigil tools login SERVER`); the call was not sent. */
  TOOL_NEEDS_AUTH: 'TOOL_NEEDS_AUTH',
  /** No MCP server with that name is configured (and enabled) in VIGIL_MCP_CONFIG. */
  MCP_SERVER_NOT_FOUND: 'MCP_SERVER_NOT_FOUND',
  /** A tool call's arguments do not match the tool's input schema; the call was not sent. */
  TOOL_INVALID_ARGS: 'TOOL_INVALID_ARGS',
  /** A tool call got no answer within its timeout (the entry's `timeoutMs`, or the caller's). */
  TOOL_TIMEOUT: 'TOOL_TIMEOUT',
  /** A tool call was aborted by its caller (preemption, stop). */
  TOOL_ABORTED: 'TOOL_ABORTED',
  /** A tool call failed on the way (the server answered with a protocol error or the connection broke); its outcome may be unknown. */
  TOOL_CALL_FAILED: 'TOOL_CALL_FAILED',
  /** No tool call with that id is known (never made, or pruned from the ToolCallLog). */
  TOOL_CALL_NOT_FOUND: 'TOOL_CALL_NOT_FOUND',
  /** The tool call is not waiting for approval (it needs none, or it was already approved or denied). */
  TOOL_CALL_NOT_PENDING: 'TOOL_CALL_NOT_PENDING',
  /** No think trace with that id is kept (never existed, or pruned by VIGIL_TRACE_MAX_COUNT / VIGIL_TRACE_MAX_AGE_DAYS). */
  THINK_NOT_FOUND: 'THINK_NOT_FOUND',
  /** No sub-agent task with that id is known (finished tasks are kept a while, then forgotten). */
  TASK_NOT_FOUND: 'TASK_NOT_FOUND',
  /** The task already finished (done, failed or cancelled): there is nothing left to cancel. */
  TASK_FINISHED: 'TASK_FINISHED',
  /** A sub-agent task ran past its deadline and was stopped (an in-flight model or tool call aborted). */
  TASK_DEADLINE_PASSED: 'TASK_DEADLINE_PASSED',
  /** A sub-agent task cut off after a call to a non-idempotent tool is not run again: it fails with this instead. */
  TASK_INTERRUPTED: 'TASK_INTERRUPTED',
  /** No schedule with that id exists (never did, or it was removed). */
  SCHEDULE_NOT_FOUND: 'SCHEDULE_NOT_FOUND',
  /** No more schedules may be added: the store holds its maximum, or the model has as many live schedules as it may set. */
  SCHEDULE_LIMIT: 'SCHEDULE_LIMIT',
  /** No webhook endpoint with that id exists (never did, or it was removed). */
  WEBHOOK_NOT_FOUND: 'WEBHOOK_NOT_FOUND',
  /** No more webhook endpoints may be added: the store holds its maximum (100). */
  WEBHOOK_LIMIT: 'WEBHOOK_LIMIT',
  /** No channel of that name is configured (VIGIL_CHANNELS_CONFIG). */
  CHANNEL_NOT_FOUND: 'CHANNEL_NOT_FOUND',
  /** A pairing code that no sender of that channel is waiting with (mistyped, already used, or expired after an hour). */
  CHANNEL_CODE_INVALID: 'CHANNEL_CODE_INVALID',
  /** That sender was never allowed on the channel by a pairing, or is allowed by the configuration file (edit it there). */
  CHANNEL_SENDER_NOT_FOUND: 'CHANNEL_SENDER_NOT_FOUND',
  /** A checkpoint export file is not valid (wrong kind, version or content). */
  CHECKPOINT_EXPORT_INVALID: 'CHECKPOINT_EXPORT_INVALID',
  /**
   * The embeddings endpoint (VIGIL_EMBEDDINGS_URL) failed, timed out or answered something that is not one vector per
   * input: semantic search waits and retries, and searches answer with the lexical ranking alone meanwhile.
   */
  EMBEDDINGS_FAILED: 'EMBEDDINGS_FAILED',
  /** Something that should not happen did; the message says what. */
  INTERNAL: 'INTERNAL',
} as const;

/** One of Vigil's error codes. */
export type VigilErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

/** JSON-RPC error code for each Vigil code (CONTRACT §4); unlisted codes map to -32603. */
export const JSON_RPC_CODE_BY_ERROR: Partial<Record<VigilErrorCode, number>> = {
  RPC_PARSE_ERROR: -32700,
  RPC_INVALID_REQUEST: -32600,
  RPC_METHOD_NOT_FOUND: -32601,
  RPC_INVALID_PARAMS: -32602,
  CHECKPOINT_EXPORT_INVALID: -32602,
  TOOL_INVALID_ARGS: -32602,
  TOOL_NOT_FOUND: -32004,
  MCP_SERVER_NOT_FOUND: -32004,
  CHECKPOINT_CONFIRMATION_REQUIRED: -32001,
  CHECKPOINT_NOT_FOUND: -32004,
  GOAL_NOT_FOUND: -32004,
  MEMORY_NOT_FOUND: -32004,
  SUBSCRIPTION_NOT_FOUND: -32004,
  THINK_NOT_FOUND: -32004,
  TASK_NOT_FOUND: -32004,
  SCHEDULE_NOT_FOUND: -32004,
  SCHEDULE_LIMIT: -32009,
  WEBHOOK_NOT_FOUND: -32004,
  WEBHOOK_LIMIT: -32009,
  CHANNEL_NOT_FOUND: -32004,
  CHANNEL_CODE_INVALID: -32602,
  CHANNEL_SENDER_NOT_FOUND: -32004,
  TASK_FINISHED: -32010,
  CHECKPOINT_CORRUPT: -32005,
  CHECKPOINT_FORMAT_UNSUPPORTED: -32005,
  CHECKPOINT_KEY_INVALID: -32005,
  CHECKPOINT_RESTORE_BUSY: -32009,
  SUBSCRIPTION_LIMIT: -32009,
  RPC_RATE_LIMITED: -32029,
  AUTH_FORBIDDEN: -32003,
  TOKEN_NOT_FOUND: -32004,
  TOKEN_NAME_TAKEN: -32602,
  TOKEN_LIMIT: -32009,
  TOOL_CALL_NOT_FOUND: -32004,
  TOOL_CALL_NOT_PENDING: -32010,
};

/** A JSON-RPC 2.0 error object. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}
