/**
 * What Vigil's MCP server says about itself when a host initialises: kept apart from the MCP SDK, so `vigil mcp` can
 * give that answer before it loads the SDK (`early-initialize.ts`). A test holds these equal to the SDK server's own.
 */
import { VIGIL_VERSION } from '../../shared/version.js';

/** Vigil in one sentence, for a model that has never heard of it (the instructions and every tool description). */
export const ABOUT =
  "Vigil is a long-running autonomous AI agent (a daemon on the user's machine or server) with its own goals, working memory, long-term memory and a daily spending budget; it keeps working between conversations.";

/** The server's name, title and version. */
export const MCP_SERVER_INFO = { name: 'vigil', title: 'Vigil agent', version: VIGIL_VERSION };

/** The instructions a host gives its model about this server. */
export const MCP_SERVER_INSTRUCTIONS = `${ABOUT} Use these tools to talk to that agent, read what it said and remembers, and see or add its goals.`;

/** What the server declares it can do: tools, whose list may change (a token's scope narrows it). */
export const MCP_SERVER_CAPABILITIES = { tools: { listChanged: true } };

/** The protocol revisions the MCP SDK in use speaks, newest first: its `SUPPORTED_PROTOCOL_VERSIONS`. */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = [
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
];
