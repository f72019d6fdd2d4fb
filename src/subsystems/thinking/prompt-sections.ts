/**
 * The prompt's sections with their token counts, for the think trace: the cached prefix (identity, standing
 * instructions, tool definitions) and each `<section>` of the state message. Tokens are `estimateTokens`, the same
 * conservative estimate the prompt's bound uses, so a trace shows what the bound saw. A token-bounded prompt builder
 * that knows its sections may hand them over instead; this reads them off the prompt as sent.
 */
import type { PromptSectionTrace } from '../../protocol/think-trace.schema.js';
import { estimateTokens } from './token-estimate.js';

/** One text block of the system prompt, in the order sent. */
export interface SystemPart {
  name: string;
  text: string;
}

// `<name>\n…\n</name>` blocks, as `stateMessage` renders them (names are lower-case identifiers).
const STATE_SECTION = /<([a-z_][a-z0-9_]*)>\n([\s\S]*?)\n<\/\1>/g;

/** The state message cut into its `<section>` blocks; text outside any block is its own section, `state`. */
export function stateSections(state: string): PromptSectionTrace[] {
  const sections: PromptSectionTrace[] = [];
  let rest = '';
  let last = 0;
  for (const match of state.matchAll(STATE_SECTION)) {
    rest += state.slice(last, match.index);
    last = match.index + match[0].length;
    sections.push({ name: match[1]!, tokens: estimateTokens(match[0]), text: match[0] });
  }
  rest += state.slice(last);
  if (rest.trim() !== '') sections.push({ name: 'state', tokens: estimateTokens(rest), text: rest });
  return sections;
}

/** The sections of a think's first request: system parts and tools (cached prefix), then the state message's sections. */
export function promptSections(prompt: {
  system: readonly SystemPart[];
  tools: readonly unknown[];
  state: string;
}): PromptSectionTrace[] {
  // The API's prefix order: tools, then system, then messages.
  const prefix: PromptSectionTrace[] = [];
  if (prompt.tools.length > 0) {
    const text = JSON.stringify(prompt.tools);
    prefix.push({ name: 'tools', tokens: estimateTokens(text), cached: true, text });
  }
  for (const part of prompt.system)
    prefix.push({ name: part.name, tokens: estimateTokens(part.text), cached: true, text: part.text });
  return [...prefix, ...stateSections(prompt.state)];
}

/** The system blocks as named parts: the last carries the standing instructions, any before it the identity. */
export function systemParts(blocks: readonly { text: string }[]): SystemPart[] {
  return blocks.map((block, i) => ({ name: i === blocks.length - 1 ? 'instructions' : 'identity', text: block.text }));
}

/** A content block of a request or response, as far as a transcript needs it. */
type Block = {
  type: string;
  text?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
};

/** One message's text for the trace's content: text blocks as they are, tool calls and results as one line each. */
export function messageText(content: string | readonly Block[]): string {
  if (typeof content === 'string') return content;
  return content
    .map((block) => {
      if (block.type === 'text') return block.text ?? '';
      if (block.type === 'tool_use') return `[tool_use ${block.name ?? '?'} ${JSON.stringify(block.input ?? null)}]`;
      if (block.type === 'tool_result') {
        const inner = typeof block.content === 'string' ? block.content : messageText((block.content ?? []) as Block[]);
        return `[tool_result ${block.tool_use_id ?? '?'}${block.is_error === true ? ' error' : ''}] ${inner}`;
      }
      return `[${block.type}]`;
    })
    .join('\n');
}
