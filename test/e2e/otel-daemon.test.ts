/** The real daemon (dist) exporting its thinks as OpenTelemetry spans to a local OTLP/HTTP collector. */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/vigil-client.js';
import { startOtlpCollector, type OtlpCollector } from '../fixtures/otlp/otlp-collector.js';
import { FAST_ENV, startDaemon, type DaemonProcess } from './daemon-process.js';

const TOKEN = 'otel-e2e-token-0123456789';
let dir: string;
const started: DaemonProcess[] = [];
const collectors: OtlpCollector[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vigil-otel-e2e-'));
});
afterAll(async () => {
  for (const daemon of started) daemon.kill('SIGKILL');
  for (const c of collectors) await c.close();
  await rm(dir, { recursive: true, force: true });
});

describe('vigil run with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it.each<{ protocol: string; env: Record<string, string> }>([
    { protocol: 'http/protobuf', env: {} },
    { protocol: 'http/json', env: { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' } },
  ])(
    'exports each think as an invoke_agent span over $protocol, the last ones flushed on SIGTERM',
    async ({ protocol, env }) => {
      const collector = await startOtlpCollector();
      collectors.push(collector);
      const dataDir = await mkdtemp(join(dir, 'data-'));
      const daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], {
        ...FAST_ENV,
        ...env,
        VIGIL_TOKEN: TOKEN,
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_SERVICE_NAME: 'vigil-e2e',
        // Ten minutes between exports: spans reach the collector only through the flush on SIGTERM.
        OTEL_BSP_SCHEDULE_DELAY: '600000',
      });
      started.push(daemon);
      const exporting = await daemon.waitFor(
        (l) => l.msg === 'exporting thinks as OpenTelemetry spans',
        20_000,
        'the export starting',
      );
      expect(exporting).toMatchObject({ url: `${collector.url}/v1/traces`, protocol });
      const listening = await daemon.waitFor((l) => l.msg === 'gateway listening', 20_000, 'gateway listening');
      const client = await connect({ url: String(listening.url), token: TOKEN, reconnect: false });
      const { turnId } = await client.agent.send({ text: 'hello, tracer', from: 'e2e' });
      const deadline = Date.now() + 15_000;
      while (
        !(await client.events.history({ types: ['agent.reply'], limit: 10 })).some(
          (e) => (e as { turnId?: string }).turnId === turnId,
        )
      ) {
        if (Date.now() > deadline) throw new Error('no agent.reply');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await client.close();
      expect(collector.requests).toBe(0);

      daemon.kill('SIGTERM');
      expect(await daemon.exited).toBe(0);
      const thinks = collector.spans.filter((s) => s.name === 'invoke_agent vigil');
      const think = thinks.find((s) => s.attributes['gen_ai.conversation.id'] === turnId);
      expect(think).toBeDefined();
      expect(think!.encoding).toBe(protocol === 'http/json' ? 'json' : 'protobuf');
      expect(think!.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.provider.name': 'vigil.offline',
        'gen_ai.agent.name': 'vigil',
        'gen_ai.request.model': 'offline',
        'vigil.think.reason': 'user_message',
      });
      expect(think!.resource).toMatchObject({ 'service.name': 'vigil-e2e' });
    },
  );

  it('exits 2 naming the variable for a protocol it cannot speak, before opening anything', async () => {
    const daemon = startDaemon(['run', '--data-dir', join(dir, 'never'), '--port', '0'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
    });
    expect(await daemon.exited).toBe(2);
    expect(daemon.stderr()).toMatch(/OTEL_EXPORTER_OTLP_PROTOCOL="grpc" is invalid/);
    expect(existsSync(join(dir, 'never'))).toBe(false);
  });
});
