/** The Anthropic thinker's prompt: a stable cached prefix (identity, standing instructions) and the volatile state after it. */
import type { TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { cacheBreakpoint, type CacheTtl } from './cache-ttl.js';
import { buildBudgetedPrompt } from './prompt-budget.js';
import type { ThinkInput } from './thinker.schema.js';
import { TokenCalibration } from './token-calibration.js';
import {
  STANDING_INSTRUCTIONS,
  SUB_AGENT_INSTRUCTIONS,
  SUB_AGENT_WITH_TOOLS_INSTRUCTIONS,
} from './think-instructions.js';

export { taskMessage } from './think-instructions.js';

const CACHE_BREAKPOINT = { type: 'ephemeral' as const };

/** The system blocks for a think: identity, then standing instructions carrying the cache breakpoint. */
export function thinkSystem(identity: string): TextBlockParam[] {
  return withIdentity(identity, STANDING_INSTRUCTIONS);
}

/**
 * The system blocks for a sub-agent task: the think's cached blocks, byte for byte, then the sub-agent instruction
 * after the breakpoint. Alone, a task's prefix (about 350 tokens) is under every model's minimum and never cached;
 * sharing the think's prefix (sent with the same tools) reads what the agent's thinks keep warm.
 */
export function taskSystem(identity: string, withTools = false): TextBlockParam[] {
  return [
    ...thinkSystem(identity),
    { type: 'text', text: withTools ? SUB_AGENT_WITH_TOOLS_INSTRUCTIONS : SUB_AGENT_INSTRUCTIONS },
  ];
}

function withIdentity(identity: string, instructions: string): TextBlockParam[] {
  // The API rejects empty text blocks, so an empty identity is left out rather than sent blank.
  const head: TextBlockParam[] = identity.trim() === '' ? [] : [{ type: 'text', text: identity }];
  return [...head, { type: 'text', text: instructions, cache_control: CACHE_BREAKPOINT }];
}

/** The rolling summary as a system block after the standing instructions, with its own breakpoint: it changes rarely. */
export function summaryBlock(text: string, ttl: CacheTtl = '5m'): TextBlockParam {
  return { type: 'text', text, cache_control: cacheBreakpoint(ttl) };
}

/**
 * The first user message: the recent conversation's blocks, the newest carrying the request's fourth (and last)
 * breakpoint, then the state. The next think repeats these blocks and adds its new entries after them, so the API
 * finds this breakpoint's prefix within its 20-block look-back and reads the conversation from the cache.
 */
export function firstUserContent(
  conversation: readonly string[],
  state: string,
  ttl: CacheTtl = '5m',
): string | TextBlockParam[] {
  if (conversation.length === 0) return state;
  const last = conversation.length - 1;
  return [
    ...conversation.map((text, i): TextBlockParam =>
      i === last ? { type: 'text', text, cache_control: cacheBreakpoint(ttl) } : { type: 'text', text },
    ),
    { type: 'text', text: state },
  ];
}

/** The first user message as one text, unbounded: everything volatile, in a fixed order so equal inputs give equal bytes. */
export function stateMessage(input: ThinkInput): string {
  const built = buildBudgetedPrompt({
    input,
    boundTokens: Number.POSITIVE_INFINITY,
    fixedTokens: 0,
    counter: new TokenCalibration(),
  });
  return built.conversation.join('') + built.state;
}
