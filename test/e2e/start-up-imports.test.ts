/** Fast start: each path of the binary loads only what it needs (a client call no daemon, the offline daemon no model SDK). */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_ENV, startDaemon } from './daemon-process.js';
import { ROOT, runNode } from './run-process.js';

const RECORDER = join(ROOT, 'test/fixtures/import-recorder.mjs');
// What only the daemon needs: its modules (the wire schemas aside, which the client validates with) and their packages.
const DAEMON_ONLY =
  /\/dist\/(daemon\.js|runtime\/(?!.*\.schema\.js$)|heartbeat\/|subsystems\/store\/)|\/node_modules\/(level|classic-level|xstate|pino|prom-client|@anthropic-ai|openai)\//;
const ANTHROPIC_SDK = /\/node_modules\/@anthropic-ai\/sdk\//;
const OPENAI_SDK = /\/node_modules\/openai\//;
// The OpenTelemetry SDK, its exporters and Vigil's side of them (the API alone comes with prom-client).
const OTEL_SDK =
  /\/node_modules\/@opentelemetry\/(?!api\/)|\/dist\/subsystems\/telemetry\/(otel-tracing|span-writer|bounded-span-queue)\.js$/;
// The browser's entry and transport, and the dashboard's bundle: never part of a Node process.
const BROWSER_ONLY = /\/dist\/(client\/browser(-socket)?\.js|gateway\/dashboard\/)/;

let dir: string;
let logs = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vigil-imports-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A fresh log file for the recorder, and the environment that turns it on. */
function recorder(): { log: string; env: Record<string, string> } {
  logs += 1;
  const log = join(dir, `imports-${logs}.log`);
  return { log, env: { VIGIL_IMPORT_LOG: log, NODE_OPTIONS: `--import=${RECORDER}` } };
}

const imported = async (log: string): Promise<string[]> => (await readFile(log, 'utf8')).trim().split('\n');

describe('what each path of `vigil` imports', () => {
  it('a client command (vigil rpc) loads no part of the daemon, and no browser code: its client runs over ws', async () => {
    const { log, env } = recorder();
    // Nothing listens on port 9: the call fails after every module it needs has loaded.
    const { code, stderr } = await runNode(
      ['bin/vigil.js', 'rpc', 'heartbeat.status', '--url', 'http://127.0.0.1:9', '--token', 't'],
      env,
    );
    expect(stderr).toMatch(/No connection to the gateway/);
    expect(code).toBe(1);
    const urls = await imported(log);
    expect(urls.some((url) => url.endsWith('/dist/client/commands/rpc.command.js'))).toBe(true);
    expect(urls.filter((url) => DAEMON_ONLY.test(url))).toEqual([]);
    expect(urls.filter((url) => BROWSER_ONLY.test(url))).toEqual([]);
    expect(urls.some((url) => url.endsWith('/dist/client/node-socket.js'))).toBe(true);
  });

  it("the daemon loads the model SDK of its own thinker only: none offline, Anthropic's for anthropic, OpenAI's for openai", async () => {
    const runs: Array<{ thinker: string; env: Record<string, string> }> = [
      { thinker: 'offline', env: {} },
      { thinker: 'anthropic', env: { ANTHROPIC_API_KEY: 'sk-unused', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' } },
      {
        thinker: 'openai',
        env: {
          OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
          VIGIL_MODEL: 'llama3.2',
          VIGIL_PRICING_JSON:
            '{"llama3.2":{"inputPerMTok":0,"outputPerMTok":0,"cacheWritePerMTok":0,"cacheReadPerMTok":0}}',
        },
      },
    ];
    const sdkLoaded: Record<string, { anthropic: boolean; openai: boolean }> = {};
    for (const run of runs) {
      const { log, env } = recorder();
      const dataDir = await mkdtemp(join(dir, `${run.thinker}-`));
      const daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0', '--thinker', run.thinker], {
        ...FAST_ENV,
        ...run.env,
        ...env,
      });
      await daemon.waitFor((line) => line.msg === 'gateway listening');
      daemon.kill('SIGTERM');
      expect(await daemon.exited).toBe(0);
      const urls = await imported(log);
      sdkLoaded[run.thinker] = {
        anthropic: urls.some((url) => ANTHROPIC_SDK.test(url)),
        openai: urls.some((url) => OPENAI_SDK.test(url)),
      };
    }
    expect(sdkLoaded).toEqual({
      offline: { anthropic: false, openai: false },
      anthropic: { anthropic: true, openai: false },
      openai: { anthropic: false, openai: true },
    });
  });

  it('the daemon loads no OpenTelemetry SDK without OTEL_EXPORTER_OTLP_ENDPOINT; with it, the SDK and only the chosen exporter', async () => {
    const runs: Array<{ name: string; env: Record<string, string> }> = [
      { name: 'none', env: {} },
      {
        name: 'json',
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
      },
    ];
    const loaded: Record<string, string[]> = {};
    for (const run of runs) {
      const { log, env } = recorder();
      const dataDir = await mkdtemp(join(dir, `otel-${run.name}-`));
      const daemon = startDaemon(['run', '--data-dir', dataDir, '--port', '0'], { ...FAST_ENV, ...run.env, ...env });
      await daemon.waitFor((line) => line.msg === 'gateway listening');
      daemon.kill('SIGTERM');
      expect(await daemon.exited).toBe(0);
      loaded[run.name] = (await imported(log)).filter((url) => OTEL_SDK.test(url));
    }
    expect(loaded['none']).toEqual([]);
    const json = loaded['json']!;
    expect(json.some((url) => url.includes('/node_modules/@opentelemetry/sdk-trace/'))).toBe(true);
    expect(json.some((url) => url.includes('/node_modules/@opentelemetry/exporter-trace-otlp-http/'))).toBe(true);
    expect(json.some((url) => url.includes('/node_modules/@opentelemetry/exporter-trace-otlp-proto/'))).toBe(false);
  });
});
