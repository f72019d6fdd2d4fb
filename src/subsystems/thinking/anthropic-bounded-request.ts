/** One think call's Messages request under the context bound, and the prompt sections its trace shows. */
import type {
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import type { PromptSectionTrace } from '../../protocol/think-trace.schema.js';
import { firstUserContent, summaryBlock } from './anthropic-prompt.js';
import type { requestTools } from './anthropic-tools.js';
import type { CacheTtl } from './cache-ttl.js';
import { fitRequest, type FittedRequest } from './bounded-prompt.js';
import type { TokenCalibration } from './token-calibration.js';
import type { ThinkInput } from './thinker.schema.js';

/** A request without the model and its output cap, which every call shares. */
export type CallParams = Omit<MessageCreateParamsNonStreaming, 'model' | 'max_tokens'>;

/** What a bounded request is built from besides the input: the cached prefix, the loop's tail and the bound. */
export interface BoundedRequestParts {
  /** The cached system blocks (identity, instructions). */
  readonly prefix: readonly TextBlockParam[];
  readonly toolDefs: ReturnType<typeof requestTools>;
  /** What the tool loop appended after the first user message. */
  readonly tail: readonly MessageParam[];
  /** VIGIL_CONTEXT_TOKENS. */
  readonly bound: number;
  readonly cacheTtl: CacheTtl;
  /** The whole request body as the SDK sends it (streamed, the larger), for the bound's measure. */
  body(params: CallParams): object;
}

/** A request that fits, the prompt it was built from, and the counter that measured it. */
export type BoundedRequest = FittedRequest<CallParams>;

/**
 * The request for one call of the tool loop under `bound` (bounded-prompt.ts): the cached prefix, the tools, the
 * first user message built around what the loop appended. Throws CONTEXT_TOO_SMALL when it cannot fit.
 */
export function boundedParams(
  input: ThinkInput,
  parts: BoundedRequestParts,
  calibration: TokenCalibration,
): BoundedRequest {
  const { prefix, toolDefs, tail, bound, cacheTtl } = parts;
  return fitRequest<CallParams>(input, bound, calibration, {
    frame: () => ({
      system: [...prefix],
      tools: [...toolDefs],
      messages: [{ role: 'user' as const, content: '' }, ...tail],
    }),
    assemble: (built) => {
      const system = built.summary === null ? [...prefix] : [...prefix, summaryBlock(built.summary, cacheTtl)];
      const first = { role: 'user' as const, content: firstUserContent(built.conversation, built.state, cacheTtl) };
      return { system, tools: [...toolDefs], messages: [first, ...tail] };
    },
    body: (params) => parts.body(params),
  });
}

/** The prompt's sections for the think trace: the cached prefix's parts, then the builder's. */
export function sectionTrace(parts: BoundedRequestParts, request: BoundedRequest): PromptSectionTrace[] {
  const { prefix, toolDefs } = parts;
  const { built, counter } = request;
  const named = prefix.length === 2 ? ['identity', 'instructions'] : ['instructions'];
  return [
    // With the text of each (the tracer keeps it only under VIGIL_TRACE_CONTENT=true).
    { name: 'tools', tokens: counter.countJson(toolDefs), cached: true, text: JSON.stringify(toolDefs) },
    ...prefix.map((block, i) => ({
      name: named[i] ?? 'instructions',
      tokens: counter.count(block.text),
      cached: true,
      text: block.text,
    })),
    ...built.sections,
  ];
}
