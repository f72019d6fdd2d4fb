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

/** The notification method of Claude Code's channels: `{content, meta}` shown to the model as a `<channel>` event. */
export const CLAUDE_CHANNEL_METHOD = 'notifications/claude/channel';

/**
 * What `vigil mcp` declares: the tools, and Claude Code's `claude/channel` (an experimental capability), because it
 * pushes the agent's own messages into the host's session (`channel-push.ts`). Only `vigil mcp` declares it: the
 * gateway's `/mcp` route pushes nothing.
 */
export const MCP_CHANNEL_SERVER_CAPABILITIES = {
  ...MCP_SERVER_CAPABILITIES,
  experimental: { 'claude/channel': {} },
};

/** `vigil mcp`'s instructions: the tools', and what its `<channel>` events are and how to answer one. */
export const MCP_CHANNEL_SERVER_INSTRUCTIONS =
  `${MCP_SERVER_INSTRUCTIONS} Events from this server arrive as <channel> tags: messages the agent sent on its own, ` +
  'not answers to your send_message calls (those come back as the tool result). meta.event says what happened: ' +
  '"agent.reply" is a message from the agent (a scheduled run\'s result, a reply to someone on another channel, a report ' +
  'after a sub-agent task; meta.from names who or what started the turn when known); "agent.unanswered" a turn it ended ' +
  'without an answer; "swarm.task_finished" or "swarm.task_interrupted" a sub-agent task that ended; ' +
  '"tool.approval_requested" a tool call waiting for the operator (they decide with `vigil tools approve CALL_ID` or ' +
  '`vigil tools deny CALL_ID`; you cannot). To answer the agent, call the send_message tool with your reply: it reaches ' +
  'the agent as a new message.';

/** The protocol revisions the MCP SDK in use speaks, newest first: its `SUPPORTED_PROTOCOL_VERSIONS`. */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = [
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
];
