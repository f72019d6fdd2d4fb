import { afterEach, describe, expect, it, vi } from 'vitest';
import { VigilError } from '../../src/errors.js';
import type { Thinker } from '../../src/subsystems/thinking/thinker.js';
import type { ThinkInput, ThinkResult } from '../../src/subsystems/thinking/thinker.schema.js';
import { startOtlpCollector, type OtlpCollector } from '../fixtures/otlp/otlp-collector.js';
import { useRuntimes, type RuntimeHarness } from '../fixtures/runtime.fixture.js';

const start = useRuntimes();
const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function collector(options: { hang?: boolean } = {}): Promise<OtlpCollector> {
  const c = await startOtlpCollector(options);
  cleanup.push(() => c.close());
  return c;
}

/** A thinker that answers every message after a model call that asked for a tool, the tool, and a second call. */
class TracingThinker implements Thinker {
  readonly kind = 'traced';
  fail = false;

  async think(input: ThinkInput): Promise<ThinkResult> {
    if (this.fail) throw new VigilError('THINK_REJECTED', 'The API refused the request: prompt is too long.');
    const t = input.now;
    const call = (startedAt: number, stopReason: string) => ({
      model: 'claude-sonnet-5-5',
      startedAt,
      durationMs: 100,
      inputTokens: 10,
      outputTokens: 5,
      cacheReadTokens: 900,
      cacheWriteTokens: 0,
      costUsd: 0.0001,
      stopReason,
      retries: 0,
    });
    return {
      model: 'claude-sonnet-5-5',
      actions: input.pendingMessages.map((m) => ({ type: 'reply' as const, turnId: m.turnId, text: `re: ${m.text}` })),
      usage: { inputTokens: 20, outputTokens: 10, cacheReadTokens: 1800, cacheWriteTokens: 0 },
      costMicroUsd: 200,
      trace: {
        calls: [call(t, 'tool_use'), call(t + 150, 'end_turn')],
        toolCalls: [
          {
            callId: 'toolu_1',
            name: 'mcp__notes__search',
            startedAt: t + 110,
            durationMs: 30,
            ok: true,
            resultBytes: 64,
          },
        ],
        sections: [],
        stopReason: 'end_turn',
      },
    };
  }

  async runTask(): Promise<never> {
    throw new Error('no tasks here');
  }
}

async function answered(h: RuntimeHarness, count: number): Promise<void> {
  await vi.waitFor(
    async () => {
      await h.advance(1000);
      expect(h.ofType('agent.reply').length + h.ofType('agent.unanswered').length).toBeGreaterThanOrEqual(count);
    },
    { timeout: 10_000, interval: 5 },
  );
}

async function metricValue(h: RuntimeHarness, series: string): Promise<number> {
  const line = (await h.runtime.metrics.text()).split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.split(' ')[1]);
}

describe('the runtime with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('exports each think as invoke_agent → chat → execute_tool, sent when the runtime stops', async () => {
    const c = await collector();
    const h = await start({
      thinker: new TracingThinker(),
      // A long schedule delay: the spans can only come with the stop's flush.
      config: { otlpEndpoint: c.url, otlpProtocol: 'http/protobuf', otelBspScheduleDelayMs: 600_000 },
    });
    const { turnId } = await h.runtime.send({ text: 'find my notes' });
    await answered(h, 1);
    expect(c.spans).toHaveLength(0);
    await h.stop();
    expect(c.spans).toHaveLength(4);
    const [think] = c.spans.filter((s) => s.name === 'invoke_agent vigil');
    const chats = c.spans.filter((s) => s.name === 'chat claude-sonnet-5-5');
    const [tool] = c.spans.filter((s) => s.name === 'execute_tool mcp__notes__search');
    expect(chats.map((s) => s.parentSpanId)).toEqual([think!.spanId, think!.spanId]);
    const asker = chats.find((s) => s.attributes['gen_ai.response.finish_reasons']?.toString() === 'tool_use');
    expect(tool!.parentSpanId).toBe(asker!.spanId);
    expect(think!.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'vigil.traced',
      'gen_ai.conversation.id': turnId,
      'gen_ai.request.model': 'claude-sonnet-5-5',
      'gen_ai.usage.input_tokens': 1820,
      'gen_ai.usage.cache_read.input_tokens': 1800,
      'vigil.think.reason': 'user_message',
      'vigil.cost_usd': 0.0002,
    });
    expect(tool!.attributes).toMatchObject({ 'gen_ai.tool.call.id': 'toolu_1', 'gen_ai.conversation.id': turnId });
    // The runtime's own clock (simulated here) times the think.
    expect(think!.startTimeUnixNano).toBeLessThanOrEqual(chats[0]!.startTimeUnixNano);
    expect(await metricValue(h, 'vigil_otel_spans_exported_total')).toBe(4);
  });

  it('marks a failed think with an error status and error.type', async () => {
    const c = await collector();
    const thinker = new TracingThinker();
    thinker.fail = true;
    const h = await start({
      thinker,
      config: { otlpEndpoint: c.url, otlpProtocol: 'http/json', otelBspScheduleDelayMs: 600_000 },
    });
    await h.runtime.send({ text: 'a very long prompt' });
    await answered(h, 1);
    await h.stop();
    const [think] = c.spans;
    expect(c.spans).toHaveLength(1);
    expect(think!.attributes['error.type']).toBe('THINK_REJECTED');
    expect(think!.status).toEqual({ code: 2, message: 'The API refused the request: prompt is too long.' });
  });

  it('keeps answering while the collector never answers, and counts the spans it had to drop in /metrics', async () => {
    // The first export hangs for the whole test (neither the exporter nor the batch processor gives up on it within
    // the test, so nothing else is sent); the stop gives up on it after its 5 s bound.
    process.env['OTEL_EXPORTER_OTLP_TIMEOUT'] = '60000';
    cleanup.push(() => {
      delete process.env['OTEL_EXPORTER_OTLP_TIMEOUT'];
    });
    const c = await collector({ hang: true });
    const h = await start({
      thinker: new TracingThinker(),
      config: {
        otlpEndpoint: c.url,
        otlpProtocol: 'http/json',
        otelBspMaxQueueSize: 4,
        otelBspMaxExportBatchSize: 2,
        otelBspScheduleDelayMs: 1,
        otelBspExportTimeoutMs: 60_000,
      },
    });
    for (let i = 1; i <= 5; i += 1) {
      await h.runtime.send({ text: `message ${i}` });
      await answered(h, i);
    }
    // Every message answered, every beat went on, while no export was ever answered.
    expect(h.ofType('agent.reply')).toHaveLength(5);
    expect(await metricValue(h, 'vigil_otel_spans_exported_total')).toBe(0);
    // 20 spans made: the first batch of 2 left for the collector (and hangs there), 4 wait in the queue, 14 dropped.
    expect(c.requests).toBe(1);
    expect(await metricValue(h, 'vigil_otel_spans_dropped_total{reason="queue_full"}')).toBe(14);
    await h.stop();
  });
});
