/**
 * What one think records of itself for its trace (CONTRACT §10): each Messages API call (timing, usage, its own cost,
 * stop reason, tries, error) and each tool call (name, timing, ok, result size). The thinker fills it as it goes; the
 * trace store turns it into a stored `ThinkTrace`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ModelCallTrace, ToolCallTrace } from '../../protocol/think-trace.schema.js';
import { requestCostPicoUsd, type ModelPricing } from './pricing.js';
import type { ExternalToolResult, ThinkTools } from './think-tools.js';
import type { TokenUsage } from './thinker.schema.js';

const PICO_PER_USD = 1e12;

/** One call's tries, counted by the fetch each HTTP attempt goes through (the SDK retries inside one `create`). */
interface AttemptCount {
  attempts: number;
}

const attemptScope = new AsyncLocalStorage<AttemptCount>();

/**
 * `fetch` that counts the HTTP attempts of the call it runs under (`countAttempts`). The SDK's retries go through
 * the client's `fetch` on the same async path, so the count is exact for clients built with it.
 */
export function attemptCountingFetch(inner: typeof fetch): typeof fetch {
  return (input, init) => {
    const scope = attemptScope.getStore();
    if (scope !== undefined) scope.attempts += 1;
    return inner(input, init);
  };
}

/** Runs `call` counting its HTTP attempts; `tries()` is read after it settles (0 when the fetch was not ours). */
export function countAttempts<T>(call: () => Promise<T>): { result: Promise<T>; tries: () => number } {
  const scope: AttemptCount = { attempts: 0 };
  return { result: attemptScope.run(scope, call), tries: () => scope.attempts };
}

/** A call's cost in USD, unrounded: the calls of a think sum exactly to its total (the ledger rounds up once, to micro-dollars). */
export function callCostUsd(usage: TokenUsage, price: ModelPricing): number {
  return Number(requestCostPicoUsd(usage, price)) / PICO_PER_USD;
}

/** How a failed model call is named in its trace: the SDK error's class and HTTP status when it had one. */
function errorType(err: unknown): string {
  const status = (err as { status?: unknown } | null)?.status;
  const name = err instanceof Error ? err.name : typeof err;
  return typeof status === 'number' ? `${name} ${status}` : name;
}

/** The calls of one think, in the order they started. */
export class CallTraceRecorder {
  readonly calls: ModelCallTrace[] = [];
  readonly toolCalls: ToolCallTrace[] = [];
  /** The last call's `stop_reason`, or why the think ended without one. */
  stopReason = 'none';

  constructor(
    private readonly model: string,
    /** Undefined for a thinker that makes no model calls (offline). */
    private readonly price: ModelPricing | undefined,
    private readonly now: () => number,
  ) {}

  /**
   * Runs one Messages API call and records it: usage, cost, `stop_reason` and tries on success; the error (after the
   * SDK's retries) on failure, which is rethrown as it came.
   */
  async modelCall<R extends { usage?: unknown; stop_reason?: string | null }>(
    call: () => Promise<R>,
    usageOf: (response: R) => TokenUsage,
  ): Promise<R> {
    const startedAt = this.now();
    const started = performance.now();
    const counted = countAttempts(call);
    const base = () => ({
      model: this.model,
      startedAt,
      durationMs: elapsedMs(started),
      retries: Math.max(0, counted.tries() - 1),
    });
    try {
      const response = await counted.result;
      const usage = usageOf(response);
      const stopReason = response.stop_reason ?? undefined;
      this.calls.push({
        ...base(),
        ...usage,
        costUsd: this.price === undefined ? 0 : callCostUsd(usage, this.price),
        ...(stopReason === undefined ? {} : { stopReason }),
      });
      if (stopReason !== undefined) this.stopReason = stopReason;
      return response;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.calls.push({
        ...base(),
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        costUsd: 0,
        error: { type: errorType(err), message },
      });
      this.stopReason = 'error';
      throw err;
    }
  }

  /** Records one of Vigil's own tools (an action the model asked for): applied later, so it takes no time now. */
  ownTool(callId: string, name: string, ok: boolean, result: string): void {
    this.toolCalls.push({
      callId,
      name,
      startedAt: this.now(),
      durationMs: 0,
      ok,
      resultBytes: Buffer.byteLength(result, 'utf8'),
    });
  }

  /** `tools` with every call recorded (MCP calls carry the durable call id the `tool.called` event has). */
  traced(tools: ThinkTools): ThinkTools {
    return {
      definitions: () => tools.definitions(),
      owns: (name) => tools.owns(name),
      notices: (turnIds) => tools.notices(turnIds),
      acknowledge: (callIds) => tools.acknowledge(callIds),
      call: async (request, signal) => {
        const startedAt = this.now();
        const started = performance.now();
        const result = await tools.call(request, signal);
        this.toolCalls.push({
          callId: result.callId ?? `${request.name}@${startedAt}`,
          name: request.name,
          startedAt,
          durationMs: elapsedMs(started),
          ok: !result.isError,
          resultBytes: result.resultBytes ?? resultBytesOf(result),
        });
        return result;
      },
    };
  }
}

/** The size of a result as the model gets it, when its caller did not say what the server sent. */
function resultBytesOf(result: ExternalToolResult): number {
  return result.content.reduce(
    (sum, part) => sum + (part.type === 'text' ? Buffer.byteLength(part.text, 'utf8') : part.data.length),
    0,
  );
}

function elapsedMs(startedPerf: number): number {
  return Math.round((performance.now() - startedPerf) * 1000) / 1000;
}
