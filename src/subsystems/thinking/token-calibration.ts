/**
 * Token counting for the prompt bound: the conservative byte estimate (`estimateTokens`), scaled up, never down, by
 * what the API reported for the requests it was used on. English runs well under the estimate, so the factor stays
 * 1; text that tokenizes worse than three bytes a token (some scripts, odd symbols) raises it for later prompts.
 */
import { estimateTokens } from './token-estimate.js';

/** How many of the latest observations the factor is taken from (old ones age out, a misfit does not stick forever). */
const WINDOW = 32;
/** Headroom over the worst ratio seen: the next prompt is never exactly as dense as the last. */
const MARGIN = 1.05;

/** A calibrated, conservative counter. */
export class TokenCalibration {
  private readonly ratios: number[] = [];
  private current = 1;

  /** The factor applied on top of the estimate: 1 or more. */
  get factor(): number {
    return this.current;
  }

  /** Tokens for `text` as it will be sent inside a JSON body (escapes counted), never below the plain estimate. */
  count(text: string): number {
    return this.scale(estimateTokens(JSON.stringify(text)));
  }

  /** Tokens for a value sent as JSON (a request body, tool definitions). */
  countJson(value: unknown): number {
    return this.scale(estimateTokens(JSON.stringify(value) ?? ''));
  }

  /** `estimated` raw-estimate tokens, calibrated. */
  scale(estimated: number): number {
    return Math.ceil(Math.max(0, estimated) * this.current);
  }

  /**
   * One request whose raw estimate was `estimated` was reported by the API as `reported` input tokens (input, cache
   * reads and cache writes together). Only a ratio above 1 can raise the factor; the estimate is the floor.
   */
  observe(estimated: number, reported: number): void {
    if (!(estimated > 0) || !(reported >= 0)) return;
    this.ratios.push(reported / estimated);
    if (this.ratios.length > WINDOW) this.ratios.shift();
    const worst = Math.max(...this.ratios);
    this.current = worst > 1 ? worst * MARGIN : 1;
  }
}
