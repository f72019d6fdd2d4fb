/**
 * Token counting for the prompt bound: the conservative byte estimate (`estimateTokens`), scaled up, never down, by
 * what the API reported for the requests it was used on. English runs well under the estimate, so the factor stays
 * 1; text that tokenizes worse than three bytes a token (some scripts, odd symbols) raises it for later prompts.
 *
 * A report can raise the factor only as far as a tokenizer can go, and only for a while: a proxy or a provider that
 * counts differently (or a test scripting a million tokens) must not shrink every later prompt, let alone refuse it.
 */
import { VigilError } from '../../errors.js';
import { estimateTokens } from './token-estimate.js';

/**
 * The most tokens a truthful count can hold per estimated token. Each token of a byte-level BPE tokenizer (the one
 * Anthropic published for its earlier models, GPT's, Llama 3's) covers at least one byte of the text, and a
 * byte-fallback tokenizer spells an unknown character out one byte a token at worst: at most one token per byte sent,
 * while the estimate counts one per three bytes of the request's JSON, whose escapes and framing only add bytes to
 * the text the API tokenizes.
 */
export const MAX_FACTOR = 3;
/**
 * What the API may count beyond the bytes it was sent: the tool-use system prompt it adds (a few hundred tokens)
 * and the turn markers of its template. A report past `MAX_FACTOR` times the estimate plus this is implausible.
 */
export const API_OVERHEAD_TOKENS = 1024;
/** An observation counts for this many thinks, the one it was made in included, and for at most MAX_AGE_MS. */
export const WINDOW_THINKS = 32;
/** An hour: a misfit ages out even while no call is made (every think refused locally, or none at all). */
export const MAX_AGE_MS = 60 * 60_000;
/** The latest calls the factor is taken from, at most (within the thinks and the time above). */
export const WINDOW_CALLS = 32;
/** Headroom over the worst ratio seen: the next prompt is never exactly as dense as the last. */
const MARGIN = 1.05;

/** What `observe` made of a report: counted toward the factor, implausible (ignored), or not a usable pair. */
export type UsageVerdict = 'counted' | 'implausible' | 'unusable';

interface Observation {
  ratio: number;
  think: number;
  at: number;
}

/** A calibrated, conservative counter. */
export class TokenCalibration {
  private observations: Observation[] = [];
  private current = 1;
  private think = 0;
  private now = 0;

  /** The factor applied on top of the estimate: from 1 to MAX_FACTOR. */
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
   * A think starts at `now` (epoch ms): observations older than WINDOW_THINKS thinks or MAX_AGE_MS no longer count.
   * Called before the think's prompt is built, so a think refused before any call still ages the factor.
   */
  beginThink(now: number): void {
    this.think += 1;
    this.now = now;
    this.observations = this.observations.filter(
      (o) => o.think > this.think - WINDOW_THINKS && o.at > now - MAX_AGE_MS,
    );
    this.recompute();
  }

  /**
   * One request whose raw estimate was `estimated` was reported by the API as `reported` input tokens (input, cache
   * reads and cache writes together). Only a ratio above 1 can raise the factor; the estimate is the floor. A report
   * no tokenizer could give for that request is not counted: the caller says so (`think.usage_implausible`).
   */
  observe(estimated: number, reported: number): UsageVerdict {
    if (!(estimated > 0) || !(reported >= 0) || !Number.isFinite(reported)) return 'unusable';
    if (!isPlausible(estimated, reported)) return 'implausible';
    this.observations.push({ ratio: Math.min(MAX_FACTOR, reported / estimated), think: this.think, at: this.now });
    if (this.observations.length > WINDOW_CALLS) this.observations.shift();
    this.recompute();
    return 'counted';
  }

  private recompute(): void {
    const worst = Math.max(1, ...this.observations.map((o) => o.ratio));
    this.current = worst > 1 ? Math.min(MAX_FACTOR, worst * MARGIN) : 1;
  }
}

/** Whether `reported` input tokens are within what a tokenizer can make of a request estimated at `estimated`. */
function isPlausible(estimated: number, reported: number): boolean {
  return reported <= MAX_FACTOR * estimated + API_OVERHEAD_TOKENS;
}

/**
 * Fits a prompt with `fit` under the calibrated count, and, if the local bound refuses it there, under the plain
 * estimate: calibration may shrink a prompt, never refuse one whose plain estimate fits. Refused by both, the
 * plain attempt's CONTEXT_TOO_SMALL is thrown.
 */
export function fitCalibrated<T>(calibration: TokenCalibration, fit: (counter: TokenCalibration) => T): T {
  try {
    return fit(calibration);
  } catch (err) {
    if (!(err instanceof VigilError) || err.code !== 'CONTEXT_TOO_SMALL' || calibration.factor === 1) throw err;
    return fit(new TokenCalibration());
  }
}
