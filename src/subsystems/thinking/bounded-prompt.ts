/**
 * One model call's request under the context bound, whatever the provider's request shape: the state is built
 * around the request's fixed parts and what the tool loop appended, and measured on the whole JSON body until it fits.
 */
import { VigilError } from '../../errors.js';
import { buildBudgetedPrompt, type BudgetedPrompt } from './prompt-budget.js';
import { fitCalibrated, type TokenCalibration } from './token-calibration.js';
import type { ThinkInput } from './thinker.schema.js';

/** How a provider's request is made around a prompt, and what of it is measured. */
export interface RequestShape<P> {
  /** The request with every fixed part (tools, system, the loop's tail) and an empty state message. */
  frame(): P;
  /** The request around a built prompt. */
  assemble(built: BudgetedPrompt): P;
  /** The whole body as the SDK sends it (model and output cap included), for the bound's measure. */
  body(params: P): unknown;
}

/** A request that fits, the prompt it was built from, and the counter that measured it (calibrated, or the plain estimate). */
export interface FittedRequest<P> {
  readonly params: P;
  readonly built: BudgetedPrompt;
  readonly counter: TokenCalibration;
}

/**
 * The request under `bound` calibrated tokens as measured on the whole JSON body: the state is rebuilt and measured
 * again until it fits. Refused calibrated, it is fitted by the plain estimate (`fitCalibrated`): no usage report
 * can refuse a prompt the plain estimate fits. Throws CONTEXT_TOO_SMALL when it cannot fit.
 */
export function fitRequest<P>(
  input: ThinkInput,
  bound: number,
  calibration: TokenCalibration,
  shape: RequestShape<P>,
): FittedRequest<P> {
  return fitCalibrated(calibration, (counter) => {
    const fixedTokens = counter.countJson(shape.body(shape.frame()));
    let reservedTokens = 0;
    for (let attempt = 0; ; attempt++) {
      const built = buildBudgetedPrompt({ input, boundTokens: bound, fixedTokens, reservedTokens, counter });
      const params = shape.assemble(built);
      const over = counter.countJson(shape.body(params)) - bound;
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
