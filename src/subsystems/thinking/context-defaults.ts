/** The prompt bound's default, shared by the configuration and a thinker used as a library without it. */

/**
 * `VIGIL_CONTEXT_TOKENS` by default: far inside a Claude model's 200k window (room for the output and the tool loop),
 * and small enough that an uncached think costs about five cents at Sonnet's $3 per million input tokens.
 */
export const DEFAULT_CONTEXT_TOKENS = 16_000;
