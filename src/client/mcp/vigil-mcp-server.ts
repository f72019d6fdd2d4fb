/**
 * Vigil as an MCP server (CONTRACT §12): the tools an MCP host (Claude Desktop, Claude Code, Cursor…) uses to talk to
 * a long-lived Vigil agent. One implementation for every transport: it speaks to the daemon only through a
 * `VigilLink`, so what a tool can do is what the link's token may do over RPC. No approval or restore is exposed.
 */
import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { SendParamsSchema } from '../../protocol/agent.schema.js';
import {
  ConversationListParamsSchema,
  type ConversationEntry,
  type ConversationSearchHit,
} from '../../protocol/conversation.schema.js';
import { AddGoalParamsSchema, type GoalView } from '../../protocol/goals.schema.js';
import { DEFAULT_MCP_TOOLS, type McpToolName } from '../../protocol/mcp-tool-names.js';
import { MemorySearchParamsSchema } from '../../protocol/memory.schema.js';
import { interleaveByRank } from '../../shared/rank-interleave.js';
import {
  ABOUT,
  MCP_CHANNEL_SERVER_CAPABILITIES,
  MCP_CHANNEL_SERVER_INSTRUCTIONS,
  MCP_SERVER_INFO,
  MCP_SERVER_INSTRUCTIONS,
} from './mcp-server-identity.js';
import { errorResult, failureResult, textResult } from './mcp-tool-result.js';
import { sendAndWait } from './send-and-wait.js';
import type { SessionTurns } from './session-turns.js';
import { lookUpTurn } from './turn-lookup.js';
import type { OpenLink, VigilLink } from './vigil-link.js';

/** How to build the server: where the daemon is (for messages) and how to reach it. */
export interface VigilMcpServerOptions {
  openLink: OpenLink;
  /** The daemon's URL as errors should name it (a function when it can change: `vigil mcp` finds it again after a restart). */
  where: string | (() => string);
  /**
   * The tools hosts see (`VIGIL_MCP_SERVER_TOOLS`; default `DEFAULT_MCP_TOOLS`). The one place a host's tools are
   * narrowed, so a token's scope can narrow them further here.
   */
  tools?: readonly McpToolName[];
  /**
   * Given by `vigil mcp`, which pushes the agent's own messages to the host (`channel-push.ts`): the server declares
   * Claude Code's `claude/channel` capability and says in its instructions what those events are, and `send_message`
   * records the turns it opens here, whose replies the channel does not push.
   */
  channel?: { sessionTurns: SessionTurns };
}

/** `send_message`'s default wait for the reply (CONTRACT §12). */
export const DEFAULT_WAIT_MS = 60_000;
const MAX_WAIT_MS = 600_000;
const DEFAULT_CONVERSATION_LIMIT = 20;
const DEFAULT_SEARCH_LIMIT = 10;

/** The MCP server with Vigil's tools, and the one way to narrow them once connected. */
export type VigilMcpServer = McpServer & {
  /**
   * Offers only `tools` from now on (those already withdrawn stay withdrawn): `vigil mcp` learns its token's scope
   * after it has answered `initialize`, and holds the host's later requests until it has narrowed the list.
   */
  offerOnly(tools: readonly McpToolName[]): void;
};

/** The MCP server with Vigil's tools over `openLink`; connect it to a transport. */
export function createVigilMcpServer(options: VigilMcpServerOptions): VigilMcpServer {
  const channel = options.channel;
  const server = new McpServer(
    MCP_SERVER_INFO,
    channel === undefined
      ? { instructions: MCP_SERVER_INSTRUCTIONS }
      : { instructions: MCP_CHANNEL_SERVER_INSTRUCTIONS, capabilities: MCP_CHANNEL_SERVER_CAPABILITIES },
  );
  // Every tool runs on a link; a failure (daemon down, token refused, RPC error) is a tool result, never a crash.
  const run = async (body: (link: VigilLink) => Promise<CallToolResult>): Promise<CallToolResult> => {
    try {
      return await body(await options.openLink());
    } catch (err) {
      return failureResult(err, typeof options.where === 'string' ? options.where : options.where());
    }
  };
  const clientName = (): string => server.server.getClientVersion()?.name ?? 'client';

  const registered: Record<McpToolName, RegisteredTool> = {
    send_message: server.registerTool(
      'send_message',
      {
        title: 'Send a message to the Vigil agent',
        description: `${ABOUT} Sends it a message, as a user would, and returns its reply text. The agent answers from its own memory and state (what it did overnight, what it found, what it plans). If the reply takes longer than waitMs, returns the turnId with status "pending": call get_reply with that turnId later.`,
        inputSchema: {
          text: SendParamsSchema.shape.text.describe('The message to the agent, in plain language.'),
          waitMs: z
            .number()
            .int()
            .min(0)
            .max(MAX_WAIT_MS)
            .optional()
            .describe(`How long to wait for the reply, in milliseconds (default ${DEFAULT_WAIT_MS}).`),
        },
      },
      ({ text, waitMs }) =>
        run(async (link) => {
          const from = `mcp:${clientName()}`.slice(0, 200);
          const sent = channel?.sessionTurns.begin();
          // Ended either way, also when the send never got as far as agent.send: the channel waits on sends in flight.
          const outcome = await sendAndWait(link, text, from, waitMs ?? DEFAULT_WAIT_MS, sent).finally(() =>
            sent?.(undefined),
          );
          switch (outcome.kind) {
            case 'answered':
              return textResult(outcome.text);
            case 'unanswered':
              return errorResult(
                `The agent ended turn ${outcome.turnId} without an answer (${outcome.code}): ${outcome.reason}`,
              );
            case 'asleep':
              return errorResult(
                `The agent is asleep: it has spent its daily budget (budget state "${outcome.budgetState}") and wakes at ${outcome.wakeAt} (or when the user tops the budget up). Your message is kept as turn ${outcome.turnId} and will be answered then: call get_reply with that turnId.`,
              );
            case 'pending':
              return textResult(
                `pending: no reply yet within ${waitMs ?? DEFAULT_WAIT_MS} ms. turnId: ${outcome.turnId} (call get_reply with it later).`,
              );
          }
        }),
    ),

    get_reply: server.registerTool(
      'get_reply',
      {
        title: "Get the Vigil agent's reply to an earlier message",
        description:
          'Returns the Vigil agent\'s reply to a message sent earlier with send_message that was still "pending", by its turnId; says "pending" again if the agent has not answered yet.',
        inputSchema: { turnId: z.string().min(1).max(200).describe('The turnId send_message returned.') },
      },
      ({ turnId }) =>
        run(async (link) => {
          const turn = await lookUpTurn(link, turnId);
          switch (turn.kind) {
            case 'answered':
              return textResult(turn.text);
            case 'unanswered':
              return errorResult(`The agent ended turn ${turnId} without an answer (${turn.code}): ${turn.reason}`);
            case 'pending':
              return textResult(`pending: the agent has not answered turn ${turnId} yet.`);
            case 'unknown':
              return errorResult(
                `Unknown turn ${JSON.stringify(turnId)}: no message with that turnId is in the agent's recent conversation.`,
              );
          }
        }),
    ),

    get_status: server.registerTool(
      'get_status',
      {
        title: 'Vigil agent status',
        description: `${ABOUT} Returns its status in one summary: heartbeat (awake or dormant, beats, what it is doing, messages waiting), today's budget (spent, cap, state, when it resets) and its goals.`,
      },
      () =>
        run(async (link) => {
          const [heartbeat, budget, goals] = await Promise.all([
            link.call('heartbeat.status'),
            link.call('budget.status'),
            link.call('goals.list'),
          ]);
          const active = goals.filter((goal) => goal.status === 'active');
          const summary = {
            heartbeat,
            budget,
            goals: { total: goals.length, active: active.length, top: active.slice(0, 5).map((goal) => goal.title) },
          };
          return textResult(JSON.stringify(summary, null, 2));
        }),
    ),

    get_conversation: server.registerTool(
      'get_conversation',
      {
        title: 'Read the conversation with the Vigil agent',
        description:
          'Returns the newest messages between users (every channel: CLI, dashboard, MCP hosts) and the Vigil agent, oldest first, one per line with time, sender and turnId.',
        inputSchema: {
          limit: ConversationListParamsSchema.shape.limit.describe(
            `How many of the newest messages (default ${DEFAULT_CONVERSATION_LIMIT}).`,
          ),
        },
      },
      ({ limit }) =>
        run(async (link) => {
          const entries = await link.call('conversation.list', { limit: limit ?? DEFAULT_CONVERSATION_LIMIT });
          return textResult(entries.length === 0 ? 'The conversation is empty.' : entries.map(formatEntry).join('\n'));
        }),
    ),

    search_memory: server.registerTool(
      'search_memory',
      {
        title: "Search the Vigil agent's long-term memory and conversation",
        description:
          'Searches the facts the Vigil agent has kept in its long-term memory (from conversations, its own work and tools) and every message of its conversation, best match first, by keywords; each result says whether it is a memory or a message, and when it was kept or said.',
        inputSchema: {
          query: MemorySearchParamsSchema.shape.query.describe('Keywords to look for.'),
          limit: MemorySearchParamsSchema.shape.limit.describe('Most results wanted (default 10).'),
        },
      },
      ({ query, limit }) =>
        run(async (link) => {
          const wanted = limit ?? DEFAULT_SEARCH_LIMIT;
          const [memories, messages] = await Promise.all([
            link.call('memory.search', { query, limit: wanted }),
            link.call('conversation.search', { query, limit: wanted }),
          ]);
          const lines = interleaveByRank(
            memories.map(
              (hit) =>
                `- [memory] ${JSON.stringify(hit.content)} (id ${hit.id}, from ${hit.source}, kept ${hit.createdAt}, score ${hit.score.toFixed(2)})`,
            ),
            messages.map((hit) => `- [conversation] ${JSON.stringify(hit.text)} (${messageOrigin(hit)})`),
            wanted,
          );
          if (lines.length === 0)
            return textResult(`Nothing in long-term memory or the conversation matches ${JSON.stringify(query)}.`);
          return textResult(lines.join('\n'));
        }),
    ),

    list_goals: server.registerTool(
      'list_goals',
      {
        title: "List the Vigil agent's goals",
        description:
          'Lists the goals the Vigil agent works on by itself between conversations: title, priority, progress, status and due time, active first.',
      },
      () =>
        run(async (link) => {
          const goals = await link.call('goals.list');
          return textResult(goals.length === 0 ? 'The agent has no goals.' : goals.map(formatGoal).join('\n'));
        }),
    ),

    add_goal: server.registerTool(
      'add_goal',
      {
        title: 'Give the Vigil agent a goal',
        description:
          'Adds a goal the Vigil agent will work on by itself between conversations (higher priority first). Returns the new goal.',
        inputSchema: {
          title: AddGoalParamsSchema.shape.title.describe('What the agent should achieve, in one sentence.'),
          priority: AddGoalParamsSchema.shape.priority.describe(
            'How important it is, 1 to 10, higher first (default 5).',
          ),
        },
      },
      ({ title, priority }) =>
        run(async (link) => {
          const goal = await link.call('goals.add', { title, ...(priority === undefined ? {} : { priority }) });
          return textResult(`Added: ${formatGoal(goal)}`);
        }),
    ),
  };
  const offered = new Set<string>(Object.keys(registered));
  const offerOnly = (tools: readonly McpToolName[]): void => {
    const keep = new Set<string>(tools);
    for (const [name, tool] of Object.entries(registered)) {
      if (keep.has(name) || !offered.has(name)) continue;
      offered.delete(name);
      tool.remove();
    }
  };
  // Registered all, then the ones not exposed removed (before any host connects): a tool not listed does not exist.
  offerOnly(options.tools ?? DEFAULT_MCP_TOOLS);
  return Object.assign(server, { offerOnly });
}

function formatEntry(entry: ConversationEntry): string {
  const who = entry.role === 'user' ? `user${entry.from === undefined ? '' : ` (${entry.from})`}` : 'agent';
  const ending = entry.unanswered === undefined ? '' : ` [unanswered: ${entry.unanswered.code}]`;
  return `[${entry.at}] ${who}${entry.turnId === undefined ? '' : ` turn ${entry.turnId}`}${ending}: ${entry.text}`;
}

function formatGoal(goal: GoalView): string {
  const due = goal.dueAt === undefined ? '' : `, due ${goal.dueAt}`;
  return `- ${goal.title} (id ${goal.id}, ${goal.status}, priority ${goal.priority}, ${Math.round(goal.progress * 100)}% done${due})`;
}

/** Where a message found by `search_memory` comes from: its seq, who said it and when. */
function messageOrigin(hit: ConversationSearchHit): string {
  const who = hit.role === 'user' ? `user${hit.from === undefined ? '' : ` ${hit.from}`}` : 'agent';
  return `seq ${hit.seq}, ${who}, said ${hit.at}, score ${hit.score.toFixed(2)}`;
}
