/** One think call's Messages request under the context bound, and the prompt sections its trace shows. */
import type {
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import type { PromptSectionTrace } from '../../protocol/think-trace.schema.js';
import { VigilError } from '../../errors.js';
import { firstUserContent, summaryBlock } from './anthropic-prompt.js';
import type { requestTools } from './anthropic-tools.js';
import type { CacheTtl } from './cache-ttl.js';
import { buildBudgetedPrompt, type BudgetedPrompt } from './prompt-budget.js';
import { fitCalibrated, type TokenCalibration } from './token-calibration.js';
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
  /** The whole request body as the SDK sends it, for the bound's measure. */
  body(params: CallParams): MessageCreateParamsNonStreaming;
}

/** A request that fits, the prompt it was built from, and the counter that measured it (calibrated, or the plain estimate). */
export interface BoundedRequest {
  readonly params: CallParams;
  readonly built: BudgetedPrompt;
  readonly counter: TokenCalibration;
}

/**
 * The request for one call of the tool loop, under `bound` calibrated tokens as measured on the whole JSON body:
 * the state is rebuilt around what the loop appended, and measured again until it fits. Refused calibrated, it is
 * fitted by the plain estimate (`fitCalibrated`): no usage report can refuse a prompt the plain estimate fits.
 * Throws CONTEXT_TOO_SMALL when it cannot fit.
 */
export function boundedParams(
  input: ThinkInput,
  parts: BoundedRequestParts,
  calibration: TokenCalibration,
): BoundedRequest {
  const { prefix, toolDefs, tail, bound, cacheTtl } = parts;
  return fitCalibrated(calibration, (counter) => {
    const frame = {
      system: [...prefix],
      tools: [...toolDefs],
      messages: [{ role: 'user' as const, content: '' }, ...tail],
    };
    const fixedTokens = counter.countJson(parts.body(frame));
    let reservedTokens = 0;
    for (let attempt = 0; ; attempt++) {
      const built = buildBudgetedPrompt({ input, boundTokens: bound, fixedTokens, reservedTokens, counter });
      const system = built.summary === null ? [...prefix] : [...prefix, summaryBlock(built.summary, cacheTtl)];
      const first = { role: 'user' as const, content: firstUserContent(built.conversation, built.state, cacheTtl) };
      const params = { system, tools: [...toolDefs], messages: [first, ...tail] };
      const over = counter.countJson(parts.body(params)) - bound;
      if (over <= 0) return { params, built, counter };
      // The sections' sum and the body's own measure differ by a few tokens of framing: keep that much more room.
      if (attempt >= 4) {
        throw new VigilError(
          'CONTEXT_TOO_SMALL',
          `The prompt could not be fitted under VIGIL_CONTEXT_TOKENS=${bound}.`,
          {
            data: { variable: 'VIGIL_CONTEXT_TOKENS', boundTokens: bound },
          },
        );
      }
      reservedTokens += over;
    }
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
