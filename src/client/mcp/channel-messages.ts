/**
 * Which journal events `vigil mcp` pushes into a Claude Code session as `notifications/claude/channel`, and the
 * message each becomes. Pure: the feed, the cursor and the host are `channel-push.ts`'s.
 *
 * Pushed: the agent's own messages, which no tool call of the host is waiting for:
 * - `agent.reply` and `agent.unanswered` of a turn this session did not ask for (a schedule's run — `schedule.fired`
 *   opens the turn, this is its result —, someone on another channel, the report after a sub-agent task);
 * - `swarm.task_finished` (a sub-agent task done, failed or cancelled) and `swarm.task_interrupted` with outcome
 *   `failed` (a crash cut it off and it will not run again; a `requeued` one runs again and ends later);
 * - `tool.approval_requested`: a tool call waiting for an operator.
 * Read, not pushed: `agent.message`, for who opened each turn (`meta.from` of its reply).
 */
import type { VigilEvent, VigilEventOf } from '../../protocol/events.schema.js';

/** The event types the channel's feed asks for (`events.subscribe {types}`). */
export const CHANNEL_FEED_TYPES = [
  'agent.message',
  'agent.reply',
  'agent.unanswered',
  'swarm.task_finished',
  'swarm.task_interrupted',
  'tool.approval_requested',
] as const;

/** The params of one `notifications/claude/channel`: meta keys are identifiers, every value a string. */
export interface ChannelMessage {
  content: string;
  meta: Record<string, string>;
}

/** How long a tool call's arguments may be in an approval message before they are cut (the model needs the gist). */
const MAX_ARGS_CHARS = 2000;

/** The message `event` becomes; undefined for one that is not pushed. `from`: who opened the event's turn, if known. */
export function channelMessage(event: VigilEvent, from?: string): ChannelMessage | undefined {
  const meta = (fields: Record<string, string | undefined>): Record<string, string> => {
    const all: Record<string, string> = { event: event.type, seq: String(event.seq), at: event.at };
    for (const [key, value] of Object.entries(fields)) if (value !== undefined) all[key] = value;
    return all;
  };
  switch (event.type) {
    case 'agent.reply':
      return { content: event.text, meta: meta({ turn_id: event.turnId, from }) };
    case 'agent.unanswered':
      return {
        content: `The agent ended turn ${event.turnId} without an answer (${event.code}): ${event.reason}`,
        meta: meta({ turn_id: event.turnId, from, code: event.code }),
      };
    case 'swarm.task_finished':
      return {
        content: `Sub-agent task ${event.taskId} ended: ${event.status}. The agent reads its result in its next think.`,
        meta: meta({ task_id: event.taskId, status: event.status }),
      };
    case 'swarm.task_interrupted':
      if (event.outcome !== 'failed') return undefined;
      return {
        content: `Sub-agent task ${event.taskId} was cut off by a crash after calling a tool that may not be repeated, so it failed and will not run again.`,
        meta: meta({ task_id: event.taskId, turn_id: event.turnId, status: 'failed' }),
      };
    case 'tool.approval_requested':
      return {
        content:
          `The agent's call to ${event.name} (call ${event.callId}) waits for an operator: ` +
          `\`vigil tools approve ${event.callId}\` or \`vigil tools deny ${event.callId}\`. Arguments: ${argumentsText(event)}`,
        meta: meta({ call_id: event.callId, tool: event.name, turn_id: event.turnId, task_id: event.taskId }),
      };
    default:
      return undefined;
  }
}

function argumentsText(event: VigilEventOf<'tool.approval_requested'>): string {
  const text = JSON.stringify(event.args) ?? 'none';
  return text.length <= MAX_ARGS_CHARS ? text : `${text.slice(0, MAX_ARGS_CHARS)}… (cut)`;
}
