/** The `VIGIL_MCP_CONFIG` file (CONTRACT §8): MCP servers in the common `mcpServers` form, with Vigil's per-server tool policy. */
import { z } from 'zod';

/**
 * A server name as it appears inside `mcp__SERVER__TOOL`: letters, digits and `-`, with single `_` only between
 * them. No `__` and no `_` at either end, so the server part of a tool name is never ambiguous.
 */
export const MCP_SERVER_NAME = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;

/** The longest server name: tool names as the model sees them have to stay short (see `tool-naming.ts`). */
export const MCP_SERVER_NAME_MAX = 32;

const SERVER_NAME_ALLOWED = `expected a server name of 1 to ${MCP_SERVER_NAME_MAX} letters, digits, "-" or single "_" between them (it becomes part of mcp__SERVER__TOOL)`;

/** The longest a tool call may be given, in ms (a day): a tool that takes longer is a task, not a call. */
export const MCP_TIMEOUT_MAX_MS = 86_400_000;

const toolNames = (what: string) =>
  z.array(
    z.string({ error: `expected ${what} as tool names (strings)` }).min(1, { error: 'expected a non-empty tool name' }),
    {
      error: `expected ${what} as a list of tool names`,
    },
  );

const stringMap = (what: string) =>
  z.record(z.string(), z.string({ error: `expected every ${what} value to be a string` }), {
    error: `expected ${what} as an object of strings`,
  });

/** What every entry may say about its tools, whatever its transport. */
const ToolPolicyShape = {
  /** Only these of the server's tools are offered (default: all). */
  allowedTools: toolNames('allowedTools').optional(),
  /** `true`: every tool of the server needs an operator's approval; a list: only those. */
  requireApproval: z
    .union([z.literal(true), toolNames('requireApproval')], { error: 'expected true or a list of tool names' })
    .optional(),
  /** Tools that may be run again after a crash left a call's outcome unknown. */
  idempotentTools: toolNames('idempotentTools').optional(),
  /** The longest one call to this server's tools may take, in ms (default 60000). */
  timeoutMs: z
    .number({ error: `expected a whole number of milliseconds from 1 to ${MCP_TIMEOUT_MAX_MS}` })
    .int({ error: `expected a whole number of milliseconds from 1 to ${MCP_TIMEOUT_MAX_MS}` })
    .min(1, { error: `expected a whole number of milliseconds from 1 to ${MCP_TIMEOUT_MAX_MS}` })
    .max(MCP_TIMEOUT_MAX_MS, { error: `expected a whole number of milliseconds from 1 to ${MCP_TIMEOUT_MAX_MS}` })
    .optional(),
  /** A server kept in the file but not started (the field other MCP clients use for the same). */
  disabled: z.boolean({ error: 'expected true or false' }).optional(),
};

/** An object's own error: an unknown field is named with the fields that are allowed (a typo must not pass silently). */
const objectError = (what: string, shape: object) => (issue: z.core.$ZodRawIssue) =>
  issue.code === 'unrecognized_keys'
    ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')} (a ${what} has ${Object.keys(shape).join(', ')})`
    : `expected a ${what} object`;

const StdioShape = {
  type: z.literal('stdio', { error: 'expected "stdio" for a server with a command' }).optional(),
  command: z
    .string({ error: 'expected the command that starts the server (a string)' })
    .trim()
    .min(1, { error: 'expected a non-empty command' }),
  args: z
    .array(z.string({ error: 'expected every argument to be a string' }), {
      error: 'expected args as a list of strings',
    })
    .optional(),
  /** The server's whole environment besides the safe defaults (PATH, HOME, USER…): the daemon's own is never passed on. */
  env: stringMap('env').optional(),
  cwd: z
    .string({ error: 'expected a directory path' })
    .min(1, { error: 'expected a non-empty directory path' })
    .optional(),
  ...ToolPolicyShape,
};

/** A server Vigil starts as a child process and speaks to over its stdin and stdout. */
export const McpStdioServerSchema = z.strictObject(StdioShape, { error: objectError('stdio server', StdioShape) });

const OAuthShape = {
  /** A client id the operator registered with the authorization server beforehand (pre-registration). */
  clientId: z
    .string({ error: 'expected the pre-registered client id (a string)' })
    .min(1, { error: 'expected a non-empty client id' })
    .optional(),
  /** The secret of a pre-registered confidential client (only with clientId). */
  clientSecret: z
    .string({ error: 'expected the pre-registered client secret (a string)' })
    .min(1, { error: 'expected a non-empty client secret' })
    .optional(),
  /** The https URL of Vigil's Client ID Metadata Document, used where the authorization server supports them. */
  clientMetadataUrl: z
    .url({ protocol: /^https$/, error: 'expected the https URL of a Client ID Metadata Document' })
    .optional(),
  /** Scopes to ask for when neither the server's 401 nor its metadata names any (a list of scope names). */
  scopes: z
    .array(
      z
        .string({ error: 'expected every scope to be a string' })
        .regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, { error: 'expected a scope name without spaces or quotes' }),
      { error: 'expected scopes as a list of scope names' },
    )
    .optional(),
};

/** How Vigil identifies itself to a server's authorization server (MCP authorization); every field optional. */
export const McpOAuthSettingsSchema = z
  .strictObject(OAuthShape, { error: objectError('oauth', OAuthShape) })
  .refine((oauth) => oauth.clientSecret === undefined || oauth.clientId !== undefined, {
    error: 'clientSecret needs clientId (a pre-registered client has both)',
    path: ['clientSecret'],
  });

/** The `oauth` field of a Streamable HTTP entry. */
export type McpOAuthSettings = z.infer<typeof McpOAuthSettingsSchema>;

const HttpShape = {
  type: z
    .enum(['http', 'streamable-http'], {
      error: 'expected "http" for a server with a url (only Streamable HTTP is supported)',
    })
    .optional(),
  url: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL of a Streamable HTTP endpoint' }),
  headers: stringMap('headers').optional(),
  /** OAuth settings; without them a server that answers 401 with WWW-Authenticate is still signed in to (discovery, registration). */
  oauth: McpOAuthSettingsSchema.optional(),
  ...ToolPolicyShape,
};

/** A server Vigil connects to over Streamable HTTP. */
export const McpHttpServerSchema = z.strictObject(HttpShape, {
  error: objectError('Streamable HTTP server', HttpShape),
});

/** One entry of `mcpServers`: a command to start, or a URL to connect to. */
export const McpServerEntrySchema = z.unknown().transform((value, ctx): McpServerEntry => {
  // Picked by its key, not tried one after the other: an error then names the field that is wrong, not two union branches.
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  const hasCommand = isObject && 'command' in value;
  const hasUrl = isObject && 'url' in value;
  if (!isObject || hasCommand === hasUrl) {
    ctx.addIssue({
      code: 'custom',
      message: 'expected an object with either "command" (a stdio server) or "url" (a Streamable HTTP server)',
    });
    return z.NEVER;
  }
  const parsed = (hasCommand ? McpStdioServerSchema : McpHttpServerSchema).safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  return z.NEVER;
});

/** The stdio form of an entry. */
export type McpStdioServer = z.infer<typeof McpStdioServerSchema>;
/** The Streamable HTTP form of an entry. */
export type McpHttpServer = z.infer<typeof McpHttpServerSchema>;
/** One configured server. */
export type McpServerEntry = McpStdioServer | McpHttpServer;

/** True when `name` may name a server. */
export function isMcpServerName(name: string): boolean {
  return name.length <= MCP_SERVER_NAME_MAX && MCP_SERVER_NAME.test(name);
}

/** Configured servers by name. */
export const McpServersSchema = z
  .record(z.string(), McpServerEntrySchema, { error: 'expected "mcpServers" to be an object of servers by name' })
  .superRefine((servers, ctx) => {
    // Checked here rather than as the record's key schema, so the issue's path names the server and says why.
    for (const name of Object.keys(servers)) {
      if (!isMcpServerName(name)) ctx.addIssue({ code: 'custom', path: [name], message: SERVER_NAME_ALLOWED });
    }
  });

/** The whole file: `{"mcpServers": {NAME: entry}}`; other top-level keys are other programs' and are ignored. */
export const McpConfigFileSchema = z.object(
  { mcpServers: McpServersSchema },
  { error: 'expected a JSON object with "mcpServers"' },
);

/** The parsed file. */
export type McpConfigFile = z.infer<typeof McpConfigFileSchema>;

/** True for an entry that is started as a child process. */
export function isStdioServer(entry: McpServerEntry): entry is McpStdioServer {
  return 'command' in entry;
}
